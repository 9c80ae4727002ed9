package locations_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestRoundTripsStayWithinBudget holds each request to DESIGN.md section 3: one read for the
// campaign and membership, then one GetItem for a read by id, one Query plus one total read for
// a list page, and at most two round trips for create, update and delete (delete's cascade
// look-ups, for children, map points and the entity's events and notes, aside).
func TestRoundTripsStayWithinBudget(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	id := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Budget"})
	point := e.Do("POST", loc(e.Campaign, id)+"/map_points", e.Admin, validPoint())
	pointPath := fmt.Sprintf("%s/map_points/%v", loc(e.Campaign, id), point.Data()["id"])
	cases := []struct {
		name         string
		method, path string
		body         any
		max          int64
	}{
		{"show", "GET", loc(e.Campaign, id), nil, 1 + 1},
		{"list page", "GET", apitest.Path(e.Campaign, "/locations"), nil, 1 + 2},
		{"create", "POST", apitest.Path(e.Campaign, "/locations"), map[string]any{"name": "New"}, 1 + 2},
		{"update", "PATCH", loc(e.Campaign, id), map[string]any{"type": "Keep"}, 1 + 2},
		{"update renaming (entity follows in the same transaction)", "PUT", loc(e.Campaign, id), map[string]any{"name": "Renamed"}, 1 + 2},
		{"map point show", "GET", pointPath, nil, 1 + 1},
		{"map point update", "PATCH", pointPath, map[string]any{"size": "small"}, 1 + 2},
		{"map point delete", "DELETE", pointPath, nil, 1 + 2},
		// Read, mark deleted (one transaction), three cascade look-ups, one batch for what they
		// found (here the map-point counter), remove the tombstone.
		{"delete", "DELETE", loc(e.Campaign, id), nil, 1 + 2 + 3 + 1 + 1},
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
