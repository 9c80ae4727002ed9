package locations_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// Issue 20: layout 2 kept the ids of every private location in one counter item, which reached
// DynamoDB's 400 KB item limit at about 80,000-100,000 private locations, after which no
// location could be written. Here one range counts 150,000 private locations, written compactly:
// the counter items as the migration's recount writes them (total and segments, no records),
// then real locations above them through the API. A show reads no counter; page 1, a cursor
// page, a write and a shallow ?page=N read under 10 KB of counters; a deep ?page=N reads about
// one segment per 10,000 ids before it; every counter item stays small.
func TestCountersStayBoundedPastLayoutTwosItemLimit(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	ctx := context.Background()
	const private = 150_000 // ids 1..150,000, all private: the admins' class only
	const firstReal = 150_101
	cpk := fmt.Sprintf("CAMPAIGN#%012d", e.Campaign)
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v int) types.AttributeValue { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }
	var reqs []types.WriteRequest
	for _, kind := range []string{"LOCATION", "ENTITY"} {
		total := "COUNT#" + kind
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"pk": s(cpk), "sk": s(total), "admin": n(private)}}})
		segs := map[int]map[string]int{}
		for id := 1; id <= private; id++ {
			k := id / 10000
			if segs[k] == nil {
				segs[k] = map[string]int{}
			}
			segs[k]["admin"]++
			segs[k]["admin_"+strconv.Itoa(id%10000/100)]++
		}
		for k, counts := range segs {
			it := map[string]types.AttributeValue{"pk": s(cpk), "sk": s(fmt.Sprintf("%s#S#%08d", total, k))}
			for attr, c := range counts {
				it[attr] = n(c)
			}
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
	}
	for start := 0; start < len(reqs); start += 25 {
		chunk := reqs[start:min(start+25, len(reqs))]
		for len(chunk) > 0 {
			out, err := e.Store.Client().BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{e.Config.TableName: chunk}})
			if err != nil {
				t.Fatal(err)
			}
			chunk = out.UnprocessedItems[e.Config.TableName]
		}
	}
	// The id sequences continue above the counted ids, leaving bucket 1500 (ids 150,000-150,099) to them.
	_, err := e.Store.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(e.Config.TableName),
		Key:              map[string]types.AttributeValue{"pk": s(cpk), "sk": s("SEQ")},
		UpdateExpression: aws.String("SET #l = :n, #e = :n"), ExpressionAttributeNames: map[string]string{"#l": "location", "#e": "entity"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": n(firstReal - 1)}})
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range []map[string]any{
		{"name": "Real 1"}, {"name": "Real 2"}, {"name": "Real 3"}, {"name": "Real 4, private", "is_private": true},
	} {
		r := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, body)
		if r.Status != 200 || r.Data()["id"] != float64(firstReal+i) {
			t.Fatalf("create %d: %d %s", i, r.Status, r.Raw)
		}
	}

	const small = 10_000 // bytes of counters a request may read
	cases := []struct {
		name, method, path, token string
		body                      map[string]any
		total, firstID            int // -1: not a list
		maxBytes                  int64
	}{
		{"show, member", "GET", fmt.Sprintf("/locations/%d", firstReal), e.Member, nil, -1, firstReal, 0},
		{"show, admin", "GET", fmt.Sprintf("/locations/%d", firstReal+3), e.Admin, nil, -1, firstReal + 3, 0},
		{"page 1, admin", "GET", "/locations?limit=2", e.Admin, nil, private + 4, firstReal, small},
		{"page 1, member", "GET", "/locations?limit=2", e.Member, nil, 3, firstReal, small},
		{"?page=2, member", "GET", "/locations?page=2&limit=2", e.Member, nil, 3, firstReal + 2, small},
		{"?page=2, admin", "GET", "/locations?page=2&limit=2", e.Admin, nil, private + 4, 1, small}, // counted ids without records: the page holds what exists from its bucket
		// A deep page without a cursor reads the segments before it: 16 here (documented cost).
		{"?page=3001 (past the 150,000), admin", "GET", "/locations?page=3001&limit=50", e.Admin, nil, private + 4, firstReal, 16 * 1600},
		{"update, admin", "PATCH", fmt.Sprintf("/locations/%d", firstReal+1), e.Admin, map[string]any{"name": "Renamed"}, -1, firstReal + 1, 0},
		{"create, admin", "POST", "/locations", e.Admin, map[string]any{"name": "Private 5", "is_private": true}, -1, firstReal + 4, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do(c.method, apitest.Path(e.Campaign, c.path), c.token, c.body)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			t.Logf("%d calls, %d counter items read, %d bytes", e.Counter.N(), e.Counter.CounterItems(), e.Counter.CounterBytes())
			if b := e.Counter.CounterBytes(); b > c.maxBytes {
				t.Errorf("read %d bytes of counters (%d items), budget %d", b, e.Counter.CounterItems(), c.maxBytes)
			}
			if c.total < 0 {
				if r.Data()["id"] != float64(c.firstID) {
					t.Errorf("id %v, want %d", r.Data()["id"], c.firstID)
				}
				return
			}
			if got := r.Body["meta"].(map[string]any)["total"]; got != float64(c.total) {
				t.Errorf("total %v, want %d", got, c.total)
			}
			if c.firstID > 1 && (len(r.List()) == 0 || r.List()[0].(map[string]any)["id"] != float64(c.firstID)) {
				t.Errorf("first row %v, want id %d", r.List()[:min(1, len(r.List()))], c.firstID)
			}
		})
	}

	// A cursor page (links.next of page 1) reads the total only.
	r := e.Do("GET", apitest.Path(e.Campaign, "/locations?limit=2"), e.Member, nil)
	u, _ := url.Parse(r.Body["links"].(map[string]any)["next"].(string))
	e.Counter.Reset()
	r = e.Do("GET", u.RequestURI(), e.Member, nil)
	if r.Status != 200 || len(r.List()) != 1 || r.List()[0].(map[string]any)["id"] != float64(firstReal+2) {
		t.Fatalf("cursor page: %d %s", r.Status, r.Raw)
	}
	if e.Counter.CounterItems() != 1 || e.Counter.CounterBytes() > small {
		t.Errorf("cursor page read %d counter items, %d bytes", e.Counter.CounterItems(), e.Counter.CounterBytes())
	}

	// Every counter item is small, whatever the range holds: the total one number per class, a
	// segment at most the classes' totals and 100 buckets each.
	out, err := e.Store.Client().Query(ctx, &dynamodb.QueryInput{TableName: aws.String(e.Config.TableName),
		KeyConditionExpression:    aws.String("pk = :p AND begins_with(sk, :c)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(cpk), ":c": s("COUNT#LOCATION")}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 17 { // the total and segments 0..15
		t.Errorf("%d location counter items, want 17", len(out.Items))
	}
	for _, it := range out.Items {
		size, limit := dynamotest.ItemSize(it), 6000
		if it["sk"].(*types.AttributeValueMemberS).Value == "COUNT#LOCATION" {
			limit = 200
		}
		if size > limit {
			t.Errorf("%s: %d bytes, limit %d", it["sk"].(*types.AttributeValueMemberS).Value, size, limit)
		}
	}
}
