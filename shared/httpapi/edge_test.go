package httpapi_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Paths with empty, "." or ".." segments answer a JSON 404, never ServeMux's HTML redirect.
func TestUncleanPathsAnswerJSONNotRedirects(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	if r := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Keep"}); r.Status != 200 {
		t.Fatal(r.Raw)
	}
	base := "/api/1.0/campaigns/" + itoa(e.Campaign)
	for _, c := range []struct{ method, path string }{
		{"GET", base + "//locations"},
		{"GET", base + "/locations//1"},
		{"GET", base + "/./locations/1"},
		{"GET", base + "/locations/./1"},
		{"GET", base + "/x/../locations/1"},
		{"GET", base + "/locations/1/.."},
		{"GET", base + "/locations/%2e%2e/locations/1"},
		{"POST", "//api/1.0/campaigns/" + itoa(e.Campaign) + "/locations"},
		{"PATCH", base + "/locations/../locations/1"},
		{"OPTIONS", base + "/locations/../locations/1"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, e.Server.URL+c.path, strings.NewReader(`{"name":"Replayed"}`))
			req.Header.Set("Authorization", "Bearer "+e.Admin)
			req.Header.Set("Content-Type", "application/json")
			res, err := noRedirects.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 404 || res.Header.Get("Location") != "" || res.Header.Get("Content-Type") != "application/json" || string(body) != `{"message":"Not found."}` {
				t.Fatalf("got %d Location %q %q: %s", res.StatusCode, res.Header.Get("Location"), res.Header.Get("Content-Type"), body)
			}
			if res.Header.Get("X-RateLimit-Limit") == "" {
				t.Fatal("no rate-limit headers")
			}
		})
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/locations/1"), e.Admin, nil); r.Data()["name"] != "Keep" {
		t.Fatalf("a write body reached a record: %s", r.Raw)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Links follow X-Forwarded-Host and -Proto only when the API is told to trust them.
func TestForwardedHeadersCountOnlyWhenTrusted(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Keep"})
	auth, err := store.Open(t.Context(), e.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		trust bool
		want  string
	}{
		{"untrusted by default", false, "http://lorekeep.test/api/1.0/campaigns/"},
		{"trusted", true, "https://api.example.org/api/1.0/campaigns/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			api := httpapi.New(httpapi.Options{Identify: httpapi.BearerAuth(auth.Tokens(), time.Now), Campaigns: e.Store, TrustForwardedHeaders: c.trust})
			locations.Register(api, e.Store)
			req, _ := http.NewRequest("GET", "http://lorekeep.test"+apitest.Path(e.Campaign, "/locations"), nil)
			req.Header.Set("Authorization", "Bearer "+e.Admin)
			req.Header.Set("X-Forwarded-Proto", "https")
			req.Header.Set("X-Forwarded-Host", "api.example.org")
			w := newRecorder()
			api.ServeHTTP(w, req)
			if w.Code != 200 || !strings.Contains(w.Body.String(), `"first":"`+c.want) || !strings.Contains(w.Body.String(), `"path":"`+c.want) {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
		})
	}
	if o := httpapi.OptionsFromEnv(func(k string) string { return map[string]string{"TRUST_FORWARDED_HEADERS": "true"}[k] }, nil, nil); !o.TrustForwardedHeaders {
		t.Fatal("TRUST_FORWARDED_HEADERS=true is not read")
	}
	if o := httpapi.OptionsFromEnv(func(string) string { return "" }, nil, nil); o.TrustForwardedHeaders {
		t.Fatal("forwarded headers trusted by default")
	}
}

// The limit is a token bucket, not a count per calendar minute: a burst at the end of one
// minute and another at the start of the next do not both pass; the bucket refills one request
// per 60/limit seconds.
func TestRateLimitBucketRefillsAcrossMinutes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	now := time.Date(2026, 1, 1, 10, 0, 58, 0, time.UTC)
	auth, err := store.Open(t.Context(), e.Config)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(httpapi.Options{Identify: httpapi.BearerAuth(auth.Tokens(), time.Now), Campaigns: e.Store, RateLimit: 3, Now: func() time.Time { return now }})
	locations.Register(api, e.Store)
	do := func(method string, body io.Reader, size int64) *http.Response {
		req, _ := http.NewRequest(method, apitest.Path(e.Campaign, "/locations"), body)
		req.Header.Set("Authorization", "Bearer "+e.Admin)
		req.ContentLength = size
		w := newRecorder()
		api.ServeHTTP(w, req)
		return w.Result()
	}
	for i := 0; i < 3; i++ {
		if r := do("GET", nil, 0); r.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, r.StatusCode)
		}
	}
	now = now.Add(4 * time.Second) // 10:01:02, a new calendar minute; no token back yet
	if r := do("GET", nil, 0); r.StatusCode != 429 || r.Header.Get("Retry-After") != "16" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("across the minute boundary: %d %v", r.StatusCode, r.Header)
	}
	now = now.Add(16 * time.Second) // one token back: one request, none left
	if r := do("GET", nil, 0); r.StatusCode != 200 || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("once a token came back: %d %v", r.StatusCode, r.Header)
	}
	now = now.Add(time.Minute) // full again
	if r := do("GET", nil, 0); r.StatusCode != 200 || r.Header.Get("X-RateLimit-Remaining") != "2" {
		t.Fatalf("once the bucket refilled: %d %v", r.StatusCode, r.Header)
	}
	// Every answer carries the headers: a preflight and a 413 too.
	now = now.Add(time.Hour)
	if r := do("POST", strings.NewReader("{}"), httpapi.MaxBodyBytes+1); r.StatusCode != 413 || r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != "2" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("413: %d %v", r.StatusCode, r.Header)
	}
	if r := do("OPTIONS", nil, 0); r.StatusCode != 204 || r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") == "" {
		t.Fatalf("preflight: %d %v", r.StatusCode, r.Header)
	}
}

// A handler that panics still answers JSON.
func TestPanicAnswersJSON(t *testing.T) {
	t.Parallel()
	e := apitest.NewWith(t, func(api *httpapi.API, _ *store.Store) {
		api.Handle("GET", "/boom", func(*httpapi.Request) (httpapi.Reply, error) { panic("bug") })
	}, apitest.WithoutOpenAPI()) // a route of its own, not in the document
	r := e.Do("GET", apitest.Path(e.Campaign, "/boom"), e.Admin, nil)
	if r.Status != 500 || r.Header.Get("Content-Type") != "application/json" || r.Body["message"] != "Server Error." {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
}
