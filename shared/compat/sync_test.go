package compat_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A client syncing with lastSync learns of deletions as the Foundry importer's users asked
// (kanka-foundry #47, #128): after T, each list's `?lastSync=T&deleted=1` answers the records of
// that list deleted since, as the caller could see them, and nothing else; the changes read
// (`?lastSync=T`) no longer holds them. One table over every list that keeps tombstones.
func TestSyncSeesDeletionsOnEveryList(t *testing.T) {
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
	luskan, waterdeep := w.locations["Luskan"], w.locations["Waterdeep"]
	undermountain := w.locations["Undermountain"] // private
	tides := w.calendars["Tide Reckoning"]
	point := must(w.Do("POST", api(fmt.Sprintf("/locations/%v/map_points", waterdeep["id"])), w.Admin, map[string]any{
		"name": "Yawning Portal", "axis_x": 1, "axis_y": 2, "colour": "red", "shape": "circle", "size": "standard", "icon": "pin"}))
	weid := waterdeep["entity_id"]
	note := must(w.Do("POST", api(fmt.Sprintf("/entities/%v/entity_notes", weid)), w.Member, map[string]any{"name": "Rumour", "visibility": "all"}))
	secret := must(w.Do("POST", api(fmt.Sprintf("/entities/%v/entity_notes", weid)), w.Admin, map[string]any{"name": "Plot", "visibility": "admin"}))
	event := must(w.Do("POST", api(fmt.Sprintf("/entities/%v/entity_events", weid)), w.Member, map[string]any{
		"name": "Fair", "calendar_id": w.calendars["Calendar of Harptos"]["id"], "day": 1, "month": 1, "year": 1200, "length": 1}))

	sync := w.get(t, w.Member, fmt.Sprintf("campaigns/%d/locations", w.Campaign)).Body["sync"].(string)
	apitest.WaitPastSync(t, sync) // updated_at has microseconds: what follows is strictly after sync
	for _, path := range []string{
		fmt.Sprintf("/locations/%v", luskan["id"]), fmt.Sprintf("/locations/%v", undermountain["id"]),
		fmt.Sprintf("/calendars/%v", tides["id"]), fmt.Sprintf("/locations/%v/map_points/%v", waterdeep["id"], point["id"]),
		fmt.Sprintf("/entities/%v/entity_notes/%v", weid, note["id"]), fmt.Sprintf("/entities/%v/entity_notes/%v", weid, secret["id"]),
		fmt.Sprintf("/entities/%v/entity_events/%v", weid, event["id"]),
	} {
		must(w.Do("DELETE", api(path), w.Admin, nil))
	}
	ids := func(r apitest.Response) []any {
		var out []any
		for _, row := range r.List() {
			out = append(out, row.(map[string]any)["id"])
		}
		return out
	}
	q := "?lastSync=" + url.QueryEscape(sync) + "&deleted=1"
	cases := []struct {
		name, path, token string
		want              []any
	}{
		{"locations, admin", "/locations", w.Admin, []any{luskan["id"], undermountain["id"]}},
		{"locations, member (a private one is not told)", "/locations", w.Member, []any{luskan["id"]}},
		{"calendars", "/calendars", w.Member, []any{tides["id"]}},
		{"entities, admin", "/entities", w.Admin, []any{luskan["entity_id"], undermountain["entity_id"], tides["entity_id"]}},
		{"entities, viewer", "/entities", w.Viewer, []any{luskan["entity_id"], tides["entity_id"]}},
		{"map points", fmt.Sprintf("/locations/%v/map_points", waterdeep["id"]), w.Member, []any{point["id"]}},
		{"notes, admin", fmt.Sprintf("/entities/%v/entity_notes", weid), w.Admin, []any{note["id"], secret["id"]}},
		{"notes, member", fmt.Sprintf("/entities/%v/entity_notes", weid), w.Member, []any{note["id"]}},
		{"posts, member", fmt.Sprintf("/entities/%v/posts", weid), w.Member, []any{note["id"]}},
		{"events", fmt.Sprintf("/entities/%v/entity_events", weid), w.Member, []any{event["id"]}},
		{"reminders", fmt.Sprintf("/entities/%v/reminders", weid), w.Member, []any{event["id"]}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := w.Do("GET", api(c.path+q), c.token, nil)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			want := append([]any{}, c.want...)
			slices.SortFunc(want, func(a, b any) int { return int(a.(float64) - b.(float64)) })
			if got := ids(r); !slices.Equal(got, want) {
				t.Errorf("deleted since %s: %v, want %v", sync, got, want)
			}
			meta := r.Body["meta"].(map[string]any)
			if meta["total"] != float64(len(want)) || meta["deleted_since"] != sync {
				t.Errorf("meta %v: want total %d, deleted_since %s", meta, len(want), sync)
			}
			for _, row := range r.List() {
				if row.(map[string]any)["deleted_at"] == nil {
					t.Errorf("row %v without deleted_at", row)
				}
			}
			// The changes read since T does not hold them, and without deleted=1 no row is a tombstone.
			changed := w.Do("GET", api(c.path+"?lastSync="+url.QueryEscape(sync)), c.token, nil)
			for _, id := range ids(changed) {
				if slices.Contains(want, id) {
					t.Errorf("%s?lastSync: deleted %v still listed", c.path, id)
				}
			}
		})
	}
	if r := w.Do("GET", api("/locations?deleted=1"), w.Admin, nil); r.Status != 200 || len(r.List()) != 2 ||
		r.Body["meta"].(map[string]any)["deleted_since"].(string) > time.Now().Add(-29*24*time.Hour).UTC().Format(time.RFC3339) {
		t.Errorf("deleted=1 without lastSync: %d %s, want the last 30 days", r.Status, r.Raw)
	}
	if r := w.Do("GET", api("/locations?deleted=maybe"), w.Admin, nil); r.Status != 422 || r.Errors()["deleted"] == nil {
		t.Errorf("deleted=maybe: %d %s, want 422 naming deleted", r.Status, r.Raw)
	}
	if r := w.Do("GET", api(fmt.Sprintf("/entities/%v/entity_notes?deleted=1", luskan["entity_id"])), w.Admin, nil); r.Status != 404 {
		t.Errorf("notes of a deleted entity: %d, want 404", r.Status)
	}
	if r := w.Do("GET", apitest.Path(w.OtherCampaign, "/locations?deleted=1"), w.Admin, nil); r.Status != 404 {
		t.Errorf("another campaign's deletions: %d, want 404", r.Status)
	}
	if problems, err := ops.Audit(context.Background(), w.Store, w.Campaign); err != nil || len(problems) > 0 {
		t.Errorf("audit: %v %v", problems, err)
	}
}
