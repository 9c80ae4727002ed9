package calendardays

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A day of the day view is encoded by hand as encoding/json encodes it, for random days (HTML,
// unicode, invalid UTF-8, nulls, empty and nil arrays, moons, events, manual weather, floats).
func TestDayEncoderMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	apitest.AppendJSONMatches[dayJSON](t, 3000)
}
