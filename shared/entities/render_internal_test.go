package entities

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// An entity row's hand encoder writes what encoding/json writes, for random rows (HTML,
// unicode, invalid UTF-8, nulls, empty and nil tags, with and without the child's image).
func TestEntityRowEncoderMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	apitest.AppendJSONMatches[entityJSON](t, 3000)
}
