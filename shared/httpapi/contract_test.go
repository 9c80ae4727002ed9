package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// The shared contract is checked through a real family (locations): what holds here holds for
// every family, since they all mount on the same API.
func TestHTTPContract(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	e.EnsureTags(e.Campaign, 3)
	base := apitest.Path(e.Campaign, "/locations")
	created := e.Do("POST", base, e.Admin, map[string]any{"name": "Candlekeep"})
	one := base + "/1"
	if created.Status != 200 {
		t.Fatal(created.Raw)
	}
	cases := []struct {
		name        string
		method      string
		path        string
		token       string
		contentType string
		body        string
		status      int
		header      map[string]string
		bodyHas     string
	}{
		{"trailing slash on a list", "GET", base + "/", e.Admin, "", "", 200, nil, `"name":"Candlekeep"`},
		{"trailing slash on a record", "GET", one + "/", e.Admin, "", "", 200, nil, `"id":1`},
		{"unknown route", "GET", apitest.Path(e.Campaign, "/dragons"), e.Admin, "", "", 404, nil, `"message":"Not found."`},
		{"wrong method names the allowed ones", "POST", one, e.Admin, "application/json", "{}", 405, map[string]string{"Allow": "DELETE, GET, HEAD, OPTIONS, PATCH, PUT"}, `"message"`},
		{"wrong method on a list", "DELETE", base, e.Admin, "", "", 405, map[string]string{"Allow": "GET, HEAD, OPTIONS, POST"}, `"message"`},
		{"unauthenticated message", "GET", one, "", "", "", 401, nil, `{"message":"Unauthenticated."}`},
		{"forbidden message", "DELETE", one, e.Viewer, "", "", 403, nil, `{"message":"This action is unauthorized."}`},
		{"CORS on an answer", "GET", one, e.Admin, "", "", 200, map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "X-RateLimit-Remaining, X-RateLimit-Limit, X-Request-Id, Idempotent-Replayed"}, ""},
		{"CORS on an error", "GET", one, "", "", "", 401, map[string]string{"Access-Control-Allow-Origin": "*"}, ""},
		{"rate limit headers", "GET", one, e.Admin, "", "", 200, map[string]string{"X-RateLimit-Limit": "1073741824"}, ""},
		{"JSON with charset", "PATCH", one, e.Admin, "application/json; charset=utf-8", `{"type":"Library"}`, 200, nil, `"type":"Library"`},
		{"JSON without a content type", "PATCH", one, e.Admin, "", `{"type":"Keep"}`, 200, nil, `"type":"Keep"`},
		{"form body", "PATCH", one, e.Admin, "application/x-www-form-urlencoded", url.Values{"type": {"Tower"}, "tags[0]": {"3"}, "tags[1]": {"1"}}.Encode(), 200, nil, `"tags":[3,1]`},
		{"XML body", "PATCH", one, e.Admin, "application/xml", `<type>x</type>`, 415, nil, `"message"`},
		{"multipart form body", "PATCH", one, e.Admin, "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\nArchive\r\n--b--\r\n", 200, nil, `"type":"Archive"`},
		{"multipart without a boundary", "PATCH", one, e.Admin, "multipart/form-data", "x", 422, nil, `"body"`},
		{"per_page is limit's alias", "GET", base + "?per_page=1", e.Admin, "", "", 200, nil, `"per_page":1`},
		{"body on GET is ignored", "GET", one, e.Admin, "text/plain", "garbage", 200, nil, `"id":1`},
		{"body on DELETE is ignored", "DELETE", base + "/999", e.Admin, "text/plain", "garbage", 404, nil, `"message":"Not found."`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, e.Server.URL+c.path, strings.NewReader(c.body))
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			if c.contentType != "" {
				req.Header.Set("Content-Type", c.contentType)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			raw := make([]byte, 1<<16)
			n, _ := res.Body.Read(raw)
			body := string(raw[:n])
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, c.status, body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
			for k, v := range c.header {
				if got := res.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if !strings.Contains(body, c.bodyHas) {
				t.Errorf("body %s lacks %s", body, c.bodyHas)
			}
		})
	}
}

func TestHeadServesGetHeadersWithoutBody(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Head"})
	for _, path := range []string{"/locations", "/locations/1"} {
		get := e.Do("GET", apitest.Path(e.Campaign, path), e.Admin, nil)
		head := e.Do("HEAD", apitest.Path(e.Campaign, path), e.Admin, nil)
		if head.Status != 200 || len(head.Raw) != 0 || head.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("HEAD %s: %d %q %q", path, head.Status, head.Raw, head.Header.Get("Content-Type"))
		}
		// Same length: the list's sync time has fixed width.
		if head.Header.Get("Content-Length") != get.Header.Get("Content-Length") || head.Header.Get("Content-Length") == "" {
			t.Fatalf("HEAD %s Content-Length %q, GET %q", path, head.Header.Get("Content-Length"), get.Header.Get("Content-Length"))
		}
	}
}

func TestPreflightNeedsNoToken(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	req, _ := http.NewRequest("OPTIONS", e.Server.URL+apitest.Path(e.Campaign, "/locations/5"), nil)
	req.Header.Set("Origin", "https://vtt.example")
	req.Header.Set("Access-Control-Request-Method", "PATCH")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	h := res.Header
	if res.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type, Accept, Idempotency-Key" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "PATCH") {
		t.Fatalf("preflight: %d %v", res.StatusCode, h)
	}
}

func TestRateLimitAnswers429WithRetryAfter(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	now := time.Date(2026, 1, 1, 10, 0, 15, 0, time.UTC)
	auth, err := store.Open(t.Context(), e.Config)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.New(httpapi.Options{Identify: httpapi.BearerAuth(auth.Tokens(), time.Now), Campaigns: e.Store, RateLimit: 3, Now: func() time.Time { return now }, Timeout: apitest.TestTimeout})
	locations.Register(api, e.Store)
	path := apitest.Path(e.Campaign, "/locations")
	do := func(token string) *http.Response {
		req, _ := http.NewRequest("GET", path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		w := newRecorder()
		api.ServeHTTP(w, req)
		return w.Result()
	}
	for i := 1; i <= 3; i++ {
		if r := do(e.Admin); r.StatusCode != 200 || r.Header.Get("X-RateLimit-Remaining") != string(rune('0'+3-i)) {
			t.Fatalf("request %d: %d remaining %q", i, r.StatusCode, r.Header.Get("X-RateLimit-Remaining"))
		}
	}
	r := do(e.Admin)
	// The bucket refills one request per 60/3 seconds: the next one is possible in 20.
	if r.StatusCode != 429 || r.Header.Get("Retry-After") != "20" || r.Header.Get("X-RateLimit-Reset") != "1767261635" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("over the limit: %d %v", r.StatusCode, r.Header)
	}
	if r := do(e.Member); r.StatusCode != 200 {
		t.Fatalf("another user is limited separately: %d", r.StatusCode)
	}
	// Unauthenticated requests carry the headers too, and are limited per client address.
	for i := 1; i <= 3; i++ {
		if r := do("not-a-token"); r.StatusCode != 401 || r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != string(rune('0'+3-i)) {
			t.Fatalf("bad token %d: %d %v", i, r.StatusCode, r.Header)
		}
	}
	if r := do("not-a-token"); r.StatusCode != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("bad tokens past the limit: %d", r.StatusCode)
	}
	now = now.Add(time.Minute)
	if r := do(e.Admin); r.StatusCode != 200 {
		t.Fatalf("next minute: %d", r.StatusCode)
	}
}
