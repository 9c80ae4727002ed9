package locations_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Issue 20: lastSync is served by the sync pointers, so its cost follows the changed records,
// not the campaign: among 1,000 locations (every tenth private), 10 changed since T cost at
// most 40 items read (pointers evaluated, records fetched, and the 3 items of the campaign
// access: campaign, membership, counter) in 3 round trips, with the exact
// total the caller may see, every other filter applied, and pages by cursor.
func TestLastSyncCostFollowsTheChangedRecords(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	e.SeedLocations(e.Campaign, 1000, 10)
	since := apitest.SyncPoint()
	var changed []int
	for id := 5; id <= 50; id += 5 { // 10, 20, ... 50 are private
		if r := e.Do("PATCH", loc(e.Campaign, int64(id)), e.Admin, map[string]any{"type": "Ruin"}); r.Status != 200 {
			t.Fatalf("update %d: %d %s", id, r.Status, r.Raw)
		}
		changed = append(changed, id)
	}
	public := slices.DeleteFunc(slices.Clone(changed), func(id int) bool { return id%10 == 0 })
	lastSync := "lastSync=" + url.QueryEscape(domain.FormatTime(since))
	cases := []struct {
		name, query, token string
		want               []int
		calls, read        int64
	}{
		{"admin", lastSync, e.Admin, changed, 3, 40},
		{"member: the private ones are not counted", lastSync, e.Member, public, 3, 40},
		{"with a name filter", lastSync + "&name=place%201", e.Admin, []int{10, 15}, 3, 40},
		{"with is_private", lastSync + "&is_private=1", e.Admin, []int{10, 20, 30, 40, 50}, 3, 40},
		{"a later lastSync: nothing", "lastSync=" + url.QueryEscape(domain.FormatTime(time.Now().UTC())), e.Admin, nil, 2, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", apitest.Path(e.Campaign, "/locations?"+c.query), c.token, nil)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			read := e.Counter.Scanned() + e.Counter.Fetched()
			t.Logf("%s: %d round trips with the token's, %d pointers evaluated, %d records fetched", c.name, e.Counter.N()+1, e.Counter.Scanned(), e.Counter.Fetched())
			if e.Counter.N() > c.calls || read > c.read {
				t.Errorf("%d calls, %d items read; budget %d, %d", e.Counter.N(), read, c.calls, c.read)
			}
			var got []int
			for _, row := range r.List() {
				got = append(got, int(row.(map[string]any)["id"].(float64)))
			}
			if !slices.Equal(got, c.want) || r.Body["meta"].(map[string]any)["total"] != float64(len(c.want)) {
				t.Errorf("ids %v total %v, want %v", got, r.Body["meta"].(map[string]any)["total"], c.want)
			}
		})
	}
	// Three pages of 4 by links.next give the same ten, each page one pointer Query and one fetch.
	var got []int
	next := apitest.Path(e.Campaign, "/locations?limit=4&"+lastSync)
	for page := 0; next != "" && page < 5; page++ {
		e.Counter.Reset()
		r := e.Do("GET", next, e.Admin, nil)
		if r.Status != 200 || e.Counter.N() > 3 {
			t.Fatalf("page %d: %d in %d calls %s", page+1, r.Status, e.Counter.N(), r.Raw)
		}
		for _, row := range r.List() {
			got = append(got, int(row.(map[string]any)["id"].(float64)))
		}
		next = ""
		if n, ok := r.Body["links"].(map[string]any)["next"].(string); ok {
			u, _ := url.Parse(n)
			next = u.RequestURI()
		}
	}
	if !slices.Equal(got, changed) {
		t.Errorf("pages by cursor: %v, want %v", got, changed)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations?page=3&limit=4&%s", lastSync)), e.Admin, nil); len(r.List()) != 2 {
		t.Errorf("?page=3&limit=4: %d rows, want 2", len(r.List()))
	}
}
