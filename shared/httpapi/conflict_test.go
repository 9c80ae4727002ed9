package httpapi_test

import (
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A write that still conflicts after the handler's retries tells the client when and that it
// may retry.
func TestConflictThatRemainsCarriesRetryAfter(t *testing.T) {
	t.Parallel()
	e := apitest.NewWith(t, func(api *httpapi.API, _ *store.Store) {
		api.Handle("PATCH", "/contended", func(*httpapi.Request) (httpapi.Reply, error) { return httpapi.Reply{}, apperr.ErrConflict })
	}, apitest.WithoutOpenAPI()) // a route of its own, not in the document
	r := e.Do("PATCH", apitest.Path(e.Campaign, "/contended"), e.Admin, map[string]any{})
	msg, _ := r.Body["message"].(string)
	if r.Status != 409 || r.Header.Get("Retry-After") != "1" || !strings.Contains(msg, "retry") {
		t.Fatalf("got %d Retry-After %q message %q", r.Status, r.Header.Get("Retry-After"), msg)
	}
}
