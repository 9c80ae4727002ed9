package apitest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Errorf(f string, args ...any) { r.errs = append(r.errs, fmt.Sprintf(f, args...)) }
func (r *recorder) Fatalf(f string, args ...any) { r.Errorf(f, args...) }

func TestCheckOpenAPIFailsLoudly(t *testing.T) {
	t.Parallel()
	json := http.Header{"Content-Type": {"application/json"}}
	cases := []struct {
		name, method, path string
		status             int
		body               string
		fails              string // "" passes
	}{
		{"a documented answer", "GET", "/api/1.0/campaigns/1/locations/1", 200, `{"data":{"id":1,"name":"A"}}`, ""},
		{"an undocumented field", "GET", "/api/1.0/campaigns/1/locations/1", 200, `{"data":{"id":1,"colour":"red"}}`, "does not match"},
		{"a wrong type", "GET", "/api/1.0/campaigns/1/locations/1", 200, `{"data":{"id":"1"}}`, "does not match"},
		{"an undocumented status", "GET", "/api/1.0/campaigns/1/locations/1", 500, `{"message":"Server Error."}`, "does not match"},
		{"an undocumented route", "GET", "/api/1.0/campaigns/1/dragons", 200, `{"data":[]}`, "not in the OpenAPI document"},
		{"an undocumented method", "POST", "/api/1.0/campaigns/1/calendars/1/days", 200, `{"data":[]}`, "not in the OpenAPI document"},
		{"the function's 404 for an unknown route", "GET", "/api/1.0/campaigns/1/dragons", 404, `{"message":"Not found."}`, ""},
		{"the function's 405", "POST", "/api/1.0/campaigns/1/locations/1", 405, `{"message":"No."}`, ""},
		{"a trailing slash", "GET", "/api/1.0/campaigns/1/locations/", 401, `{"message":"Unauthenticated."}`, ""},
		{"HEAD of a GET route", "HEAD", "/api/1.0/campaigns/1/locations", 200, ``, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			CheckOpenAPI(rec, httptest.NewRequest(tc.method, tc.path, nil), tc.status, json, []byte(tc.body))
			got := strings.Join(rec.errs, "\n")
			if (tc.fails == "") != (got == "") || !strings.Contains(got, tc.fails) {
				t.Fatalf("got %q, want a failure containing %q", got, tc.fails)
			}
		})
	}
}
