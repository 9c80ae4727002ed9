package httpapi_test

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/apidoc"
	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/transfer"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Every known path answers a method it lacks with 405 and the methods it has, the public
// routes and the literal paths beside a wildcard one ("calendars/presets" beside
// "calendars/{id}") included.
func TestKnownPathsAnswerOtherMethodsWith405(t *testing.T) {
	t.Parallel()
	e := apitest.NewWith(t, func(api *httpapi.API, st *store.Store) {
		calendars.Register(api, st)
		calendardays.Register(api, st)
		transfer.Register(api, st)
		apidoc.Register(api)
	})
	cases := []struct {
		method, path string
		token        bool
		allow        string
	}{
		{"DELETE", "/health", false, "GET, HEAD, OPTIONS"},
		{"POST", "/api/1.0/openapi.json", false, "GET, HEAD, OPTIONS"},
		{"PUT", "/", false, "GET, HEAD, OPTIONS"},
		{"GET", apitest.Path(e.Campaign, "/calendars/import"), true, "OPTIONS, POST"},
		{"DELETE", apitest.Path(e.Campaign, "/calendars/presets"), true, "GET, HEAD, OPTIONS"},
		{"POST", apitest.Path(e.Campaign, "/calendars/presets"), true, "GET, HEAD, OPTIONS"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			token := ""
			if c.token {
				token = e.Admin
			}
			r := e.Do(c.method, c.path, token, map[string]any{})
			if r.Status != 405 || r.Header.Get("Allow") != c.allow || r.Body["message"] == nil {
				t.Fatalf("%d Allow %q %s, want 405 Allow %q", r.Status, r.Header.Get("Allow"), r.Raw, c.allow)
			}
		})
	}
	// The routes themselves still answer.
	for _, p := range []string{"/health", "/api/1.0/openapi.json", apitest.Path(e.Campaign, "/calendars/presets")} {
		if r := e.Do("GET", p, e.Admin, nil); r.Status != 200 {
			t.Errorf("GET %s: %d %s", p, r.Status, r.Raw)
		}
	}
}
