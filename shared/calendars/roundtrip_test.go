package calendars_test

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestRoundTripsStayWithinBudget holds each request to DESIGN.md section 3: one read for the
// campaign and membership, then one GetItem for a read by id, one Query plus one total read for
// a list page, and at most two round trips for create, update and delete (delete's cascade
// look-ups, for the entity's events and notes and for other entities' events on the calendar,
// aside).
func TestRoundTripsStayWithinBudget(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, fullBody())
	cases := []struct {
		name         string
		method, path string
		body         any
		max          int64
	}{
		{"show", "GET", cal(e.Campaign, id), nil, 1 + 1},
		{"list page", "GET", apitest.Path(e.Campaign, "/calendars"), nil, 1 + 2},
		{"filtered list page", "GET", apitest.Path(e.Campaign, "/calendars?name=harp"), nil, 1 + 2},
		{"create (+1: the tags it names, read in one batch)", "POST", apitest.Path(e.Campaign, "/calendars"), fullBody(), 1 + 2 + 1},
		{"create from a preset", "POST", apitest.Path(e.Campaign, "/calendars"), map[string]any{"name": "Earth", "preset": "gregorian"}, 1 + 2},
		{"presets (no read beyond the campaign's access)", "GET", apitest.Path(e.Campaign, "/calendars/presets"), nil, 1},
		{"update", "PATCH", cal(e.Campaign, id), map[string]any{"type": "Keep", "moon_name": []any{"One"}, "moon_fullmoon": []any{3}}, 1 + 2},
		{"update renaming (entity follows in the same transaction)", "PUT", cal(e.Campaign, id), map[string]any{"name": "Renamed"}, 1 + 2},
		{"advance", "POST", cal(e.Campaign, id) + "/advance", map[string]any{"days": 400}, 1 + 2},
		{"retreat", "POST", cal(e.Campaign, id) + "/retreat", nil, 1 + 2},
		// The calendar with the access, then its links: two concurrent Queries (RECUR#, DAY#), no
		// entity read; then the days' manual weather (WDAY#), one Query.
		{"days", "GET", cal(e.Campaign, id) + "/days?from=1-1-1&to=10-1-1", nil, 1 + 3},
		{"export (the calendar alone)", "GET", cal(e.Campaign, id) + "/export", nil, 1 + 1},
		// Read, mark deleted (one transaction), two cascade look-ups (the entity's partition, the
		// calendar's links), nothing found, remove the tombstone.
		{"delete", "DELETE", cal(e.Campaign, id), nil, 1 + 2 + 2 + 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do(c.method, c.path, e.Admin, c.body)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := e.Counter.N(); n > c.max || n == 0 {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
		})
	}
}
