package compat_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Deletions in the delta: a list read with `lastSync=T&removed=1` answers its changed rows and,
// beside them, what left the caller's view since T: a record deleted that the caller could see
// ("deleted"), one made private or narrowed out of its view ("hidden", told to whom it was
// hidden only, never to the admin, never to a reader that could not see it), on the module
// lists and on entities across every module alike; paged by id with the rows, each removal on
// one page; one more DynamoDB round trip than the plain delta; Kanka's shape without the
// parameter; a 410 past the tombstones' 30 days.
func TestRemovedInTheDelta(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	api := func(rest string) string { return apitest.Path(w.Campaign, rest) }
	must := func(r apitest.Response) map[string]any {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		return r.Data()
	}
	luskan, neverwinter, candlekeep := w.locations["Luskan"], w.locations["Neverwinter"], w.locations["Candlekeep"]
	under, wd := w.locations["Undermountain"], w.locations["Waterdeep"]
	bard := must(w.Do("POST", api("/characters"), w.Admin, map[string]any{"name": "Volo"}))
	spy := must(w.Do("POST", api("/characters"), w.Admin, map[string]any{"name": "Spy"}))
	noble := must(w.Do("POST", api("/characters"), w.Admin, map[string]any{"name": "Noble"}))
	note := must(w.Do("POST", api(fmt.Sprintf("/entities/%v/entity_notes", wd["entity_id"])), w.Admin, map[string]any{"name": "Rumour", "visibility": "all"}))
	sync := w.get(t, w.Member, fmt.Sprintf("campaigns/%d/locations", w.Campaign)).Body["sync"].(string)
	apitest.WaitPastSync(t, sync)

	must(w.Do("DELETE", api(fmt.Sprintf("/locations/%v", luskan["id"])), w.Admin, nil))                                    // deleted, seen by all
	must(w.Do("DELETE", api(fmt.Sprintf("/locations/%v", under["id"])), w.Admin, nil))                                     // deleted, private: admins only
	must(w.Do("PATCH", api(fmt.Sprintf("/locations/%v", neverwinter["id"])), w.Admin, map[string]any{"is_private": true})) // hidden
	must(w.Do("PATCH", api(fmt.Sprintf("/locations/%v", candlekeep["id"])), w.Admin, map[string]any{"is_private": true}))
	must(w.Do("PATCH", api(fmt.Sprintf("/locations/%v", candlekeep["id"])), w.Admin, map[string]any{"is_private": false})) // back: a row
	must(w.Do("DELETE", api(fmt.Sprintf("/characters/%v", bard["id"])), w.Admin, nil))
	must(w.Do("PATCH", api(fmt.Sprintf("/characters/%v", spy["id"])), w.Admin, map[string]any{"is_private": true}))
	must(w.Do("PATCH", api(fmt.Sprintf("/characters/%v", noble["id"])), w.Admin, map[string]any{"is_private": true}))
	must(w.Do("DELETE", api(fmt.Sprintf("/characters/%v", noble["id"])), w.Admin, nil)) // hidden, then deleted
	secret := must(w.Do("POST", api("/characters"), w.Admin, map[string]any{"name": "Secret", "is_private": true}))
	must(w.Do("PATCH", api(fmt.Sprintf("/characters/%v", secret["id"])), w.Admin, map[string]any{"name": "Secret 2"})) // never seen
	must(w.Do("PATCH", api(fmt.Sprintf("/entities/%v/entity_notes/%v", wd["entity_id"], note["id"])), w.Admin, map[string]any{"visibility": "admin"}))

	type rm struct {
		id   any
		kind string
	}
	q := "?lastSync=" + url.QueryEscape(sync) + "&removed=1"
	cases := []struct {
		name, path, token string
		rows              []any
		removed           []rm
	}{
		{"locations, admin", "/locations", w.Admin, []any{neverwinter["id"], candlekeep["id"]},
			[]rm{{luskan["id"], "deleted"}, {under["id"], "deleted"}}},
		{"locations, member", "/locations", w.Member, []any{candlekeep["id"]},
			[]rm{{neverwinter["id"], "hidden"}, {luskan["id"], "deleted"}}},
		{"locations, viewer", "/locations", w.Viewer, []any{candlekeep["id"]},
			[]rm{{neverwinter["id"], "hidden"}, {luskan["id"], "deleted"}}},
		{"characters, admin", "/characters", w.Admin, []any{spy["id"], secret["id"]},
			[]rm{{bard["id"], "deleted"}, {noble["id"], "deleted"}}},
		{"characters, member", "/characters", w.Member, nil,
			[]rm{{bard["id"], "deleted"}, {spy["id"], "hidden"}, {noble["id"], "hidden"}}},
		{"entities, admin", "/entities", w.Admin, []any{neverwinter["entity_id"], candlekeep["entity_id"], spy["entity_id"], secret["entity_id"]},
			[]rm{{luskan["entity_id"], "deleted"}, {under["entity_id"], "deleted"}, {bard["entity_id"], "deleted"}, {noble["entity_id"], "deleted"}}},
		{"entities, member", "/entities", w.Member, []any{candlekeep["entity_id"]},
			[]rm{{neverwinter["entity_id"], "hidden"}, {luskan["entity_id"], "deleted"}, {bard["entity_id"], "deleted"},
				{spy["entity_id"], "hidden"}, {noble["entity_id"], "hidden"}}},
		{"notes, admin", fmt.Sprintf("/entities/%v/entity_notes", wd["entity_id"]), w.Admin, []any{note["id"]}, nil},
		{"notes, member", fmt.Sprintf("/entities/%v/entity_notes", wd["entity_id"]), w.Member, nil, []rm{{note["id"], "hidden"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := w.For(t)
			slices.SortFunc(c.removed, func(a, b rm) int { return int(a.id.(float64) - b.id.(float64)) })
			slices.SortFunc(c.rows, func(a, b any) int { return int(a.(float64) - b.(float64)) })
			for _, limit := range []int{100, 1} {
				var rows []any
				var removed []rm
				next := api(c.path + q + fmt.Sprintf("&limit=%d", limit))
				for pages := 0; next != ""; pages++ {
					if pages > 20 {
						t.Fatal("no last page")
					}
					r := e.Do("GET", strings.TrimPrefix(next, w.Server.URL), c.token, nil)
					if r.Status != 200 {
						t.Fatalf("%d %s", r.Status, r.Raw)
					}
					list, _ := r.Body["removed"].([]any)
					if len(r.List()) > limit || len(list) > limit {
						t.Errorf("limit %d: %d rows, %d removed on a page", limit, len(r.List()), len(list))
					}
					for _, row := range r.List() {
						rows = append(rows, row.(map[string]any)["id"])
					}
					for _, x := range list {
						m := x.(map[string]any)
						if at, _ := m["removed_at"].(string); at <= sync {
							t.Errorf("removal %v at %q, not after %s", m, at, sync)
						}
						removed = append(removed, rm{m["id"], m["kind"].(string)})
					}
					if r.Body["meta"].(map[string]any)["deleted_since"] != sync {
						t.Errorf("meta %v: want deleted_since %s", r.Body["meta"], sync)
					}
					next, _ = r.Body["links"].(map[string]any)["next"].(string)
				}
				slices.SortFunc(removed, func(a, b rm) int { return int(a.id.(float64) - b.id.(float64)) })
				if !slices.Equal(rows, c.rows) || !slices.Equal(removed, c.removed) {
					t.Errorf("limit %d: rows %v removed %v, want rows %v removed %v", limit, rows, removed, c.rows, c.removed)
				}
			}
			// One Query of the tombstones more than the delta alone; Kanka's shape without removed.
			e.Counter.Reset()
			with := e.Do("GET", api(c.path+q), c.token, nil)
			n := e.Counter.N()
			e.Counter.Reset()
			plain := e.Do("GET", api(c.path+"?lastSync="+url.QueryEscape(sync)), c.token, nil)
			if m := e.Counter.N(); n != m+1 {
				t.Errorf("removed=1 costs %d round trips, the delta alone %d: want one more", n, m)
			}
			if _, ok := plain.Body["removed"]; ok || with.Body["removed"] == nil {
				t.Errorf("removed without the parameter: %s; with: %s", plain.Raw, with.Raw)
			}
		})
	}
	refused := []struct {
		name, query string
		status      int
		field       string
	}{
		{"without lastSync", "?removed=1", 422, "removed"},
		{"an unreadable lastSync", "?removed=1&lastSync=yesterday", 422, "removed"},
		{"not a boolean", "?removed=maybe&lastSync=" + url.QueryEscape(sync), 422, "removed"},
		{"older than the tombstones", "?removed=1&lastSync=" + url.QueryEscape(time.Now().Add(-31*24*time.Hour).UTC().Format(time.RFC3339)), 410, "lastSync"},
		{"a page by number", "?removed=1&page=2&lastSync=" + url.QueryEscape(sync), 422, "page"},
	}
	for _, c := range refused {
		for _, path := range []string{"/locations", "/entities", "/characters", fmt.Sprintf("/entities/%v/entity_notes", wd["entity_id"])} {
			r := w.Do("GET", api(path+c.query), w.Member, nil)
			if r.Status != c.status || r.Errors()[c.field] == nil {
				t.Errorf("%s %s: %d %s, want %d naming %s", path, c.name, r.Status, r.Raw, c.status, c.field)
			}
		}
	}
	if r := w.Do("GET", apitest.Path(w.OtherCampaign, "/locations"+q), w.Member, nil); r.Status != 404 {
		t.Errorf("another campaign's removals: %d, want 404", r.Status)
	}
	// deleted=1 is still the deletions alone, a re-placement is not one.
	if r := w.Do("GET", api("/locations?deleted=1&lastSync="+url.QueryEscape(sync)), w.Member, nil); r.Status != 200 || len(r.List()) != 1 {
		t.Errorf("deleted=1: %d %s, want Luskan alone", r.Status, r.Raw)
	}
	if problems, err := ops.Audit(context.Background(), w.Store, w.Campaign); err != nil || len(problems) > 0 {
		t.Errorf("audit: %v %v", problems, err)
	}
}

// A public campaign's visitors (no membership) are told what was hidden from them too.
func TestRemovedForPublicVisitors(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	api := func(rest string) string { return apitest.Path(w.PublicCampaign, rest) }
	open := w.Do("POST", api("/locations"), w.Admin, map[string]any{"name": "Open"})
	gone := w.Do("POST", api("/locations"), w.Admin, map[string]any{"name": "Gone"})
	if open.Status != 200 || gone.Status != 200 {
		t.Fatalf("setup: %d %d", open.Status, gone.Status)
	}
	sync := w.Do("GET", api("/locations"), w.Outsider, nil).Body["sync"].(string)
	apitest.WaitPastSync(t, sync)
	if r := w.Do("PATCH", api(fmt.Sprintf("/locations/%v", open.Data()["id"])), w.Admin, map[string]any{"is_private": true}); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if r := w.Do("DELETE", api(fmt.Sprintf("/locations/%v", gone.Data()["id"])), w.Admin, nil); r.Status != 200 {
		t.Fatal(r.Status)
	}
	for _, c := range []struct {
		name, token string
		want        string
	}{
		{"visitor", w.Outsider, fmt.Sprintf(`[{"id":%v,"entity_id":%v,"kind":"hidden"`, open.Data()["id"], open.Data()["entity_id"])},
		{"admin", w.Admin, fmt.Sprintf(`[{"id":%v,"entity_id":%v,"kind":"deleted"`, gone.Data()["id"], gone.Data()["entity_id"])},
	} {
		r := w.Do("GET", api("/locations?removed=1&lastSync="+url.QueryEscape(sync)), c.token, nil)
		if r.Status != 200 || !strings.Contains(string(r.Raw), `"removed":`+c.want) {
			t.Errorf("%s: %d %s, want removed %s...", c.name, r.Status, r.Raw, c.want)
		}
	}
}
