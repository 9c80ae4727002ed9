package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/attributes"
	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarweather"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entitynotes"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/maps"
	"github.com/lorekeep/lorekeep/shared/modules"
	"github.com/lorekeep/lorekeep/shared/relations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/tags"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/guardtest"
	"github.com/lorekeep/lorekeep/shared/testing/s3test"
	"github.com/lorekeep/lorekeep/shared/testing/sqstest"
	"github.com/lorekeep/lorekeep/shared/webhooks"
	"github.com/lorekeep/lorekeep/shared/webhooks/hook"
	"github.com/lorekeep/lorekeep/shared/webhooks/stream"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }

// env is an API with the record families and webhooks, a stream consumer reading DynamoDB
// Local's stream of the test's table into a delivery queue of its own on the local SQS, and
// the local delivery consumers reading that queue: the webhooks and delivery functions' work.
type env struct {
	*apitest.Env
	wh *webhooks.Hooks
	d  *webhooks.Deliverer
	q  *webhooks.Queue
}

// testBackoff is the tests' first retry wait (the queue's visibility counts in seconds).
const testBackoff = time.Second

func newEnv(t *testing.T, s webhooks.Settings) *env {
	t.Helper()
	if !s.AllowHTTP {
		s.AllowHTTP, s.AllowLoopback = true, true
	}
	if s.BaseBackoff == 0 {
		s.BaseBackoff = testBackoff
	}
	api := s
	api.AllowLoopback = true         // the routes accept loopback URLs; deliveries follow s
	bucket, base := s3test.Bucket(t) // map layers' pictures are stored
	e := apitest.NewWith(t, func(a *httpapi.API, st *store.Store) {
		locations.Register(a, st)
		tags.Register(a, st)
		calendars.Register(a, st)
		calendardays.Register(a, st)
		calendarweather.Register(a, st)
		entitynotes.Register(a, st)
		relations.Register(a, st)
		attributes.Register(a, st)
		maps.Register(a, st)
		modules.Register(a, st)
		svc := images.New(imagework.New(bucket, st, imagework.Options{AllowHTTP: true, AllowLoopback: true}), st)
		a.SetImages(svc)
		images.Register(a, st, svc)
		webhooks.RegisterWith(a, st, api)
	}, apitest.WithAPI(func(o *httpapi.Options) { o.ImageBaseURL = base }))
	// Test tables have no stream (dynamotest): the creation path turns this one's on.
	if _, err := store.CreateTable(context.Background(), e.Store.Client(), e.Config.TableName); err != nil {
		t.Fatal(err)
	}
	wh := webhooks.NewStorage(e.Store)
	q := sqstest.Queue(t, e.Store)
	d := webhooks.NewDeliverer(wh, q, s)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		err := stream.ReadStream(ctx, e.Store, e.Config.TableName, true, func(ctx context.Context, recs []store.StreamRecord) error {
			_, err := stream.Handle(ctx, wh, d, recs)
			return err
		})
		if err != nil {
			t.Errorf("read stream: %v", err)
		}
	}()
	go func() { defer wg.Done(); stream.Consume(ctx, q, d, stream.Consumers) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return &env{Env: e, wh: wh, d: d, q: q}
}

// delivery is one request a receiver got.
type delivery struct {
	header http.Header
	body   []byte
	event  map[string]any
	at     time.Time
	path   string // of the webhook's URL on the receiver
}

// receiver is a subscriber on loopback; it answers fail[i] (when set) to its i-th request.
// A held receiver (hold) answers nothing until the test releases it: a slow subscriber.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	got     []delivery
	fail    map[int]int
	hold    chan struct{}
	waiting atomic.Int64 // requests held now
}

func newReceiver(t *testing.T, fail map[int]int) *receiver {
	return startReceiver(t, &receiver{fail: fail})
}

// newSlowReceiver holds every request until release is called.
func newSlowReceiver(t *testing.T) (*receiver, func()) {
	r := startReceiver(t, &receiver{hold: make(chan struct{})})
	var once sync.Once
	release := func() { once.Do(func() { close(r.hold) }) }
	t.Cleanup(release) // before the server closes (cleanups run last first)
	return r, release
}

func startReceiver(t *testing.T, r *receiver) *receiver {
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		var ev map[string]any
		_ = json.Unmarshal(b, &ev)
		r.mu.Lock()
		n := len(r.got)
		r.got = append(r.got, delivery{header: req.Header.Clone(), body: b, event: ev, at: time.Now(), path: req.URL.Path})
		status := r.fail[n]
		r.mu.Unlock()
		if r.hold != nil {
			r.waiting.Add(1)
			select {
			case <-r.hold:
			case <-req.Context().Done():
			}
			r.waiting.Add(-1)
		}
		if status != 0 {
			w.WriteHeader(status)
			return
		}
		w.WriteHeader(204)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// wait waits (at most 60 s: a deadline for an asynchronous result, not a timing assertion)
// until the receiver has n deliveries.
func (r *receiver) wait(t *testing.T, n int) []delivery {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if got := r.deliveries(); len(got) >= n {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := r.deliveries()
	t.Fatalf("receiver got %d deliveries, want %d", len(got), n)
	return got
}

// verify is the README's receiver check: HMAC-SHA256 of timestamp "." body with the secret.
func verify(secret string, h http.Header, body []byte) bool {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(h.Get("X-Lorekeep-Timestamp") + "." + string(body)))
	want := "v1=" + hex.EncodeToString(m.Sum(nil))
	return hmac.Equal([]byte(want), []byte(h.Get("X-Lorekeep-Signature")))
}

func (e *env) createHook(t *testing.T, body map[string]any) (int64, string) {
	t.Helper()
	r := e.Do("POST", apitest.Path(e.Campaign, "/webhooks"), e.Admin, body)
	if r.Status != 200 {
		t.Fatalf("create webhook: %d %s", r.Status, r.Raw)
	}
	secret, _ := r.Data()["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("create webhook: secret %q", secret)
	}
	return int64(r.Data()["id"].(float64)), secret
}

func (e *env) do(t *testing.T, method, path string, body map[string]any) map[string]any {
	t.Helper()
	r := e.Do(method, apitest.Path(e.Campaign, path), e.Admin, body)
	if r.Status != 200 {
		t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Raw)
	}
	return r.Data()
}

func events(ds []delivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.header.Get("X-Lorekeep-Event")
	}
	return out
}

func TestWebhookRoutesAreForAdminsOnly(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	rc := newReceiver(t, nil)
	id, _ := e.createHook(t, map[string]any{"url": rc.URL})
	item := fmt.Sprintf("/webhooks/%d", id)
	for _, c := range []struct {
		name, token string
		cid         int64
		want        int
	}{
		{"member", e.Member, e.Campaign, 403},
		{"viewer", e.Viewer, e.Campaign, 403},
		{"outsider of a private campaign", e.Outsider, e.Campaign, 404},
		{"reader of a public campaign", e.Outsider, e.PublicCampaign, 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, req := range []struct{ method, path string }{
				{"GET", "/webhooks"}, {"POST", "/webhooks"}, {"GET", item}, {"PATCH", item}, {"DELETE", item},
				{"POST", item + "/test"}, {"GET", item + "/deliveries"},
			} {
				r := e.Do(req.method, apitest.Path(c.cid, req.path), c.token, map[string]any{"url": rc.URL})
				if r.Status != c.want {
					t.Errorf("%s %s: %d %s, want %d", req.method, req.path, r.Status, r.Raw, c.want)
				}
			}
		})
	}
	// Nothing changed, and the secret is never shown again.
	got := e.do(t, "GET", item, nil)
	if got["url"] != rc.URL || got["is_active"] != true {
		t.Errorf("webhook = %v", got)
	}
	if _, ok := got["secret"]; ok {
		t.Errorf("show answers the secret: %v", got)
	}
	r := e.Do("GET", apitest.Path(e.Campaign, "/webhooks"), e.Admin, nil)
	if r.Status != 200 || len(r.List()) != 1 {
		t.Fatalf("list: %d %s", r.Status, r.Raw)
	}
	if _, ok := r.List()[0].(map[string]any)["secret"]; ok {
		t.Errorf("list answers the secret")
	}
	upd := e.do(t, "PATCH", item, map[string]any{"events": []any{"location.created"}, "format": "discord", "tags": []any{3}})
	if upd["format"] != "discord" || len(upd["events"].([]any)) != 1 || upd["url"] != rc.URL {
		t.Errorf("update = %v", upd)
	}
	if r := e.Do("DELETE", apitest.Path(e.Campaign, item), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, item), e.Admin, nil); r.Status != 404 {
		t.Errorf("deleted webhook: %d", r.Status)
	}
}

func TestWebhookValidation(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no url", map[string]any{"format": "kanka"}, "url"},
		{"not a url", map[string]any{"url": "::nope"}, "url"},
		{"ftp", map[string]any{"url": "ftp://example.org/x"}, "url"},
		{"credentials", map[string]any{"url": "https://u:p@example.org/x"}, "url"},
		{"private address", map[string]any{"url": "https://10.1.2.3/x"}, "url"},
		{"metadata address", map[string]any{"url": "http://169.254.169.254/latest/meta-data"}, "url"},
		{"mapped metadata", map[string]any{"url": "http://[::ffff:169.254.169.254]/"}, "url"},
		{"unknown event", map[string]any{"url": "https://example.org/x", "events": []any{"location.exploded"}}, "events.0"},
		{"unknown format", map[string]any{"url": "https://example.org/x", "format": "xml"}, "format"},
		{"bad tag", map[string]any{"url": "https://example.org/x", "tags": []any{"x"}}, "tags.0"},
		{"too many events", map[string]any{"url": "https://example.org/x", "events": make([]any, 21)}, "events"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", apitest.Path(e.Campaign, "/webhooks"), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("%d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/webhooks"), e.Admin, nil); len(r.List()) != 0 {
		t.Errorf("a refused create stored a webhook: %s", r.Raw)
	}
}

// Every hostile URL host (guardtest: non-public addresses in every spelling) is a 422 naming
// url, on create and on update, with loopback allowed or not, and nothing is stored.
func TestHostileURLsAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webhooks.Settings{})
	prod := apitest.New(t, func(a *httpapi.API, st *store.Store) {
		webhooks.RegisterWith(a, st, webhooks.Settings{})
	})
	kept, _ := e.createHook(t, map[string]any{"url": "https://example.org/hook"})
	item := apitest.Path(e.Campaign, fmt.Sprintf("/webhooks/%d", kept))
	refused := func(env *apitest.Env, method, path, u string) {
		t.Helper()
		r := env.Do(method, path, env.Admin, map[string]any{"url": u})
		msg, _ := r.Errors()["url"].([]any)
		if r.Status != 422 || len(msg) != 1 || !strings.HasPrefix(fmt.Sprint(msg[0]), "The url must ") {
			t.Errorf("%s %s: %d %s, want 422 naming url", method, u, r.Status, r.Raw)
		}
	}
	for _, h := range guardtest.Hostile {
		u := "http://" + h.Host + "/latest/meta-data/"
		refused(e.Env, "POST", apitest.Path(e.Campaign, "/webhooks"), u)
		refused(e.Env, "PATCH", item, u)
		refused(prod, "POST", apitest.Path(prod.Campaign, "/webhooks"), strings.Replace(u, "http:", "https:", 1))
	}
	for _, h := range guardtest.Loopback {
		refused(prod, "POST", apitest.Path(prod.Campaign, "/webhooks"), "https://"+h.Host+"/hook")
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/webhooks"), e.Admin, nil); len(r.List()) != 1 || r.List()[0].(map[string]any)["url"] != "https://example.org/hook" {
		t.Errorf("after the refused writes: %s", r.Raw)
	}
	if r := prod.Do("GET", apitest.Path(prod.Campaign, "/webhooks"), prod.Admin, nil); r.Status != 200 || len(r.List()) != 0 {
		t.Errorf("a refused create stored a webhook: %d %s", r.Status, r.Raw)
	}
}

// Production refuses http, and loopback when not allowed.
func TestProductionURLRules(t *testing.T) {
	e := apitest.New(t, func(a *httpapi.API, st *store.Store) {
		webhooks.RegisterWith(a, st, webhooks.Settings{})
	})
	for _, u := range []string{"http://example.org/hook", "https://127.0.0.1/x", "https://localhost/x", "https://[::1]/x"} {
		r := e.Do("POST", apitest.Path(e.Campaign, "/webhooks"), e.Admin, map[string]any{"url": u})
		if r.Status != 422 || r.Errors()["url"] == nil {
			t.Errorf("%s: %d %s, want 422 on url", u, r.Status, r.Raw)
		}
	}
	if r := e.Do("POST", apitest.Path(e.Campaign, "/webhooks"), e.Admin, map[string]any{"url": "https://example.org/hook"}); r.Status != 200 {
		t.Errorf("https: %d %s", r.Status, r.Raw)
	}
}

// Changes made through the API reach the receiver signed, in order, one id per event; a deleted
// record's event carries only its kind, id and name.
func TestDeliveriesAreSignedAndInOrder(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	rc := newReceiver(t, nil)
	wid, secret := e.createHook(t, map[string]any{"url": rc.URL, "events": []any{"location.created", "location.updated", "location.deleted"}})
	e.EnsureTags(e.Campaign, 4)
	loc := e.do(t, "POST", "/locations", map[string]any{"name": "Saltmarsh", "type": "Town", "tags": []any{4}})
	lid := int64(loc["id"].(float64))
	for i := 1; i <= 3; i++ {
		e.do(t, "PATCH", fmt.Sprintf("/locations/%d", lid), map[string]any{"name": fmt.Sprintf("Saltmarsh %d", i)})
	}
	e.do(t, "DELETE", fmt.Sprintf("/locations/%d", lid), nil)
	got := rc.wait(t, 5)
	want := []string{"location.created", "location.updated", "location.updated", "location.updated", "location.deleted"}
	if fmt.Sprint(events(got)) != fmt.Sprint(want) {
		t.Fatalf("events = %v, want %v", events(got), want)
	}
	ids := map[string]bool{}
	for i, d := range got {
		if !verify(secret, d.header, d.body) {
			t.Errorf("delivery %d: bad signature %q", i, d.header.Get("X-Lorekeep-Signature"))
		}
		if verify("whsec_other", d.header, d.body) {
			t.Errorf("delivery %d verifies with another secret", i)
		}
		id := d.header.Get("X-Lorekeep-Event-Id")
		if id == "" || ids[id] || d.event["id"] != id {
			t.Errorf("delivery %d: event id %q (body %v) missing or repeated", i, id, d.event["id"])
		}
		ids[id] = true
	}
	data := got[3].event["data"].(map[string]any)
	if data["name"] != "Saltmarsh 3" || data["kind"] != "location" || data["type"] != "Town" || data["is_private"] != false ||
		fmt.Sprint(data["tags"]) != "[4]" || data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d/locations/%d", e.Campaign, lid) {
		t.Errorf("updated event data = %v", data)
	}
	del := got[4].event["data"].(map[string]any)
	if len(del) != 3 || del["kind"] != "location" || del["name"] != "Saltmarsh 3" || del["id"] != float64(lid) {
		t.Errorf("deleted event data = %v, want kind, id and name only", del)
	}
	// The deliveries list shows the attempts, newest first.
	r := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/webhooks/%d/deliveries", wid)), e.Admin, nil)
	if r.Status != 200 || len(r.List()) != 5 {
		t.Fatalf("deliveries: %d %s", r.Status, r.Raw)
	}
	first := r.List()[0].(map[string]any)
	if first["event"] != "location.deleted" || first["status"] != float64(204) || first["ok"] != true || first["error"] != nil {
		t.Errorf("newest attempt = %v", first)
	}

	// The audit knows a webhook's own partition (its queue state and attempt log): no orphan
	// while the webhook lives, one when it does not.
	ctx := context.Background()
	if problems, err := ops.Audit(ctx, e.Store, e.Campaign); err != nil || len(problems) > 0 {
		t.Fatalf("audit of a campaign whose webhook delivered: %v %v", err, problems)
	}
	orphan := store.PartitionOf(e.Campaign, webhooks.Kind, wid+1000).Item("STATE")
	if err := e.Store.Table().Put(map[string]any{"pk": orphan.PK, "sk": orphan.SK, "queued": 0}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	problems, err := ops.Audit(ctx, e.Store, e.Campaign)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], fmt.Sprintf("webhook %d does not exist", wid+1000)) {
		t.Fatalf("audit of a webhook partition without its webhook: %v %v", err, problems)
	}
}

// A failing receiver gets the same event again after the backoff, and the record's next event
// only once the first one went through.
func TestRetriesKeepOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webhooks.Settings{})
	rc := newReceiver(t, map[int]int{0: 500, 1: 503})
	wid, _ := e.createHook(t, map[string]any{"url": rc.URL})
	loc := e.do(t, "POST", "/locations", map[string]any{"name": "Hommlet"})
	lid := int64(loc["id"].(float64))
	rc.wait(t, 1)
	e.do(t, "PATCH", fmt.Sprintf("/locations/%d", lid), map[string]any{"name": "Nulb"})
	got := rc.wait(t, 4)
	want := []string{"location.created", "location.created", "location.created", "location.updated"}
	if fmt.Sprint(events(got)) != fmt.Sprint(want) {
		t.Fatalf("events = %v, want %v (the update waits behind the failing create)", events(got), want)
	}
	for i, d := range got[:3] {
		if d.header.Get("X-Lorekeep-Event-Id") != got[0].header.Get("X-Lorekeep-Event-Id") || d.header.Get("X-Lorekeep-Delivery-Attempt") != fmt.Sprint(i+1) {
			t.Errorf("attempt %d: id %s attempt %s", i, d.header.Get("X-Lorekeep-Event-Id"), d.header.Get("X-Lorekeep-Delivery-Attempt"))
		}
	}
	// The waits between attempts are the backoff's (1 s, then 2 s): the queue hid the event.
	for i, min := range []time.Duration{testBackoff, 2 * testBackoff} {
		if gap := got[i+1].at.Sub(got[i].at); gap < min-100*time.Millisecond {
			t.Errorf("attempt %d came %v after attempt %d, want at least the backoff %v", i+2, gap, i+1, min)
		}
	}
	r := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/webhooks/%d/deliveries", wid)), e.Admin, nil)
	if len(r.List()) != 4 {
		t.Fatalf("deliveries: %s", r.Raw)
	}
	failed := r.List()[3].(map[string]any)
	if failed["status"] != float64(500) || failed["ok"] != false || failed["error"] != "HTTP 500" {
		t.Errorf("first attempt = %v", failed)
	}
	waitState(t, e, wid, "reset after the success", func(st hook.QueueState) bool { return st == hook.QueueState{} })
}

// waitState waits until the webhook's delivery state satisfies ok.
func waitState(t *testing.T, e *env, wid int64, what string, ok func(hook.QueueState) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var st hook.QueueState
	for time.Now().Before(deadline) {
		var err error
		if _, st, err = e.wh.Delivery(context.Background(), e.Campaign, wid); err != nil {
			t.Fatal(err)
		}
		if ok(st) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("webhook %d: delivery state %+v, never %s", wid, st, what)
}

// An event that fails every attempt is given up on after MaxAttempts: it goes to the
// dead-letter queue, and the webhook's next event is delivered.
func TestGivenUpEventsGoToTheDeadLetterQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webhooks.Settings{MaxAttempts: 3})
	rc := newReceiver(t, map[int]int{0: 500, 1: 502, 2: 504})
	wid, _ := e.createHook(t, map[string]any{"url": rc.URL})
	e.do(t, "POST", "/locations", map[string]any{"name": "Given up"})
	e.do(t, "POST", "/locations", map[string]any{"name": "Delivered"})
	got := rc.wait(t, 4)
	if names := []any{got[0].event["data"].(map[string]any)["name"], got[2].event["data"].(map[string]any)["name"], got[3].event["data"].(map[string]any)["name"]}; fmt.Sprint(names) != "[Given up Given up Delivered]" {
		t.Fatalf("deliveries = %v, want the first location 3 times, then the second", names)
	}
	var dead []hook.Queued
	for deadline := time.Now().Add(60 * time.Second); len(dead) == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		if dead, err = e.q.DeadLetters(context.Background(), 10); err != nil {
			t.Fatal(err)
		}
	}
	if len(dead) != 1 || dead[0].EventID != got[0].header.Get("X-Lorekeep-Event-Id") || dead[0].WebhookID != wid || dead[0].Event != "location.created" {
		t.Fatalf("dead letters = %+v, want the given-up event", dead)
	}
	var ev map[string]any
	if err := json.Unmarshal(dead[0].Payload, &ev); err != nil || ev["data"].(map[string]any)["name"] != "Given up" {
		t.Errorf("dead letter payload = %s (%v)", dead[0].Payload, err)
	}
	// 3 failures, then a success: the webhook stays on, its state is clear.
	waitState(t, e, wid, "reset after the success", func(st hook.QueueState) bool { return st == hook.QueueState{} })
	if w := e.do(t, "GET", fmt.Sprintf("/webhooks/%d", wid), nil); w["is_active"] != true {
		t.Errorf("webhook = %v, want it on", w)
	}
}

func TestWebhookDisabledAfterConsecutiveFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webhooks.Settings{DisableAfter: 3})
	rc := newReceiver(t, map[int]int{0: 500, 1: 500, 2: 500, 3: 500})
	wid, _ := e.createHook(t, map[string]any{"url": rc.URL})
	e.do(t, "POST", "/locations", map[string]any{"name": "Tenh"})
	e.do(t, "POST", "/locations", map[string]any{"name": "Dropped with the queue"})
	rc.wait(t, 3)
	var w map[string]any
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if w = e.do(t, "GET", fmt.Sprintf("/webhooks/%d", wid), nil); w["is_active"] == false {
			break
		}
	}
	if w["is_active"] != false || !strings.Contains(fmt.Sprint(w["disabled_reason"]), "3 consecutive") {
		t.Fatalf("webhook after 3 failures = %v", w)
	}
	// A change made while it is off is not queued for it: once another webhook heard of it, the
	// stream has handled it for both.
	other := newReceiver(t, nil)
	e.createHook(t, map[string]any{"url": other.URL})
	e.do(t, "POST", "/locations", map[string]any{"name": "Not sent"})
	awaitTrue(t, "the other webhook hears of the change", func() bool {
		for _, d := range other.deliveries() {
			if d.event["data"].(map[string]any)["name"] == "Not sent" {
				return true
			}
		}
		return false
	})
	// Switching it on again clears the reason; what comes next is delivered, not what was
	// made while it was off.
	w = e.do(t, "PATCH", fmt.Sprintf("/webhooks/%d", wid), map[string]any{"is_active": true})
	if w["is_active"] != true || w["disabled_reason"] != nil {
		t.Errorf("re-enabled webhook = %v", w)
	}
	e.do(t, "POST", "/locations", map[string]any{"name": "After"})
	got := rc.wait(t, 4)
	if n := got[3].event["data"].(map[string]any)["name"]; len(got) != 4 || n != "After" {
		t.Errorf("deliveries = %v (4th %v), want 3 failed attempts then the location made after re-enabling", events(got), n)
	}
}

// Private records go only to a webhook that asks for them; tags filter; event lists filter;
// the Kanka and Discord formats.
func TestVisibilityFiltersAndFormats(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	public, private, tagged, dates, discord := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
	e.createHook(t, map[string]any{"url": public.URL, "events": []any{"location.created", "entity_note.created"}})
	e.createHook(t, map[string]any{"url": private.URL, "include_private": true, "events": []any{"location.created", "entity_note.created"}})
	e.createHook(t, map[string]any{"url": tagged.URL, "tags": []any{7}, "format": "kanka", "include_private": true, "events": []any{"location.created"}})
	e.createHook(t, map[string]any{"url": dates.URL, "events": []any{"calendar.date_changed"}})
	e.createHook(t, map[string]any{"url": discord.URL, "format": "discord", "events": []any{"location.created"}})

	e.EnsureTags(e.Campaign, 7)
	hidden := e.do(t, "POST", "/locations", map[string]any{"name": "Secret base", "is_private": true, "tags": []any{7}})
	tag := &domain.Tag{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID, UpdatedBy: e.AdminID}, Owner: domain.Owner{Name: "Secret tag", IsPrivate: true}}
	if err := tagstore.New(e.Store).CreateTag(context.Background(), tag); err != nil {
		t.Fatal(err)
	}
	secretTag := tag.ID
	open := e.do(t, "POST", "/locations", map[string]any{"name": "Market @everyone", "tags": []any{secretTag}})
	openEntity := int64(open["entity_id"].(float64))
	e.do(t, "POST", fmt.Sprintf("/entities/%d/entity_notes", openEntity), map[string]any{"name": "Admins only", "visibility": "admin"})
	e.do(t, "POST", fmt.Sprintf("/entities/%d/entity_notes", openEntity), map[string]any{"name": "Everyone", "visibility": "all"})
	cal := e.do(t, "POST", "/calendars", map[string]any{"name": "Reckoning", "month_name": []any{"A", "B"}, "month_length": []any{30, 30},
		"weekday": []any{"X", "Y"}, "current_year": 1, "current_month": 1, "current_day": 1})
	e.do(t, "PATCH", fmt.Sprintf("/calendars/%d", int64(cal["id"].(float64))), map[string]any{"name": "Renamed"})
	e.do(t, "POST", fmt.Sprintf("/calendars/%d/advance", int64(cal["id"].(float64))), map[string]any{"days": 3})

	names := func(ds []delivery) []string {
		var out []string
		for _, d := range ds {
			data, _ := d.event["data"].(map[string]any)
			out = append(out, fmt.Sprint(data["name"]))
		}
		return out
	}
	pub := public.wait(t, 2)
	if got := names(pub); fmt.Sprint(got) != "[Market @everyone Everyone]" {
		t.Errorf("public webhook got %v", got)
	}
	priv := private.wait(t, 4)
	if got := names(priv); fmt.Sprint(got) != "[Secret base Market @everyone Admins only Everyone]" {
		t.Errorf("include_private webhook got %v", got)
	}
	// A private tag's id is the admins': sent with include_private only (DESIGN 11).
	if data := pub[0].event["data"].(map[string]any); data["tags"] != nil {
		t.Errorf("public webhook got the private tag: %v", data)
	}
	if data := priv[1].event["data"].(map[string]any); fmt.Sprint(data["tags"]) != fmt.Sprint([]any{float64(secretTag)}) {
		t.Errorf("include_private webhook's tags: %v", data)
	}
	k := tagged.wait(t, 1)[0].event
	ent, _ := k["entity"].(map[string]any)
	if k["action"] != "created" || ent["name"] != "Secret base" || ent["type"] != "location" || ent["id"] != hidden["entity_id"] || ent["child_id"] != hidden["id"] {
		t.Errorf("kanka payload = %v", k)
	}
	d := dates.wait(t, 1)
	if d[0].header.Get("X-Lorekeep-Event") != "calendar.date_changed" {
		t.Fatalf("date webhook got %v", events(d))
	}
	if data := d[0].event["data"].(map[string]any); data["date"] != "1-1-4" || data["previous_date"] != "1-1-1" {
		t.Errorf("date changed data = %v", data)
	}
	m := discord.wait(t, 1)[0].event
	if m["content"] != "The location **Market @everyone** was created." || fmt.Sprint(m["allowed_mentions"]) != "map[parse:[]]" {
		t.Errorf("discord message = %v", m)
	}
	// Nothing else arrives: every other change was filtered out. (The stream is read in order:
	// an event sent after the last one awaited would be there by now.)
	for name, r := range map[string]*receiver{"public": public, "private": private, "tagged": tagged, "dates": dates, "discord": discord} {
		want := map[string]int{"public": 2, "private": 4, "tagged": 1, "dates": 1, "discord": 1}[name]
		if n := len(r.deliveries()); n != want {
			t.Errorf("%s: %d deliveries, want %d: %v", name, n, want, names(r.deliveries()))
		}
	}
}

// The ping goes out at once, signed, and shows in the deliveries.
func TestPing(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	rc := newReceiver(t, nil)
	wid, secret := e.createHook(t, map[string]any{"url": rc.URL})
	a := e.do(t, "POST", fmt.Sprintf("/webhooks/%d/test", wid), nil)
	if a["status"] != float64(204) || a["ok"] != true || a["event"] != "webhook.test" {
		t.Fatalf("ping = %v", a)
	}
	got := rc.deliveries()
	if len(got) != 1 || !verify(secret, got[0].header, got[0].body) || got[0].event["event"] != "webhook.test" {
		t.Fatalf("receiver got %+v", got)
	}
}

// No delivery reaches a loopback, private or metadata address unless loopback is allowed:
// a name resolving to loopback is refused at connect time, and redirects are not followed.
func TestNoDeliveryToForbiddenAddresses(t *testing.T) {
	e := newEnv(t, webhooks.Settings{AllowHTTP: true}) // deliveries may not reach loopback
	rc := newReceiver(t, nil)
	port := rc.Listener.Addr().(interface{ String() string }).String()
	_, p, _ := strings.Cut(port, ":")
	byName, _ := e.createHook(t, map[string]any{"url": "http://localhost:" + p + "/hook"})
	byIP, _ := e.createHook(t, map[string]any{"url": rc.URL})
	e.do(t, "POST", "/locations", map[string]any{"name": "Never sent"})
	for _, wid := range []int64{byName, byIP} {
		a := waitAttempt(t, e, wid)
		if a["ok"] != false || a["status"] != nil || !strings.Contains(fmt.Sprint(a["error"]), "not a public internet address") {
			t.Errorf("webhook %d: attempt = %v", wid, a)
		}
	}
	if n := len(rc.deliveries()); n != 0 {
		t.Errorf("the receiver on loopback got %d deliveries", n)
	}
}

// waitAttempt waits for the webhook's first delivery attempt and answers it.
func waitAttempt(t *testing.T, e *env, wid int64) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		r := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/webhooks/%d/deliveries", wid)), e.Admin, nil)
		if len(r.List()) > 0 {
			return r.List()[0].(map[string]any)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("webhook %d: no attempt", wid)
	return nil
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	target := newReceiver(t, nil)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirect.Close)
	wid, _ := e.createHook(t, map[string]any{"url": redirect.URL})
	a := e.do(t, "POST", fmt.Sprintf("/webhooks/%d/test", wid), nil)
	if a["ok"] != false || a["status"] != float64(307) {
		t.Errorf("ping through a redirect = %v", a)
	}
	if n := len(target.deliveries()); n != 0 {
		t.Errorf("the redirect's target got %d requests", n)
	}
}

// A table made before webhooks (no stream) gets its stream from the creation path
// (`lorekeep init`, `lorekeep demo`), so that `lorekeep serve` can read it.
func TestCreateTableEnablesTheStreamOnAnExistingTable(t *testing.T) {
	ctx := context.Background()
	cfg := store.Config{TableName: "t_nostream_" + strconv.FormatInt(time.Now().UnixNano(), 36), Endpoint: dynamotest.Endpoint(t), Region: "us-east-1"}
	st, err := store.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := st.Client()
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(cfg.TableName),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if created, err := store.CreateTable(ctx, c, cfg.TableName); err != nil || created {
		t.Fatalf("CreateTable on an existing table: created %v, %v", created, err)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(cfg.TableName)})
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Table.StreamSpecification; s == nil || !aws.ToBool(s.StreamEnabled) || s.StreamViewType != types.StreamViewTypeNewAndOldImages || d.Table.LatestStreamArn == nil {
		t.Errorf("stream after CreateTable = %+v", s)
	}
}

// A declared module's records are announced like every owner's: created, updated, deleted, with
// their path under the module's collection, a private one only to include_private webhooks,
// and a subscription by the module's event names.
func TestModuleRecordsAreAnnounced(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	all, only := newReceiver(t, nil), newReceiver(t, nil)
	e.createHook(t, map[string]any{"url": all.URL})
	e.createHook(t, map[string]any{"url": only.URL, "events": []any{"character.created"}, "format": "kanka"})
	c := e.do(t, "POST", "/characters", map[string]any{"name": "Ann", "type": "NPC"})
	cid := int64(c["id"].(float64))
	e.do(t, "POST", "/characters", map[string]any{"name": "Hidden", "is_private": true})
	e.do(t, "PATCH", fmt.Sprintf("/characters/%d", cid), map[string]any{"title": "Captain"})
	e.do(t, "DELETE", fmt.Sprintf("/characters/%d", cid), nil)
	got := all.wait(t, 3)
	if want := []string{"character.created", "character.updated", "character.deleted"}; fmt.Sprint(events(got)) != fmt.Sprint(want) {
		t.Fatalf("events = %v, want %v", events(got), want)
	}
	data := got[0].event["data"].(map[string]any)
	if data["kind"] != "character" || data["name"] != "Ann" || data["type"] != "NPC" ||
		data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d/characters/%d", e.Campaign, cid) {
		t.Errorf("created event data = %v", data)
	}
	k := only.wait(t, 1)
	if ent := k[0].event["entity"].(map[string]any); k[0].event["action"] != "created" || ent["type"] != "character" || ent["name"] != "Ann" || ent["id"] != c["entity_id"] {
		t.Errorf("kanka format: %v", k[0].event)
	}
	if r := e.Do("POST", apitest.Path(e.Campaign, "/webhooks"), e.Admin, map[string]any{"url": all.URL, "events": []any{"character.exploded"}}); r.Status != 422 || r.Errors()["events.0"] == nil {
		t.Errorf("an unknown module event: %d %s", r.Status, r.Raw)
	}
}
