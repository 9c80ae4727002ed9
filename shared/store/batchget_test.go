package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
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

// unprocessed makes DynamoDB leave keys unprocessed as it may under load (DynamoDB Local never
// does): each BatchGetItem answers only its first keep keys' items and hands the rest back as
// UnprocessedKeys, with the request's projection, until the calls it may spoil are spent (keep
// 0: nothing is read).
func unprocessed(keep *atomic.Int64, spoil *atomic.Int64) func(*aws.Config) {
	return func(cfg *aws.Config) {
		cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("unprocessed", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				req, ok := in.Parameters.(*dynamodb.BatchGetItemInput)
				if !ok || spoil.Add(-1) < 0 {
					return next.HandleInitialize(ctx, in)
				}
				var table string
				var asked types.KeysAndAttributes
				for table, asked = range req.RequestItems {
				}
				keep := int(keep.Load())
				if len(asked.Keys) <= keep {
					return next.HandleInitialize(ctx, in)
				}
				if keep == 0 {
					return middleware.InitializeOutput{Result: &dynamodb.BatchGetItemOutput{
						UnprocessedKeys: map[string]types.KeysAndAttributes{table: asked}}}, middleware.Metadata{}, nil
				}
				first := asked
				first.Keys = asked.Keys[:keep]
				in.Parameters = &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: first}}
				out, md, err := next.HandleInitialize(ctx, in)
				if res, ok := out.Result.(*dynamodb.BatchGetItemOutput); ok && err == nil {
					rest := asked
					rest.Keys = asked.Keys[keep:]
					res.UnprocessedKeys = map[string]types.KeysAndAttributes{table: rest}
				}
				return out, md, err
			}), middleware.After)
		})
	}
}

// Keys DynamoDB leaves unprocessed are asked again until every item is read, projections
// kept; a table that never processes them ends in 503 at the request's deadline, not a loop.
func TestBatchGetAsksAgainForUnprocessedKeys(t *testing.T) {
	var keep, spoil atomic.Int64
	keep.Store(3)
	st, _ := dynamotest.NewStore(t, unprocessed(&keep, &spoil))
	ctx := t.Context()
	pk := "TEST#unprocessed"
	var keys [][2]string
	for i := range 10 {
		sk := fmt.Sprintf("N#%04d", i)
		_, err := st.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: ptr(store.TableName(st)), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk},
			"id": &types.AttributeValueMemberN{Value: fmt.Sprint(i + 1)}}})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, [2]string{pk, sk})
	}
	spoil.Store(3) // 10 keys, 3 a call while spoiled: 3 + 3 + 3 + the last 1
	got, err := store.GetItems(ctx, st, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(keys) {
		t.Fatalf("%d items, want %d", len(got), len(keys))
	}
	for i, k := range keys {
		if got[k] != int64(i+1) {
			t.Errorf("%v: id %d, want %d", k, got[k], i+1)
		}
	}
	if left := spoil.Load(); left != -1 {
		t.Errorf("%d spoiled calls left, want every one used and one more call", left)
	}

	keep.Store(0)
	spoil.Store(1 << 30) // never processed
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := store.GetItems(short, st, keys); !errors.Is(err, apperr.ErrUnavailable) {
		t.Fatalf("a table that never processes the keys: %v, want unavailable", err)
	}
}
