package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/faultproxy"
)

// logBuffer collects the API's JSON log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) lines(t *testing.T) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		out = append(out, m)
	}
	b.buf.Reset()
	return out
}

func withLog(b *logBuffer) apitest.Option {
	return apitest.WithAPI(func(o *httpapi.Options) { o.Logger = slog.New(slog.NewJSONHandler(b, nil)) })
}

func TestOneLogLinePerRequest(t *testing.T) {
	t.Parallel()
	var logs logBuffer
	e := apitest.NewWith(t, func(api *httpapi.API, st *store.Store) {
		locations.Register(api, st)
		api.Handle("GET", "/boom", func(*httpapi.Request) (httpapi.Reply, error) { panic("deliberate") })
	}, withLog(&logs), apitest.WithoutOpenAPI())
	base := apitest.Path(e.Campaign, "/locations")
	if r := e.Do("POST", base, e.Admin, map[string]any{"name": "Candlekeep"}); r.Status != 200 {
		t.Fatal(r.Raw)
	}
	logs.lines(t)
	cases := []struct {
		name   string
		method string
		path   string
		token  string
		status int
		want   map[string]any
	}{
		{"a read names route, user, campaign and DynamoDB calls", "GET", base + "/1", e.Admin, 200,
			map[string]any{"route": "GET " + httpapi.Prefix + "/locations/{id}", "user_id": float64(e.AdminID), "campaign_id": float64(e.Campaign), "level": "INFO"}},
		{"a validation failure", "POST", base, e.Admin, 422, map[string]any{"route": "POST " + httpapi.Prefix + "/locations", "level": "INFO"}},
		{"an unauthenticated request", "GET", base, "", 401, map[string]any{"user_id": float64(0), "dynamodb_calls": float64(0)}},
		{"an unknown route", "GET", apitest.Path(e.Campaign, "/dragons"), e.Admin, 404, map[string]any{"route": ""}},
		{"a wrong method", "POST", base + "/1", e.Admin, 405, map[string]any{"route": httpapi.Prefix + "/locations/{id}"}},
		{"a panic becomes a logged JSON 500", "GET", apitest.Path(e.Campaign, "/boom"), e.Admin, 500, map[string]any{"level": "ERROR"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.method == "POST" {
				body = map[string]any{}
			}
			e.Counter.Reset()
			res := e.Do(tc.method, tc.path, tc.token, body)
			if res.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", res.Status, tc.status, res.Raw)
			}
			lines := logs.lines(t)
			if len(lines) != 1 {
				t.Fatalf("%d log lines, want 1: %v", len(lines), lines)
			}
			l := lines[0]
			if l["request_id"] != res.Header.Get("X-Request-Id") || l["request_id"] == "" {
				t.Errorf("request_id %v, response header %q", l["request_id"], res.Header.Get("X-Request-Id"))
			}
			if l["method"] != tc.method || l["status"] != float64(tc.status) {
				t.Errorf("method %v status %v", l["method"], l["status"])
			}
			if _, ok := l["duration_ms"].(float64); !ok {
				t.Errorf("no duration_ms: %v", l)
			}
			// The line counts every call the request made: the family's (which the test's SDK
			// counter sees) and the token read (made through a store the counter does not watch).
			want := e.Counter.N()
			if tc.token != "" {
				want++
			}
			if l["dynamodb_calls"] != float64(want) {
				t.Errorf("dynamodb_calls %v, want %d", l["dynamodb_calls"], want)
			}
			for k, v := range tc.want {
				if l[k] != v {
					t.Errorf("%s = %v, want %v (line %v)", k, l[k], v, l)
				}
			}
			checkEMF(t, l)
			// DynamoDB reports what each call consumed: a read costs read units.
			if tc.status == 200 && !(l["dynamodb_read_units"].(float64) > 0) {
				t.Errorf("dynamodb_read_units %v for a read", l["dynamodb_read_units"])
			}
			if tc.status == 500 {
				if res.Body["message"] != "Server Error." || res.Header.Get("Content-Type") != "application/json" {
					t.Errorf("500 body %s", res.Raw)
				}
				if !strings.Contains(l["error"].(string), "deliberate") {
					t.Errorf("cause not logged: %v", l["error"])
				}
			}
		})
	}
}

// snapshot is every item of the table but the id sequences (a failed create may consume an id).
func snapshot(t *testing.T, cfg store.Config) []map[string]types.AttributeValue {
	t.Helper()
	st, err := store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(st.Client(), &dynamodb.ScanInput{TableName: &cfg.TableName, ConsistentRead: new(bool)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			if sk, ok := it["sk"].(*types.AttributeValueMemberS); ok && sk.Value == "SEQ" {
				continue
			}
			items = append(items, it)
		}
	}
	key := func(it map[string]types.AttributeValue) string {
		pk, _ := it["pk"].(*types.AttributeValueMemberS)
		sk, _ := it["sk"].(*types.AttributeValueMemberS)
		return pk.Value + "|" + sk.Value
	}
	sort.Slice(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
	return items
}

// Every DynamoDB failure a request can meet ends in a 503 with Retry-After, a log line with the
// cause, and no change to the stored data.
func TestDynamoDBFailuresAnswer503AndWriteNothing(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name      string
		rule      faultproxy.Rule
		readsFail bool
	}{
		{"throttling on every call", faultproxy.Rule{Fault: faultproxy.Throttling}, true},
		{"provisioned throughput exceeded on writes", faultproxy.Rule{Op: "TransactWriteItems", Fault: faultproxy.ProvisionedThroughputExceeded}, false},
		{"internal server error on writes", faultproxy.Rule{Op: "TransactWriteItems", Fault: faultproxy.InternalServerError}, false},
		{"transaction with a throttled item", faultproxy.Rule{Op: "TransactWriteItems", Fault: faultproxy.TransactionCanceled("None", "ThrottlingError")}, false},
		{"dropped connections on writes", faultproxy.Rule{Op: "TransactWriteItems", Fault: faultproxy.Drop}, false},
		{"dropped connections on every call", faultproxy.Rule{Fault: faultproxy.Drop}, true},
		{"DynamoDB hangs past the request deadline", faultproxy.Rule{Fault: faultproxy.Delay(time.Minute)}, true},
	}
	type request struct {
		method, path string
		body         any
	}
	writes := []request{
		{"POST", "/locations", map[string]any{"name": "Waterdeep"}},
		{"PATCH", "/locations/1", map[string]any{"name": "Luskan"}},
		{"DELETE", "/locations/1", nil},
		{"POST", "/locations/1/map_points", map[string]any{"name": "Gate", "axis_x": 1, "axis_y": 2, "colour": "blue", "shape": "circle", "size": "standard", "icon": "pin"}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel() // each fault has its own proxy, table and API
			var logs logBuffer
			p := faultproxy.Start(t, dynamotest.Endpoint(t))
			e := apitest.NewWith(t, locations.Register, apitest.WithSDK(p.Attach), withLog(&logs),
				apitest.WithAPI(func(o *httpapi.Options) { o.Timeout = httpapi.DefaultTimeout })) // the production deadline
			// A location with a map point: its failed delete must not cascade half-way.
			if r := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Candlekeep"}); r.Status != 200 {
				t.Fatal(r.Raw)
			}
			if r := e.Do("POST", apitest.Path(e.Campaign, "/locations/1/map_points"), e.Admin, writes[3].body); r.Status != 200 {
				t.Fatal(r.Raw)
			}
			before := snapshot(t, e.Config)
			logs.lines(t)
			p.Inject(f.rule)
			requests := writes
			if f.readsFail {
				requests = append(requests, request{"GET", "/locations", nil}, request{"GET", "/locations/1", nil})
			}
			for _, rq := range requests {
				res := e.Do(rq.method, apitest.Path(e.Campaign, rq.path), e.Admin, rq.body)
				if res.Status != 503 || res.Header.Get("Retry-After") == "" || res.Body["message"] == nil {
					t.Errorf("%s %s: %d %q Retry-After %q, want 503 with Retry-After", rq.method, rq.path, res.Status, res.Raw, res.Header.Get("Retry-After"))
				}
				lines := logs.lines(t)
				if len(lines) != 1 || lines[0]["status"] != float64(503) || lines[0]["dynamodb_error"] == nil {
					t.Errorf("%s %s: log %v, want one 503 line with the DynamoDB error", rq.method, rq.path, lines)
				}
			}
			if p.Faults("") == 0 {
				t.Fatal("no fault was injected")
			}
			p.Reset()
			if after := snapshot(t, e.Config); !reflect.DeepEqual(before, after) {
				t.Errorf("stored data changed: %d items before, %d after", len(before), len(after))
			}
		})
	}
}

// With DynamoDB unreachable (nothing listens), the request fails fast with a 503.
func TestUnreachableDynamoDBAnswers503(t *testing.T) {
	t.Parallel()
	st, err := store.Open(context.Background(), store.Config{TableName: "lorekeep", Endpoint: "http://127.0.0.1:1", Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(httpapi.Options{Identify: func(*http.Request) (int64, error) { return 1, nil }, Campaigns: st,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	locations.Register(api, st)
	srv := httptest.NewServer(api)
	defer srv.Close()
	for _, m := range []string{"GET", "POST"} {
		req, _ := http.NewRequest(m, srv.URL+"/api/1.0/campaigns/1/locations", strings.NewReader(`{"name":"x"}`))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
			t.Errorf("%s: %d Retry-After %q, want 503 with Retry-After", m, res.StatusCode, res.Header.Get("Retry-After"))
		}
	}
}

// A transaction that loses to a concurrent one is contention, not an outage: the write path
// retries it on fresh data, and one that keeps losing is a 409 with Retry-After that changed
// nothing, never a 503.
func TestTransactionConflictsAreRetriedThenAnswer409(t *testing.T) {
	t.Parallel()
	lost := faultproxy.TransactionCanceled("TransactionConflict", "None")
	cases := []struct {
		name       string
		calls      []int // the write calls that lose; nil: every one
		wantStatus int
		wantName   string
	}{
		{"one lost transaction is retried", []int{1}, 200, "Luskan"},
		{"a transaction that keeps losing answers 409", nil, 409, "Candlekeep"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each case has its own proxy, table and API
			p := faultproxy.Start(t, dynamotest.Endpoint(t))
			e := apitest.NewWith(t, locations.Register, apitest.WithSDK(p.Attach))
			if r := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Candlekeep", "is_private": true}); r.Status != 200 {
				t.Fatal(r.Raw)
			}
			p.Reset()
			p.Inject(faultproxy.Rule{Op: "TransactWriteItems", Calls: c.calls, Fault: lost})
			// Making it public changes the record, its entity and its copies: a transaction.
			r := e.Do("PATCH", apitest.Path(e.Campaign, "/locations/1"), e.Admin, map[string]any{"name": "Luskan", "is_private": false})
			if r.Status != c.wantStatus {
				t.Fatalf("PATCH answered %d %s, want %d", r.Status, r.Raw, c.wantStatus)
			}
			if c.wantStatus == 409 && r.Header.Get("Retry-After") == "" {
				t.Errorf("409 without Retry-After")
			}
			p.Reset()
			if got := e.Do("GET", apitest.Path(e.Campaign, "/locations/1"), e.Admin, nil); got.Status != 200 || got.Data()["name"] != c.wantName {
				t.Errorf("stored name: %d %s, want %q", got.Status, got.Raw, c.wantName)
			}
		})
	}
}

// checkEMF checks that a log line is a CloudWatch embedded metric format document: a
// millisecond timestamp, the Lorekeep namespace, the route as the dimension (none for a request
// that matched no route) and every metric a number on the line itself.
func checkEMF(t *testing.T, l map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(l["_aws"])
	var md struct {
		Timestamp         int64
		CloudWatchMetrics []struct {
			Namespace  string
			Dimensions [][]string
			Metrics    []struct{ Name, Unit string }
		}
	}
	if err := json.Unmarshal(raw, &md); err != nil || len(md.CloudWatchMetrics) != 1 {
		t.Fatalf("_aws = %s (%v)", raw, err)
	}
	if d := time.Since(time.UnixMilli(md.Timestamp)); d < 0 || d > time.Minute {
		t.Errorf("_aws.Timestamp %d is not the request's time in milliseconds", md.Timestamp)
	}
	m := md.CloudWatchMetrics[0]
	wantDims := [][]string{{"route"}}
	if l["route"] == "" {
		wantDims = [][]string{{}}
	}
	if m.Namespace != "Lorekeep" || !reflect.DeepEqual(m.Dimensions, wantDims) {
		t.Errorf("namespace %q dimensions %v, want Lorekeep %v", m.Namespace, m.Dimensions, wantDims)
	}
	var names []string
	for _, metric := range m.Metrics {
		names = append(names, metric.Name)
		if _, ok := l[metric.Name].(float64); !ok {
			t.Errorf("metric %s is not a number on the line: %v", metric.Name, l[metric.Name])
		}
	}
	sort.Strings(names)
	want := []string{"duration_ms", "dynamodb_calls", "dynamodb_read_units", "dynamodb_write_units", "requests"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("metrics %v, want %v", names, want)
	}
	if l["requests"] != float64(1) {
		t.Errorf("requests = %v", l["requests"])
	}
}
