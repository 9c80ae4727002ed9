package webhooks_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/webhooks"
)

// TestMapEvents: maps and their markers are announced like locations and entity notes, to a
// real receiver, in order: a marker only the admins see is left out of a webhook without
// include_private, and a marker's path names its map.
func TestMapEvents(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	public, everything := newReceiver(t, nil), newReceiver(t, nil)
	e.createHook(t, map[string]any{"url": public.URL})
	e.createHook(t, map[string]any{"url": everything.URL, "include_private": true, "events": []any{"map_marker.created"}})
	m := e.do(t, "POST", "/maps", map[string]any{"name": "World", "type": "Continent"})
	mid := int64(m["id"].(float64))
	e.do(t, "POST", fmt.Sprintf("/maps/%d/map_markers", mid), map[string]any{"name": "Secret", "latitude": 1, "longitude": 2,
		"shape_id": 1, "icon": 1, "visibility": "admin"})
	open := e.do(t, "POST", fmt.Sprintf("/maps/%d/map_markers", mid), map[string]any{"name": "Pin", "latitude": 1, "longitude": 2, "shape_id": 1, "icon": 1})
	mk := int64(open["id"].(float64))
	e.do(t, "PATCH", fmt.Sprintf("/maps/%d/map_markers/%d", mid, mk), map[string]any{"name": "Pin 2"})
	e.do(t, "DELETE", fmt.Sprintf("/maps/%d/map_markers/%d", mid, mk), nil)
	e.do(t, "PATCH", fmt.Sprintf("/maps/%d", mid), map[string]any{"name": "World 2"})
	got, all := public.wait(t, 5), everything.wait(t, 2)
	want := []string{"map.created", "map_marker.created", "map_marker.updated", "map_marker.deleted", "map.updated"}
	// A map's events and its markers' are different items' (ordered per record): compared as a set.
	if len(got) != len(want) {
		t.Errorf("events = %v, want %v", events(got), want)
	}
	count := map[string]int{}
	for _, d := range got {
		count[d.header.Get("X-Lorekeep-Event")]++
	}
	for _, name := range want {
		if count[name] == 0 {
			t.Errorf("no %s among %v", name, events(got))
		}
	}
	if count["map_marker.created"] != 1 {
		t.Errorf("the admins' marker reached a webhook without include_private: %v", events(got))
	}
	if fmt.Sprint(events(all)) != "[map_marker.created map_marker.created]" {
		t.Errorf("include_private webhook got %v", events(all))
	}
	for _, d := range got {
		data := d.event["data"].(map[string]any)
		switch d.header.Get("X-Lorekeep-Event") {
		case "map_marker.updated":
			if data["name"] != "Pin 2" || data["map_id"] != float64(mid) || data["visibility"] != "all" ||
				data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d/maps/%d/map_markers/%d", e.Campaign, mid, mk) {
				t.Errorf("marker event data = %v", data)
			}
		case "map.updated":
			if data["name"] != "World 2" || data["kind"] != "map" || data["type"] != "Continent" || data["map_id"] != nil ||
				data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d/maps/%d", e.Campaign, mid) {
				t.Errorf("map event data = %v", data)
			}
		}
	}
}
