package entities_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A list of one kind reads that kind's own range (round3 5.2): in a campaign of 1,000
// locations (every tenth private) and 3 calendars, `types=calendar` evaluates the 3 calendars,
// not the 1,003 entities, and a page of locations evaluates limit+1 items, in 2 calls (the
// access with the counter, then the Query). Kanka's module filter `type_id[]` is the same list.
func TestEntitiesOfOneKindReadTheKindsRange(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	e.SeedLocations(e.Campaign, 1000, 10)
	var calendars []int64
	for i := 0; i < 3; i++ {
		calendars = append(calendars, eid(create(t, e, e.Campaign, e.Admin, "calendars", calendarBody(fmt.Sprint("Calendar ", i)))))
	}
	// The member's visible locations' entity ids (the seed gives location n entity n).
	var visible []int64
	for id := int64(1); id <= 1000; id++ {
		if id%10 != 0 {
			visible = append(visible, id)
		}
	}
	cases := []struct {
		name, query, token string
		want               []int64
		total              int
		evaluated          int64
		calls              int64
	}{
		{"types=calendar, admin", "?types=calendar", e.Admin, calendars, 3, 4, 2},
		{"types=calendar, member", "?types=calendar", e.Member, calendars, 3, 4, 2},
		{"type_id[]=8", "?type_id[]=8", e.Member, calendars, 3, 4, 2},
		{"type_id=8", "?type_id=8", e.Member, calendars, 3, 4, 2},
		{"types=location, member", "?types=location", e.Member, visible[:45], 900, 46, 2},
		{"types=location page 3, member (?page=N seeks the counter segments)", "?types=location&page=3&limit=10", e.Member, visible[20:30], 900, 111, 3},
		{"type_id[]=3, admin", "?type_id[]=3&limit=5", e.Admin, []int64{1, 2, 3, 4, 5}, 1000, 6, 2},
		{"a module Lorekeep does not serve", "?type_id[]=14", e.Member, []int64{}, 0, 0, 1},
		{"types and type_id disagree", "?types=location&type_id[]=8", e.Member, []int64{}, 0, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", ents(e.Campaign, c.query), c.token, nil)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			got := ids(r)
			if got == nil {
				got = []int64{}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("entities %v, want %v", got, c.want)
			}
			if total := r.Body["meta"].(map[string]any)["total"]; total != float64(c.total) {
				t.Errorf("total %v, want %d", total, c.total)
			}
			t.Logf("%d calls, %d items evaluated", e.Counter.N(), e.Counter.Scanned())
			if n, ev := e.Counter.N(), e.Counter.Scanned(); n > c.calls || ev > c.evaluated {
				t.Errorf("%d calls, %d items evaluated; budget %d, %d", n, ev, c.calls, c.evaluated)
			}
			for _, it := range r.List() {
				m := it.(map[string]any)
				if m["type"] == "calendar" && (m["module"].(map[string]any)["id"] != 8.0 || m["child_id"] == nil) {
					t.Errorf("calendar entity %v", m)
				}
			}
		})
	}
	// Following links.next through the kind's range: each page one Query of limit+1.
	next := ents(e.Campaign, "?types=location&limit=30")
	var all []int64
	for page := 1; next != "" && page <= 40; page++ {
		e.Counter.Reset()
		r := e.Do("GET", next, e.Member, nil)
		if n, ev := e.Counter.N(), e.Counter.Scanned(); r.Status != 200 || n > 2 || ev > 31 {
			t.Fatalf("page %d: %d, %d calls, %d evaluated", page, r.Status, n, ev)
		}
		all = append(all, ids(r)...)
		next, _ = r.Body["links"].(map[string]any)["next"].(string)
		if next != "" {
			u, _ := url.Parse(next)
			next = u.RequestURI()
		}
	}
	if !slices.Equal(all, visible) {
		t.Errorf("paged %d locations, want the %d visible", len(all), len(visible))
	}
	for _, q := range []string{"?type_id[]=x", "?type_id[]=3&type_id[]=0", "?type_id=-1"} {
		if r := e.Do("GET", ents(e.Campaign, q), e.Member, nil); r.Status != 422 || (r.Errors()["type_id"] == nil && r.Errors()["type_id.1"] == nil) {
			t.Errorf("%s: %d %s", q, r.Status, r.Raw)
		}
	}
}
