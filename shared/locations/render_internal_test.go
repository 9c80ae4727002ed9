package locations

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A location row's hand encoder writes what encoding/json writes, for random rows (HTML,
// mentions, unicode, invalid UTF-8, nulls, empty and nil arrays); ?related=1 rows are declined
// and go to encoding/json.
func TestLocationRowEncoderMatchesEncodingJSON(t *testing.T) {
	apitest.AppendJSONMatches[locationJSON](t, 3000)
}
