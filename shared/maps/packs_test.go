package maps_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func packPath(cid, mid int64, coll string) string {
	return apitest.Path(cid, fmt.Sprintf("/maps/%d/%s", mid, coll))
}

func layer(pic, name string) map[string]any {
	return map[string]any{"name": name, "image_url": pic + "/" + name + ".png"}
}

func TestGroupsAndLayers(t *testing.T) {
	t.Parallel()
	e, pic := withImages(t)
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "World"})
	groups, layers := packPath(e.Campaign, mid, "map_groups"), packPath(e.Campaign, mid, "map_layers")
	towns := e.Do("POST", groups, e.Admin, map[string]any{"name": "Towns", "position": "3", "map_id": 999})
	if towns.Status != 200 || towns.Data()["is_shown"] != true || towns.Data()["position"] != float64(3) || towns.Data()["map_id"] != float64(mid) {
		t.Fatalf("create group: %d %s", towns.Status, towns.Raw)
	}
	tid := int64(towns.Data()["id"].(float64))
	ports := e.Do("POST", groups, e.Admin, map[string]any{"name": "Ports", "parent_id": tid, "is_shown": false})
	if ports.Status != 200 || ports.Data()["parent_id"] != float64(tid) {
		t.Fatalf("child group: %d %s", ports.Status, ports.Raw)
	}
	pid := int64(ports.Data()["id"].(float64))
	secret := e.Do("POST", groups, e.Admin, map[string]any{"name": "Secret", "visibility": "admin"})
	sid := int64(secret.Data()["id"].(float64))
	roads := e.Do("POST", layers, e.Admin, map[string]any{"name": "Roads", "image_url": pic + "/roads.png", "type": "overlay",
		"entry": "<p>Roads <script>x</script></p>"})
	if roads.Status != 200 || roads.Data()["type_id"] != float64(1) || roads.Data()["type"] != "overlay" ||
		roads.Data()["has_custom_image"] != true || roads.Data()["width"] != float64(20) || strings.Contains(roads.Data()["entry"].(string), "script") {
		t.Fatalf("create layer: %d %s", roads.Status, roads.Raw)
	}
	// The map embeds what each reader may see.
	for tok, want := range map[string]int{e.Admin: 3, e.Member: 2} {
		m := e.Do("GET", mapPath(e.Campaign, mid), tok, nil)
		if m.Status != 200 || len(m.Data()["groups"].([]any)) != want || len(m.Data()["layers"].([]any)) != 1 {
			t.Fatalf("map embeds: %d %s", m.Status, m.Raw)
		}
		l := e.Do("GET", apitest.Path(e.Campaign, "/maps"), tok, nil)
		if len(l.List()[0].(map[string]any)["groups"].([]any)) != want {
			t.Fatalf("list row embeds: %s", l.Raw)
		}
	}
	if s := e.Do("GET", fmt.Sprintf("%s/%d", groups, sid), e.Member, nil); s.Status != 404 {
		t.Fatalf("member shows an admin group: %d", s.Status)
	}
	if l := e.Do("GET", groups+"?limit=1&page=2", e.Admin, nil); l.Status != 200 || len(l.List()) != 1 || l.Body["meta"].(map[string]any)["total"] != float64(3) {
		t.Fatalf("groups page 2: %d %s", l.Status, l.Raw)
	}
	// Cycles, bad parents and bad values are 422s that change nothing.
	for _, c := range []struct {
		name, method, path string
		body               map[string]any
		field              string
	}{
		{"group under itself", "PATCH", fmt.Sprintf("%s/%d", groups, tid), map[string]any{"parent_id": tid}, "parent_id"},
		{"group under its child", "PATCH", fmt.Sprintf("%s/%d", groups, tid), map[string]any{"parent_id": pid}, "parent_id"},
		{"group under a missing one", "POST", groups, map[string]any{"name": "x", "parent_id": 999}, "parent_id"},
		{"group without a name", "POST", groups, map[string]any{"position": 1}, "name"},
		{"group position 1000", "POST", groups, map[string]any{"name": "x", "position": 1000}, "position"},
		{"group is_shown not a boolean", "POST", groups, map[string]any{"name": "x", "is_shown": "maybe"}, "is_shown"},
		{"layer without a picture", "POST", layers, map[string]any{"name": "x"}, "image_url"},
		{"layer picture not a URL", "POST", layers, map[string]any{"name": "x", "image_url": "javascript:alert(1)"}, "image_url"},
		{"layer type 3", "POST", layers, map[string]any{"name": "x", "image_url": pic + "/x.png", "type_id": 3}, "type_id"},
		{"layer unknown type", "POST", layers, map[string]any{"name": "x", "image_url": pic + "/x.png", "type": "underlay"}, "type"},
		{"layer caption too long", "POST", layers, map[string]any{"name": "x", "image_url": pic + "/x.png", "entry": strings.Repeat("a", 1001)}, "entry"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := e.Do(c.method, c.path, e.Admin, c.body); r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	// Markers join groups of their map: answered while the group lives and the reader sees it.
	markers := markersPath(e.Campaign, mid)
	b := pin("In towns")
	b["group_id"] = tid
	inTowns := create(t, e, e.Campaign, e.Admin, markers[len(apitest.Path(e.Campaign, "")):], b)
	b = pin("In secret")
	b["group_id"] = sid
	inSecret := create(t, e, e.Campaign, e.Admin, markers[len(apitest.Path(e.Campaign, "")):], b)
	if s := e.Do("GET", markerPath(e.Campaign, mid, inSecret), e.Member, nil); s.Status != 200 || s.Data()["group_id"] != nil {
		t.Fatalf("a hidden group's marker for a member: %d %s", s.Status, s.Raw)
	}
	if s := e.Do("GET", markerPath(e.Campaign, mid, inTowns), e.Member, nil); s.Status != 200 || s.Data()["group_id"] != float64(tid) {
		t.Fatalf("marker's group: %d %s", s.Status, s.Raw)
	}
	for _, g := range []any{999, sid} {
		b = pin("x")
		b["group_id"] = g
		if r := e.Do("POST", markers, e.Member, b); r.Status != 422 || r.Errors()["group_id"] == nil {
			t.Fatalf("group %v: %d %s", g, r.Status, r.Raw)
		}
	}
	// A member may not hang a group under one it cannot see.
	if r := e.Do("POST", groups, e.Member, map[string]any{"name": "x", "parent_id": sid}); r.Status != 422 {
		t.Fatalf("hidden parent: %d %s", r.Status, r.Raw)
	}
	// Deleting a group makes its children roots; lastSync and ?deleted=1 report the change.
	sync := e.Do("GET", groups, e.Admin, nil).Body["sync"].(string)
	if d := e.Do("DELETE", fmt.Sprintf("%s/%d", groups, tid), e.Admin, nil); d.Status != 200 {
		t.Fatalf("delete group: %d %s", d.Status, d.Raw)
	}
	if g := e.Do("GET", groups+"?deleted=1&lastSync="+sync, e.Member, nil); g.Status != 200 || len(g.List()) != 1 || g.List()[0].(map[string]any)["id"] != float64(tid) {
		t.Fatalf("?deleted=1: %d %s", g.Status, g.Raw)
	}
	if s := e.Do("GET", groups+"?lastSync="+sync, e.Admin, nil); s.Status != 200 || len(s.List()) != 1 || s.List()[0].(map[string]any)["id"] != float64(pid) {
		t.Fatalf("lastSync: %d %s, want the orphaned child", s.Status, s.Raw)
	}
	if s := e.Do("GET", fmt.Sprintf("%s/%d", groups, pid), e.Admin, nil); s.Status != 200 || s.Data()["parent_id"] != nil {
		t.Fatalf("orphaned group: %d %s", s.Status, s.Raw)
	}
	if s := e.Do("GET", markerPath(e.Campaign, mid, inTowns), e.Admin, nil); s.Status != 200 || s.Data()["group_id"] != nil {
		t.Fatalf("a deleted group's marker: %d %s", s.Status, s.Raw)
	}
	// Another map's and another campaign's paths do not reach these entries.
	other := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Other"})
	if s := e.Do("GET", fmt.Sprintf("%s/%d", packPath(e.Campaign, other, "map_groups"), pid), e.Admin, nil); s.Status != 404 {
		t.Fatalf("group through another map: %d", s.Status)
	}
	if s := e.Do("GET", fmt.Sprintf("%s/%d", packPath(e.OtherCampaign, mid, "map_groups"), pid), e.Admin, nil); s.Status != 404 {
		t.Fatalf("group through another campaign: %d", s.Status)
	}
	if s := e.Do("POST", layers, e.Viewer, layer(pic, "v")); s.Status != 403 {
		t.Fatalf("viewer writes a layer: %d", s.Status)
	}
	// A private map hides its layers and groups from non-admins.
	if r := e.Do("PATCH", mapPath(e.Campaign, mid), e.Admin, map[string]any{"is_private": true}); r.Status != 200 {
		t.Fatalf("privatise: %d", r.Status)
	}
	if s := e.Do("GET", layers, e.Member, nil); s.Status != 404 {
		t.Fatalf("layers of a private map: %d", s.Status)
	}
	audit(t, e, e.Campaign)
}

func TestPackCaps(t *testing.T) {
	t.Parallel()
	e, pic := withImages(t)
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "World"})
	layers := packPath(e.Campaign, mid, "map_layers")
	for i := 0; i < domain.MaxMapLayers; i++ {
		if r := e.Do("POST", layers, e.Admin, layer(pic, fmt.Sprintf("l%d", i))); r.Status != 200 {
			t.Fatalf("layer %d: %d %s", i, r.Status, r.Raw)
		}
	}
	if r := e.Do("POST", layers, e.Admin, layer(pic, "one too many")); r.Status != 422 || r.Errors()["name"] == nil {
		t.Fatalf("21st layer: %d %s", r.Status, r.Raw)
	}
	// Groups nest at most MaxGroupDepth levels.
	groups := packPath(e.Campaign, mid, "map_groups")
	var parent any
	for i := 0; i < domain.MaxGroupDepth; i++ {
		r := e.Do("POST", groups, e.Admin, map[string]any{"name": fmt.Sprintf("g%d", i), "parent_id": parent})
		if r.Status != 200 {
			t.Fatalf("group %d: %d %s", i, r.Status, r.Raw)
		}
		parent = r.Data()["id"]
	}
	if r := e.Do("POST", groups, e.Admin, map[string]any{"name": "too deep", "parent_id": parent}); r.Status != 422 || r.Errors()["parent_id"] == nil {
		t.Fatalf("11th level: %d %s", r.Status, r.Raw)
	}
}

// TestConcurrentGroupWrites: concurrent creates all land (the pack's version makes them
// retry, never lose one), and two moves that would close a cycle never both win.
func TestConcurrentGroupWrites(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "World"})
	groups := packPath(e.Campaign, mid, "map_groups")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := e.Do("POST", groups, e.Admin, map[string]any{"name": fmt.Sprintf("g%d", i)}); r.Status != 200 && r.Status != 409 {
				t.Errorf("create: %d %s", r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	l := e.Do("GET", groups, e.Admin, nil)
	created := len(l.List())
	if created < 1 {
		t.Fatalf("no group landed: %s", l.Raw)
	}
	a := create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_groups", mid), map[string]any{"name": "a"})
	b := create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_groups", mid), map[string]any{"name": "b"})
	for round := 0; round < 5; round++ {
		var sa, sb int
		wg.Add(2)
		go func() {
			defer wg.Done()
			sa = e.Do("PATCH", fmt.Sprintf("%s/%d", groups, a), e.Admin, map[string]any{"parent_id": b}).Status
		}()
		go func() {
			defer wg.Done()
			sb = e.Do("PATCH", fmt.Sprintf("%s/%d", groups, b), e.Admin, map[string]any{"parent_id": a}).Status
		}()
		wg.Wait()
		if sa == 200 && sb == 200 {
			t.Fatalf("round %d: both moves won: a cycle", round)
		}
		// Undo for the next round.
		e.Do("PATCH", fmt.Sprintf("%s/%d", groups, a), e.Admin, map[string]any{"parent_id": nil})
		e.Do("PATCH", fmt.Sprintf("%s/%d", groups, b), e.Admin, map[string]any{"parent_id": nil})
	}
	audit(t, e, e.Campaign)
}

// TestPackRoundTrips: a pack route reads the map, its packs and the access in one round trip;
// a write adds the pack's consistent read and one transaction of 2 items.
func TestPackRoundTrips(t *testing.T) {
	t.Parallel()
	e, pic := withImages(t)
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "World"})
	layers := packPath(e.Campaign, mid, "map_layers")
	groups := packPath(e.Campaign, mid, "map_groups")
	id := int64(e.Do("POST", layers, e.Admin, layer(pic, "roads")).Data()["id"].(float64))
	for _, c := range []struct {
		name, method, path string
		body               any
		max                int64
	}{
		{"list", "GET", layers, nil, 1},
		{"show", "GET", fmt.Sprintf("%s/%d", layers, id), nil, 1},
		{"map show with its packs", "GET", mapPath(e.Campaign, mid), nil, 1},
		{"maps list page with packs", "GET", apitest.Path(e.Campaign, "/maps"), nil, 3},
		{"create", "POST", layers, layer(pic, "rivers"), 4}, // the picture's reservation besides
		{"update", "PATCH", fmt.Sprintf("%s/%d", layers, id), map[string]any{"position": 2}, 3},
		{"update with a new picture", "PATCH", fmt.Sprintf("%s/%d", layers, id), layer(pic, "roads"), 4},
		{"delete", "DELETE", fmt.Sprintf("%s/%d", layers, id), nil, 3},
		{"groups list", "GET", groups, nil, 1},
		{"group create", "POST", groups, map[string]any{"name": "Towns"}, 3},
		{"group show", "GET", groups + "/1", nil, 1},
		{"group update", "PATCH", groups + "/1", map[string]any{"position": 2}, 3},
		{"group delete", "DELETE", groups + "/1", nil, 3},
		{"layers deleted=1", "GET", layers + "?deleted=1", nil, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			if r := e.Do(c.method, c.path, e.Admin, c.body); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := e.Counter.N(); n > c.max || n == 0 {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
		})
	}
}
