package store_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Reads by key build their BatchGetItem inputs by hand: every item found under its own key,
// missing and repeated keys, 100 keys a call, none for no key.
func TestGetItemsByKeyInBatchesOf100(t *testing.T) {
	e := apitest.New(t, func(*httpapi.API, *store.Store) {})
	ctx := t.Context()
	const n = 250
	pk := "TEST#batchget"
	for i := 0; i < n; i++ {
		_, err := e.Store.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: ptr(store.TableName(e.Store)), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("N#%04d", i)},
			"id": &types.AttributeValueMemberN{Value: fmt.Sprint(i + 1)}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	key := func(i int) [2]string { return [2]string{pk, fmt.Sprintf("N#%04d", i)} }
	cases := []struct {
		name  string
		keys  [][2]string
		want  map[[2]string]int64
		calls int64
	}{
		{"none", nil, map[[2]string]int64{}, 0},
		{"one", [][2]string{key(7)}, map[[2]string]int64{key(7): 8}, 1},
		{"missing", [][2]string{key(7), {pk, "N#9999"}, {"TEST#other", "N#0007"}}, map[[2]string]int64{key(7): 8}, 1},
		{"repeated", [][2]string{key(3), key(3), key(4)}, map[[2]string]int64{key(3): 4, key(4): 5}, 1},
	}
	all := cases[0]
	all.name, all.want, all.calls = "250 and 10 missing", map[[2]string]int64{}, 3
	for i := 0; i < n+10; i++ {
		all.keys = append(all.keys, key(i))
		if i < n {
			all.want[key(i)] = int64(i + 1)
		}
	}
	cases = append(cases, all)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			got, err := store.GetItems(ctx, e.Store, c.keys)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d items, want %d", len(got), len(c.want))
			}
			for k, id := range c.want {
				if got[k] != id {
					t.Errorf("%v: id %d, want %d", k, got[k], id)
				}
			}
			if calls := e.Counter.N(); calls != c.calls {
				t.Errorf("%d calls, want %d", calls, c.calls)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
