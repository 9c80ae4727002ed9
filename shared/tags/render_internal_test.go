package tags

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A tag row's hand encoder writes what encoding/json writes, for random rows (HTML, mentions,
// unicode, invalid UTF-8, nulls, empty and nil arrays); ?related=1 rows are declined and go to
// encoding/json.
func TestTagRowEncoderMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	apitest.AppendJSONMatches[tagJSON](t, 3000)
}
