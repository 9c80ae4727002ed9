package httpapi_test

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A page's links and meta, written by hand after its rows, are encoding/json's bytes: random
// URLs and paths (HTML, quotes, invalid UTF-8), null and set prev, next, from and to, with and
// without deleted_since.
func TestPageTailEncoderMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	apitest.AppendJSONMatches[httpapi.PageTail](t, 3000)
}
