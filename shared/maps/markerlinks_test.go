package maps_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestMarkerFollowsItsEntity: a marker linked to an entity is placed by that entity's privacy
// whenever it changes (MARKIN# pointers), hidden while the entity is in the trash and shown
// again by its restore; the map's centre on such a marker follows.
func TestMarkerFollowsItsEntity(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "World"})
	loc := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Keep"})
	locPath := apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", loc))
	eid := int64(e.Do("GET", locPath, e.Admin, nil).Data()["entity_id"].(float64))
	linked := pin("Keep pin")
	linked["entity_id"] = eid
	mk := create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", mid), linked)
	plain := create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", mid), pin("Plain"))
	if r := e.Do("PATCH", mapPath(e.Campaign, mid), e.Admin, map[string]any{"center_marker_id": mk}); r.Status != 200 {
		t.Fatalf("centre: %d %s", r.Status, r.Raw)
	}
	for _, s := range lifecycle(e, locPath, eid) {
		t.Run(s.name, func(t *testing.T) {
			if r := s.do(); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			want, total := 404, 1
			var centre any
			if s.visible {
				want, total, centre = 200, 2, float64(mk)
			}
			if r := e.Do("GET", markerPath(e.Campaign, mid, mk), e.Member, nil); r.Status != want {
				t.Errorf("member reads the marker: %d, want %d", r.Status, want)
			}
			if r := e.Do("GET", markersPath(e.Campaign, mid), e.Member, nil); r.Status != 200 || int(r.Body["meta"].(map[string]any)["total"].(float64)) != total {
				t.Errorf("member's list: %d %s, want %d markers", r.Status, r.Raw, total)
			}
			if r := e.Do("GET", markerPath(e.Campaign, mid, mk), e.Admin, nil); r.Status != 200 || r.Data()["entity_id"] != float64(eid) {
				t.Errorf("admin reads the marker: %d %s", r.Status, r.Raw)
			}
			if got := e.Do("GET", mapPath(e.Campaign, mid), e.Member, nil).Data()["center_marker_id"]; fmt.Sprint(got) != fmt.Sprint(centre) {
				t.Errorf("member reads center_marker_id %v, want %v", got, centre)
			}
			if r := e.Do("GET", markerPath(e.Campaign, mid, plain), e.Member, nil); r.Status != 200 {
				t.Errorf("the unlinked marker: %d", r.Status)
			}
			audit(t, e, e.Campaign)
		})
	}
}

// TestMapFollowsItsLocation: a map's public copy shows location_id only while the location is
// public, whatever changes the location after the map's last write (LOCMAP# links).
func TestMapFollowsItsLocation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	loc := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Keep"})
	locPath := apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", loc))
	eid := int64(e.Do("GET", locPath, e.Admin, nil).Data()["entity_id"].(float64))
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "World", "location_id": loc})
	for _, s := range lifecycle(e, locPath, eid) {
		t.Run(s.name, func(t *testing.T) {
			if r := s.do(); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			var want any
			if s.visible {
				want = float64(loc)
			}
			for _, token := range []string{e.Member, e.Viewer} {
				if got := e.Do("GET", mapPath(e.Campaign, mid), token, nil).Data()["location_id"]; fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("location_id %v, want %v", got, want)
				}
				l := e.Do("GET", apitest.Path(e.Campaign, "/maps"), token, nil)
				if row := l.List()[0].(map[string]any); fmt.Sprint(row["location_id"]) != fmt.Sprint(want) {
					t.Errorf("list row location_id %v, want %v", row["location_id"], want)
				}
			}
			if got := e.Do("GET", mapPath(e.Campaign, mid), e.Admin, nil).Data()["location_id"]; got != float64(loc) {
				t.Errorf("admin reads location_id %v", got)
			}
			audit(t, e, e.Campaign)
		})
	}
}

// lifecycle is what a location (record path, entity eid) goes through that its markers and maps
// follow: each step's write, and whether members see the location after it.
func lifecycle(e *apitest.Env, path string, eid int64) []struct {
	name    string
	do      func() apitest.Response
	visible bool
} {
	return []struct {
		name    string
		do      func() apitest.Response
		visible bool
	}{
		{"public", func() apitest.Response { return e.Do("GET", path, e.Admin, nil) }, true},
		{"made private", func() apitest.Response { return e.Do("PATCH", path, e.Admin, map[string]any{"is_private": true}) }, false},
		{"made public", func() apitest.Response { return e.Do("PATCH", path, e.Admin, map[string]any{"is_private": false}) }, true},
		{"trashed", func() apitest.Response { return e.Do("DELETE", path, e.Admin, nil) }, false},
		{"restored", func() apitest.Response {
			return e.Do("POST", apitest.Path(e.Campaign, "/recover"), e.Admin, map[string]any{"entities": []any{eid}})
		}, true},
	}
}
