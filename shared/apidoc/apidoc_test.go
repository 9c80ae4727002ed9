package apidoc_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/lorekeep/lorekeep/shared/apidoc"
	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// The merged document is valid OpenAPI 3.1 and every operation is described well enough to
// render: an id, a summary and a tag.
func TestDocumentIsValid(t *testing.T) {
	t.Parallel()
	raw, err := apidoc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" || op.Summary == "" || len(op.Tags) == 0 || ids[op.OperationID] {
				t.Errorf("%s %s: operationId %q (unique), summary and tag needed", method, path, op.OperationID)
			}
			ids[op.OperationID] = true
			if method != http.MethodGet && strings.HasPrefix(path, "/api/1.0/campaigns/") {
				keyed := false
				for _, p := range op.Parameters {
					keyed = keyed || (p.Ref == "#/components/parameters/Idempotency-Key" && p.Value != nil && p.Value.In == "header")
				}
				if !keyed {
					t.Errorf("%s %s: no Idempotency-Key header parameter", method, path)
				}
			}
		}
	}
}

// The public routes answer without a token, as the document says.
func TestPublicRoutesNeedNoToken(t *testing.T) {
	t.Parallel()
	api := httpapi.New(httpapi.Options{Identify: func(*http.Request) (int64, error) { return 0, apperr.ErrUnauthenticated }})
	apidoc.Register(api)
	srv := httptest.NewServer(api)
	defer srv.Close()
	for _, tc := range []struct{ path, has string }{
		{"/api/1.0/openapi.json", `"openapi":"3.1.0"`},
		{"/health", `"status":"ok"`},
		{"/", `"docs":"/docs"`},
	} {
		req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(body), tc.has) {
			t.Errorf("GET %s: %d %q %.200s", tc.path, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		apitest.CheckOpenAPI(t, req, res.StatusCode, res.Header, body)
	}
	// Everything else still needs a token.
	res, err := http.Get(srv.URL + "/api/1.0/campaigns/1/locations")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("campaign route without a token: %d", res.StatusCode)
	}
}
