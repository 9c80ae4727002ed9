package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// keyed sends a request with an Idempotency-Key (none when key is ""), checked against the
// OpenAPI document like every test request.
func keyed(t *testing.T, e *apitest.Env, method, path, token, key string, body any) apitest.Response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.Server.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	apitest.CheckOpenAPI(t, req, res.StatusCode, res.Header, raw)
	out := apitest.Response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if len(raw) > 0 && method != http.MethodHead {
		if err := json.Unmarshal(raw, &out.Body); err != nil {
			t.Fatalf("%s %s: %q", method, path, raw)
		}
	}
	return out
}

func total(t *testing.T, e *apitest.Env, cid int64, list string) float64 {
	t.Helper()
	r := e.Do("GET", apitest.Path(cid, list), e.Admin, nil)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", list, r.Status, r.Raw)
	}
	return r.Body["meta"].(map[string]any)["total"].(float64)
}

// TestIdempotencyKey: a keyed write happens once per user, campaign and key; a repeat answers
// the stored status and body without writing; the key with another request is a 422.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	n := 0
	fresh := func() string { n++; return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), n) }
	locs := apitest.Path(e.Campaign, "/locations")
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"a repeat answers the stored outcome without writing", func(t *testing.T) {
			k, before := fresh(), total(t, e, e.Campaign, "/locations")
			first := keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": "Once"})
			again := keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": "Once"})
			if first.Status != 200 || again.Status != 200 || !bytes.Equal(first.Raw, again.Raw) {
				t.Fatalf("first %d %s, repeat %d %s", first.Status, first.Raw, again.Status, again.Raw)
			}
			if again.Header.Get("Idempotent-Replayed") != "true" || first.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("Idempotent-Replayed: first %q, repeat %q", first.Header.Get("Idempotent-Replayed"), again.Header.Get("Idempotent-Replayed"))
			}
			if got := total(t, e, e.Campaign, "/locations"); got != before+1 {
				t.Fatalf("%v locations, want %v", got, before+1)
			}
		}},
		{"the same key with another body or path is a 422 naming the header", func(t *testing.T) {
			k := fresh()
			first := keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": "Once"})
			before := total(t, e, e.Campaign, "/locations")
			for _, c := range []struct {
				method, path string
				body         any
			}{
				{"POST", locs, map[string]any{"name": "Other"}},
				{"PATCH", fmt.Sprintf("%s/%d", locs, id(first)), map[string]any{"name": "Once"}},
				{"DELETE", fmt.Sprintf("%s/%d", locs, id(first)), nil},
			} {
				r := keyed(t, e, c.method, c.path, e.Admin, k, c.body)
				if r.Status != 422 || r.Errors()["Idempotency-Key"] == nil {
					t.Fatalf("%s %s: %d %s", c.method, c.path, r.Status, r.Raw)
				}
			}
			if got := total(t, e, e.Campaign, "/locations"); got != before {
				t.Fatalf("%v locations, want %v", got, before)
			}
			if r := e.Do("GET", fmt.Sprintf("%s/%d", locs, id(first)), e.Admin, nil); r.Status != 200 || r.Data()["name"] != "Once" {
				t.Fatalf("the record changed: %d %s", r.Status, r.Raw)
			}
		}},
		{"concurrent requests with one key write once", func(t *testing.T) {
			k, before := fresh(), total(t, e, e.Campaign, "/locations")
			var wg sync.WaitGroup
			answers := make([]apitest.Response, 10)
			start := make(chan struct{})
			for i := range answers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					answers[i] = keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": "Racing"})
				}()
			}
			close(start)
			wg.Wait()
			var body []byte
			for _, a := range answers {
				switch {
				case a.Status == 200 && body == nil:
					body = a.Raw
				case a.Status == 200 && !bytes.Equal(a.Raw, body):
					t.Fatalf("two answers: %s and %s", body, a.Raw)
				case a.Status == 409 && a.Header.Get("Retry-After") != "":
				case a.Status != 200:
					t.Fatalf("answered %d %s", a.Status, a.Raw)
				}
			}
			if got := total(t, e, e.Campaign, "/locations"); got != before+1 {
				t.Fatalf("%v locations, want %v", got, before+1)
			}
		}},
		{"an expired key writes again, and its record carries the table's TTL", func(t *testing.T) {
			k, before := fresh(), total(t, e, e.Campaign, "/locations")
			first := keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": "Expiring"})
			key := map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("IDEMPOTENCY#%012d#%012d", e.Campaign, e.AdminID)},
				"sk": &types.AttributeValueMemberS{Value: "KEY#" + k}}
			got, err := e.Store.Client().GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &e.Config.TableName, Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil || got.Item == nil {
				t.Fatalf("the key's record: %v %v", got, err)
			}
			ttl, _ := got.Item["ttl"].(*types.AttributeValueMemberN)
			if ttl == nil {
				t.Fatalf("the key's record has no ttl: %v", got.Item)
			}
			end, _ := strconv.ParseInt(ttl.Value, 10, 64)
			if d := time.Until(time.Unix(end, 0)); d < 23*time.Hour || d > 25*time.Hour {
				t.Fatalf("the key expires in %v, want 24h", d)
			}
			// 24 hours later (DynamoDB removes expired items some time after; reads ignore them).
			_, err = e.Store.Client().UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: &e.Config.TableName, Key: key,
				UpdateExpression:          aws.String("SET #t = :t"),
				ExpressionAttributeNames:  map[string]string{"#t": "ttl"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Add(-time.Second).Unix(), 10)}}})
			if err != nil {
				t.Fatal(err)
			}
			again := keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": "Expiring"})
			if again.Status != 200 || id(again) == id(first) || again.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("after expiry: %d %s (first %s)", again.Status, again.Raw, first.Raw)
			}
			if got := total(t, e, e.Campaign, "/locations"); got != before+2 {
				t.Fatalf("%v locations, want %v", got, before+2)
			}
		}},
		{"keys are per user and per campaign", func(t *testing.T) {
			k := fresh()
			a := keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": "Mine"})
			b := keyed(t, e, "POST", locs, e.Admin2, k, map[string]any{"name": "Mine"})
			c := keyed(t, e, "POST", apitest.Path(e.PublicCampaign, "/locations"), e.Admin, k, map[string]any{"name": "Mine"})
			for _, r := range []apitest.Response{a, b, c} {
				if r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" {
					t.Fatalf("answered %d %s, replayed %q", r.Status, r.Raw, r.Header.Get("Idempotent-Replayed"))
				}
			}
			if id(a) == id(b) {
				t.Fatalf("another user's request was answered from the first: %s %s", a.Raw, b.Raw)
			}
		}},
		{"GET ignores the header", func(t *testing.T) {
			k := fresh()
			keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": "Listed"})
			for _, key := range []string{k, strings.Repeat("x", 300), "bad key"} {
				r := keyed(t, e, "GET", locs, e.Admin, key, nil)
				if r.Status != 200 || r.Body["meta"] == nil || r.Header.Get("Idempotent-Replayed") != "" {
					t.Fatalf("GET with key %q: %d %s", key, r.Status, r.Raw)
				}
			}
		}},
		{"a malformed key is a 422 and writes nothing", func(t *testing.T) {
			before := total(t, e, e.Campaign, "/locations")
			for _, key := range []string{strings.Repeat("k", 256), "two words", "tab\tkey", "é-key"} {
				r := keyed(t, e, "POST", locs, e.Admin, key, map[string]any{"name": "Bad"})
				if r.Status != 422 || r.Errors()["Idempotency-Key"] == nil {
					t.Fatalf("key %q: %d %s", key, r.Status, r.Raw)
				}
			}
			req, _ := http.NewRequest("POST", e.Server.URL+locs, strings.NewReader(`{"name":"Twice"}`))
			req.Header.Set("Authorization", "Bearer "+e.Admin)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Add("Idempotency-Key", "a")
			req.Header.Add("Idempotency-Key", "b")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 422 {
				t.Fatalf("two keys: %d", res.StatusCode)
			}
			if got := total(t, e, e.Campaign, "/locations"); got != before {
				t.Fatalf("%v locations, want %v", got, before)
			}
		}},
		{"a failed request stores nothing: its repeat runs again", func(t *testing.T) {
			k := fresh()
			if r := keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": ""}); r.Status != 422 || r.Errors()["name"] == nil {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if r := keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": ""}); r.Status != 422 || r.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if r := keyed(t, e, "POST", locs, e.Admin, k, map[string]any{"name": "Fixed"}); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
		}},
		{"advance, update, import and delete happen once", func(t *testing.T) {
			cal := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, map[string]any{"name": "Keyed", "month_name": []any{"A", "B"},
				"month_length": []any{30, 30}, "weekday": []any{"X", "Y"}, "current_year": 1, "current_month": 1, "current_day": 1})
			calPath := fmt.Sprintf("/calendars/%d", id(cal))
			adv, upd := fresh(), fresh()
			for i := 0; i < 2; i++ {
				keyed(t, e, "POST", apitest.Path(e.Campaign, calPath+"/advance"), e.Admin, adv, map[string]any{"days": 3})
				keyed(t, e, "PATCH", apitest.Path(e.Campaign, calPath), e.Admin, upd, map[string]any{"name": "Renamed"})
			}
			if r := e.Do("GET", apitest.Path(e.Campaign, calPath), e.Admin, nil); r.Data()["date"] != "1-1-4" || r.Data()["name"] != "Renamed" {
				t.Fatalf("after two keyed advances of 3 days: %s", r.Raw)
			}
			imp, before := fresh(), total(t, e, e.Campaign, "/calendars")
			export := map[string]any{"name": "Imported", "static_data": map[string]any{"year_data": map[string]any{"first_day": 1, "global_week": []any{"A", "B"},
				"timespans": []any{map[string]any{"name": "M1", "length": 10}, map[string]any{"name": "M2", "length": 10}}}},
				"dynamic_data": map[string]any{"year": 1, "timespan": 0, "day": 1}}
			one := keyed(t, e, "POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, imp, export)
			two := keyed(t, e, "POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, imp, export)
			if one.Status != 200 || !bytes.Equal(one.Raw, two.Raw) || total(t, e, e.Campaign, "/calendars") != before+1 {
				t.Fatalf("import twice: %d %s / %d %s", one.Status, one.Raw, two.Status, two.Raw)
			}
			del := fresh()
			d1 := keyed(t, e, "DELETE", apitest.Path(e.Campaign, calPath), e.Admin, del, nil)
			d2 := keyed(t, e, "DELETE", apitest.Path(e.Campaign, calPath), e.Admin, del, nil)
			if d1.Status != 200 || d2.Status != 200 || !bytes.Equal(d1.Raw, d2.Raw) {
				t.Fatalf("delete twice: %d %s / %d %s", d1.Status, d1.Raw, d2.Status, d2.Raw)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func id(r apitest.Response) int64 { f, _ := r.Data()["id"].(float64); return int64(f) }
