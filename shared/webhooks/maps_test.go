package webhooks_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
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

// TestMapPackEvents: a map's layers and groups are one pack item each; its writes are announced
// entry by entry (created, updated, deleted), to a real receiver, scoped by the map's privacy
// and each entry's visibility, with paths under the map. Deleting a group makes its child a
// root: the child's update is announced with the deletion.
func TestMapPackEvents(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	pic := imagetest.PNG(20, 10)
	picture := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(pic) }))
	defer picture.Close()
	public, everything := newReceiver(t, nil), newReceiver(t, nil)
	packEvents := []any{"map_group.created", "map_group.updated", "map_group.deleted", "map_layer.created", "map_layer.updated", "map_layer.deleted"}
	e.createHook(t, map[string]any{"url": public.URL, "events": packEvents})
	e.createHook(t, map[string]any{"url": everything.URL, "include_private": true, "events": packEvents})
	mid := int64(e.do(t, "POST", "/maps", map[string]any{"name": "World"})["id"].(float64))
	hidden := int64(e.do(t, "POST", "/maps", map[string]any{"name": "Hidden", "is_private": true})["id"].(float64))
	groups, layers := fmt.Sprintf("/maps/%d/map_groups", mid), fmt.Sprintf("/maps/%d/map_layers", mid)
	e.do(t, "POST", groups, map[string]any{"name": "Secret", "visibility": "admin"})                           // 1: admins only
	top := int64(e.do(t, "POST", groups, map[string]any{"name": "Top"})["id"].(float64))                       // 2
	child := int64(e.do(t, "POST", groups, map[string]any{"name": "Child", "parent_id": top})["id"].(float64)) // 3
	e.do(t, "POST", fmt.Sprintf("/maps/%d/map_groups", hidden), map[string]any{"name": "In a private map"})
	layer := int64(e.do(t, "POST", layers, map[string]any{"name": "Night", "image_url": picture.URL + "/night.png"})["id"].(float64))
	e.do(t, "PATCH", fmt.Sprintf("%s/%d", layers, layer), map[string]any{"name": "Night 2"})
	e.do(t, "PATCH", fmt.Sprintf("%s/%d", groups, top), map[string]any{"is_shown": false})
	e.do(t, "DELETE", fmt.Sprintf("%s/%d", groups, top), nil)
	e.do(t, "DELETE", fmt.Sprintf("%s/%d", layers, layer), nil)

	want := []string{"map_group.created Top", "map_group.created Child", "map_layer.created Night", "map_layer.updated Night 2",
		"map_group.updated Top", "map_group.deleted Top", "map_group.updated Child", "map_layer.deleted Night 2"}
	all := everything.wait(t, len(want)+2)
	got := public.wait(t, len(want))
	named := func(ds []delivery) map[string]int {
		out := map[string]int{}
		for _, d := range ds {
			out[d.header.Get("X-Lorekeep-Event")+" "+d.event["data"].(map[string]any)["name"].(string)]++
		}
		return out
	}
	// Layers and groups are two items (ordered each on its own): compared as sets.
	if pub := named(got); len(got) != len(want) || func() bool {
		for _, w := range want {
			if pub[w] != 1 {
				return true
			}
		}
		return false
	}() {
		t.Errorf("public webhook got %v, want %v", named(got), want)
	}
	if a := named(all); len(all) != len(want)+2 || a["map_group.created Secret"] != 1 || a["map_group.created In a private map"] != 1 {
		t.Errorf("include_private webhook got %v", a)
	}
	// Within one pack the order is the writes' order.
	var groupOrder []string
	for _, d := range got {
		if ev := d.header.Get("X-Lorekeep-Event"); ev[:9] == "map_group" {
			groupOrder = append(groupOrder, ev+" "+d.event["data"].(map[string]any)["name"].(string))
		}
	}
	if fmt.Sprint(groupOrder) != "[map_group.created Top map_group.created Child map_group.updated Top map_group.deleted Top map_group.updated Child]" {
		t.Errorf("group events in order %v", groupOrder)
	}
	for _, d := range got {
		data := d.event["data"].(map[string]any)
		switch d.header.Get("X-Lorekeep-Event") + " " + data["name"].(string) {
		case "map_layer.updated Night 2":
			if data["kind"] != "map_layer" || data["id"] != float64(layer) || data["map_id"] != float64(mid) || data["visibility"] != "all" ||
				data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d%s/%d", e.Campaign, layers, layer) {
				t.Errorf("layer event data = %v", data)
			}
		case "map_group.updated Child":
			if data["kind"] != "map_group" || data["id"] != float64(child) || data["map_id"] != float64(mid) ||
				data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d%s/%d", e.Campaign, groups, child) {
				t.Errorf("group event data = %v", data)
			}
		case "map_group.deleted Top":
			if data["id"] != float64(top) || data["path"] != nil || data["map_id"] != nil {
				t.Errorf("deleted group event data = %v", data)
			}
		}
	}
}
