package store_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/tags"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestTagFilterReadsMembers: at 1,000 locations, tags[] (all and any) reads the tags' member
// items, not the range, and answers what the filtered scan answered, for every reader class.
func TestTagFilterReadsMembers(t *testing.T) {
	e := apitest.New(t, func(api *httpapi.API, st *store.Store) {
		locations.Register(api, st)
		tags.Register(api, st)
	})
	e.SeedLocations(e.Campaign, 1000, 7)
	e.SeedTags(e.Campaign, 3)
	for id := 1; id <= 1000; id++ {
		var ts []int64
		if id%10 == 0 {
			ts = append(ts, 1)
		}
		if id%15 == 0 {
			ts = append(ts, 2)
		}
		if id%333 == 0 {
			ts = append(ts, 3) // 333 is public, 666 and 999 too: 3 records
		}
		if ts == nil {
			continue
		}
		if r := e.Do("PATCH", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", id)), e.Admin, map[string]any{"tags": ts}); r.Status != 200 {
			t.Fatalf("tag %d: %d %s", id, r.Status, r.Raw)
		}
	}
	if problems, err := ops.Audit(t.Context(), e.Store, e.Campaign); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
	type answer struct {
		ids   []any
		meta  any
		links any
	}
	get := func(token, q string) (answer, int64, int64) {
		e.Counter.Reset()
		r := e.Do("GET", apitest.Path(e.Campaign, "/locations?"+q), token, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", q, r.Status, r.Raw)
		}
		var a answer
		for _, row := range r.List() {
			a.ids = append(a.ids, row.(map[string]any)["id"])
		}
		a.meta, a.links = r.Body["meta"], r.Body["links"]
		return a, e.Counter.Fetched() + e.Counter.Scanned(), e.Counter.Waves()
	}
	for _, c := range []struct {
		q        string
		matches  int   // admin's
		maxItems int64 // the tags' members + the page (45 by default) + the access read's 3
	}{
		{"tags[]=1", 100, 100 + 45 + 3},
		{"tags[]=1&tags[]=2", 33, 100 + 66 + 33 + 3},
		{"tags[]=2&tags[]=1&tags_option=any", 133, 100 + 66 + 45 + 3},
		{"tags[]=1&limit=15&page=3", 100, 100 + 15 + 3},
		{"tags[]=3", 3, 3 + 3 + 3},
		{"tags[]=1&tags[]=3", 0, 100 + 3 + 3},
		{"tags[]=1&tags[]=1", 100, 100 + 45 + 3},
		{"tags[]=1&limit=10&cursor=" + domain.EncodeCursor(555), 100, 100 + 10 + 3},
	} {
		for _, who := range []struct{ name, token string }{{"admin", e.Admin}, {"member", e.Member}, {"viewer", e.Viewer}} {
			t.Run(who.name+" "+c.q, func(t *testing.T) {
				restore := store.SetTagListByMembers(false)
				old, oldItems, _ := get(who.token, c.q)
				restore()
				got, items, calls := get(who.token, c.q)
				if !reflect.DeepEqual(got, old) {
					t.Fatalf("members answer %v\nscan answered  %v", got, old)
				}
				total := got.meta.(map[string]any)["total"]
				if who.name == "admin" && total != float64(c.matches) {
					t.Fatalf("total %v, want %d", total, c.matches)
				}
				budget := c.maxItems
				if who.name != "admin" { // and the tags' homes: a private tag matches nothing for them
					budget += int64(strings.Count(c.q, "tags[]="))
				}
				if items > budget || oldItems < 1000*6/7 {
					t.Fatalf("%d items evaluated (scan: %d), budget %d", items, oldItems, budget)
				}
				if calls > 3 {
					t.Fatalf("%d round trips, budget 3", calls)
				}
			})
		}
	}
}
