package apitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/lorekeep/lorekeep/shared/apidoc"
)

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

func loadSpec() (routers.Router, error) {
	specOnce.Do(func() {
		raw, err := apidoc.JSON()
		if err != nil {
			specErr = err
			return
		}
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err != nil {
			specErr = err
			return
		}
		if specErr = doc.Validate(context.Background()); specErr != nil {
			return
		}
		specRouter, specErr = gorillamux.NewRouter(doc)
	})
	return specRouter, specErr
}

// statusesWithoutRoute are the answers a request gets before any route matches: authentication,
// rate limiting, body size, and the function's own 404 and 405.
var statusesWithoutRoute = map[int]bool{401: true, 404: true, 405: true, 413: true, 429: true, 503: true}

// The docs page and its assets, the month page and its image are text: their bodies are
// checked as strings.
func init() {
	for _, ct := range []string{"text/html", "text/javascript", "text/plain", "image/svg+xml"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
}

// CheckOpenAPI fails t unless the response to req (status, headers, body) is what the OpenAPI
// document (shared/apidoc/openapi) says the operation answers. A response from an operation
// the document does not have fails loudly: every route must be documented.
func CheckOpenAPI(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	if req.Method == http.MethodOptions {
		return // CORS preflight, answered before routing
	}
	router, err := loadSpec()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	r := req.Clone(context.Background())
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		r.URL.Path = strings.TrimRight(p, "/") // every path accepts a trailing slash
		r.URL.RawPath = ""
	}
	head := r.Method == http.MethodHead
	if head {
		r.Method = http.MethodGet // HEAD is served wherever GET is
	}
	route, params, err := router.FindRoute(r)
	if err != nil {
		if statusesWithoutRoute[status] && (errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed)) {
			return
		}
		t.Errorf("%s %s answered %d but is not in the OpenAPI document (%v): describe it in shared/apidoc/openapi/", req.Method, req.URL.Path, status, err)
		return
	}
	if head {
		if route.Operation.Responses.Status(status) == nil {
			t.Errorf("HEAD %s: status %d is not documented for GET", req.URL.Path, status)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s: the %d response does not match the OpenAPI document (shared/apidoc/openapi/): %v\nbody: %.500s", req.Method, req.URL.Path, status, err, body)
	}
}

// DocumentedSuccess is the success status the OpenAPI document gives the operation serving
// req (GET's for HEAD): the sample events' replays expect it, so an event and the document
// cannot disagree unnoticed. An operation without exactly one 2xx is an error.
func DocumentedSuccess(req *http.Request) (int, error) {
	router, err := loadSpec()
	if err != nil {
		return 0, err
	}
	r := req.Clone(context.Background())
	if r.Method == http.MethodHead {
		r.Method = http.MethodGet
	}
	route, _, err := router.FindRoute(r)
	if err != nil {
		return 0, fmt.Errorf("%s %s is not in the OpenAPI document: %w", req.Method, req.URL.Path, err)
	}
	var ok []int
	for _, k := range route.Operation.Responses.Keys() {
		if n, err := strconv.Atoi(k); err == nil && n >= 200 && n < 300 {
			ok = append(ok, n)
		}
	}
	if len(ok) != 1 {
		return 0, fmt.Errorf("%s %s: the OpenAPI document gives %v as its success statuses, want exactly one", req.Method, route.Path, ok)
	}
	return ok[0], nil
}
