package maps_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func markersPath(cid, mid int64) string {
	return apitest.Path(cid, fmt.Sprintf("/maps/%d/map_markers", mid))
}

func markerPath(cid, mid, id int64) string { return fmt.Sprintf("%s/%d", markersPath(cid, mid), id) }

func pin(name string) map[string]any {
	return map[string]any{"name": name, "latitude": 10, "longitude": 20, "shape_id": 1, "icon": 1}
}

func TestMarkerCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "World"})
	loc := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Saltmarsh"})
	locEntity := int64(e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", loc)), e.Admin, nil).Data()["entity_id"].(float64))
	r := e.Do("POST", markersPath(e.Campaign, mid), e.Admin, map[string]any{
		"name": "<b>Marsh</b>", "latitude": "422.8574", "longitude": 499, "shape_id": 4, "icon": "1",
		"custom_shape": "500,500 500,600, 600,600\r\n600.1234,500", "colour": "#0F0", "font_colour": "",
		"polygon_style": map[string]any{"stroke": "00ff00", "stroke-width": 2, "stroke-opacity": 80},
		"custom_icon":   `<i class="fa-solid fa-tree" onclick="x()"></i>`,
		"entry":         fmt.Sprintf("<p>See [location:%d]</p><script>x</script>", locEntity), "visibility": "members",
		"entity_id": locEntity, "map_id": 999, "is_private": true, "size_id": 3, "opacity": 80,
	})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	d := r.Data()
	for k, want := range map[string]any{"name": "<b>Marsh</b>", "map_id": float64(mid), "latitude": "422.857", "longitude": "499.000",
		"shape_id": float64(5), "icon": "1", "custom_shape": "500,500 500,600 600,600 600.123,500", "colour": "#00ff00",
		"font_colour": nil, "visibility": "member", "visibility_id": float64(5), "entity_id": float64(locEntity),
		"is_private": false, "size_id": float64(3), "opacity": float64(80), "group_id": nil, "is_draggable": false} {
		if fmt.Sprint(d[k]) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", k, d[k], want)
		}
	}
	if ps := d["polygon_style"].(map[string]any); ps["stroke"] != "#00ff00" || ps["stroke-width"] != float64(2) {
		t.Errorf("polygon_style = %v", ps)
	}
	if icon := d["custom_icon"].(string); icon != `<i class="fa-solid fa-tree"></i>` {
		t.Errorf("custom_icon = %q", icon)
	}
	if !strings.Contains(d["entry_parsed"].(string), "Saltmarsh") || strings.Contains(d["entry"].(string), "script") {
		t.Errorf("entry %q, entry_parsed %q", d["entry"], d["entry_parsed"])
	}
	id := int64(d["id"].(float64))
	if s := e.Do("GET", markerPath(e.Campaign, mid, id), e.Member, nil); s.Status != 200 || s.Data()["latitude"] != "422.857" {
		t.Fatalf("member show: %d %s", s.Status, s.Raw)
	}
	sync := e.Do("GET", markersPath(e.Campaign, mid), e.Admin, nil).Body["sync"].(string)
	u := e.Do("PATCH", markerPath(e.Campaign, mid, id), e.Admin, map[string]any{"latitude": -1.5, "shape_id": 1, "custom_shape": nil, "entity_id": nil})
	if u.Status != 200 || u.Data()["latitude"] != "-1.500" || u.Data()["custom_shape"] != nil || u.Data()["entity_id"] != nil {
		t.Fatalf("update: %d %s", u.Status, u.Raw)
	}
	if s := e.Do("GET", markersPath(e.Campaign, mid)+"?lastSync="+sync, e.Admin, nil); s.Status != 200 || len(s.List()) != 1 {
		t.Fatalf("lastSync: %d %s", s.Status, s.Raw)
	}
	other := create(t, e, e.Campaign, e.Admin, markersPath(e.Campaign, mid)[len(apitest.Path(e.Campaign, "")):], pin("Other"))
	if l := e.Do("GET", markersPath(e.Campaign, mid)+"?name=oth", e.Admin, nil); l.Status != 200 || len(l.List()) != 1 {
		t.Fatalf("name filter: %d %s", l.Status, l.Raw)
	}
	if del := e.Do("DELETE", markerPath(e.Campaign, mid, id), e.Admin, nil); del.Status != 200 {
		t.Fatalf("delete: %d %s", del.Status, del.Raw)
	}
	if s := e.Do("GET", markerPath(e.Campaign, mid, id), e.Admin, nil); s.Status != 404 {
		t.Fatalf("deleted marker: %d", s.Status)
	}
	gone := e.Do("GET", markersPath(e.Campaign, mid)+"?deleted=1", e.Member, nil)
	if gone.Status != 200 || len(gone.List()) != 1 || gone.List()[0].(map[string]any)["id"] != float64(id) {
		t.Fatalf("?deleted=1: %d %s", gone.Status, gone.Raw)
	}
	audit(t, e, e.Campaign)
	// The map's trash takes its markers; recovery brings them back.
	eid := int64(e.Do("GET", mapPath(e.Campaign, mid), e.Admin, nil).Data()["entity_id"].(float64))
	if del := e.Do("DELETE", mapPath(e.Campaign, mid), e.Admin, nil); del.Status != 200 {
		t.Fatalf("delete map: %d %s", del.Status, del.Raw)
	}
	for _, p := range []string{markersPath(e.Campaign, mid), markerPath(e.Campaign, mid, other)} {
		if s := e.Do("GET", p, e.Admin, nil); s.Status != 404 {
			t.Fatalf("%s of a trashed map: %d %s", p, s.Status, s.Raw)
		}
	}
	if c := e.Do("POST", markersPath(e.Campaign, mid), e.Admin, pin("Late")); c.Status != 404 {
		t.Fatalf("create on a trashed map: %d %s", c.Status, c.Raw)
	}
	audit(t, e, e.Campaign)
	if rec := e.Do("POST", apitest.Path(e.Campaign, "/recover"), e.Admin, map[string]any{"entities": []any{eid}}); rec.Status != 200 {
		t.Fatalf("recover: %d %s", rec.Status, rec.Raw)
	}
	if s := e.Do("GET", markerPath(e.Campaign, mid, other), e.Admin, nil); s.Status != 200 || s.Data()["name"] != "Other" {
		t.Fatalf("restored marker: %d %s", s.Status, s.Raw)
	}
	audit(t, e, e.Campaign)
}

func TestMarkerValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "World"})
	real := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Earth", "is_real": true})
	for i := 0; i < 10; i++ { // their entity ids run past ours
		create(t, e, e.OtherCampaign, e.Stranger, "/locations", map[string]any{"name": "Filler"})
	}
	theirs := create(t, e, e.OtherCampaign, e.Stranger, "/locations", map[string]any{"name": "Theirs"})
	theirEntity := int64(e.Do("GET", apitest.Path(e.OtherCampaign, fmt.Sprintf("/locations/%d", theirs)), e.Stranger, nil).Data()["entity_id"].(float64))
	hidden := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Hidden", "is_private": true})
	hiddenEntity := int64(e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", hidden)), e.Admin, nil).Data()["entity_id"].(float64))
	with := func(k string, v any) map[string]any { b := pin("x"); b[k] = v; return b }
	without := func(k string) map[string]any { b := pin("x"); delete(b, k); return b }
	points := func(n int) string {
		var p []string
		for i := 0; i < n; i++ {
			p = append(p, fmt.Sprintf("%d,%d", i, i))
		}
		return strings.Join(p, " ")
	}
	poly := func(shape string) map[string]any { b := with("shape_id", 5); b["custom_shape"] = shape; return b }
	cases := []struct {
		name  string
		mid   int64
		body  map[string]any
		field string
	}{
		{"no name nor entity", mid, without("name"), "name"},
		{"no latitude", mid, without("latitude"), "latitude"},
		{"no shape", mid, without("shape_id"), "shape_id"},
		{"no icon", mid, without("icon"), "icon"},
		{"latitude NaN", mid, with("latitude", "NaN"), "latitude"},
		{"latitude Infinity", mid, with("latitude", "Infinity"), "latitude"},
		{"latitude exponent", mid, with("latitude", "1e5"), "latitude"},
		{"latitude 10,000,000", mid, with("latitude", 10000000), "latitude"},
		{"latitude an object", mid, with("latitude", map[string]any{}), "latitude"},
		{"latitude 91 on a real map", real, with("latitude", 91), "latitude"},
		{"longitude 181 on a real map", real, with("longitude", -181), "longitude"},
		{"shape 6", mid, with("shape_id", 6), "shape_id"},
		{"icon 6", mid, with("icon", 6), "icon"},
		{"opacity 101", mid, with("opacity", 101), "opacity"},
		{"size 0", mid, with("size_id", 0), "size_id"},
		{"pin size 5", mid, with("pin_size", 5), "pin_size"},
		{"radius 0", mid, with("circle_radius", 0), "circle_radius"},
		{"colour red", mid, with("colour", "red"), "colour"},
		{"colour #12345", mid, with("colour", "#12345"), "colour"},
		{"style unknown key", mid, with("polygon_style", map[string]any{"fill": "#000000"}), "polygon_style"},
		{"style width 0", mid, with("polygon_style", map[string]any{"stroke-width": 0}), "polygon_style"},
		{"style not an object", mid, with("polygon_style", "x"), "polygon_style"},
		{"custom icon too long", mid, with("custom_icon", strings.Repeat("a", 1001)), "custom_icon"},
		{"custom icon svg", mid, with("custom_icon", `<svg onload="alert(1)"></svg>`), "custom_icon"},
		{"custom icon script", mid, with("custom_icon", `<i class="fa"></i><script>x</script>`), "custom_icon"},
		{"custom icon class quote", mid, with("custom_icon", `fa-x" onload="y`), "custom_icon"},
		{"polygon without shape", mid, with("shape_id", 5), "custom_shape"},
		{"polygon of 2 points", mid, poly("1,1 2,2"), "custom_shape"},
		{"polygon of 1,001 points", mid, poly(points(1001)), "custom_shape"},
		{"polygon over 32 KiB", mid, poly(strings.Repeat(" ", 33*1024) + "1,1 2,2 3,3"), "custom_shape"},
		{"polygon point of 3 numbers", mid, poly("1,2,3 4,5 6,7"), "custom_shape"},
		{"polygon exponent", mid, poly("1e5,2 4,5 6,7"), "custom_shape"},
		{"polygon NaN", mid, poly("NaN,2 4,5 6,7"), "custom_shape"},
		{"polygon off a real map", real, poly("1,2 4,5 100,7"), "custom_shape"},
		{"entity of another campaign", mid, with("entity_id", theirEntity), "entity_id"},
		{"entity missing", mid, with("entity_id", 999999), "entity_id"},
		{"unknown visibility", mid, with("visibility", "friends"), "visibility"},
		{"is_draggable not a boolean", mid, with("is_draggable", "maybe"), "is_draggable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", markersPath(e.Campaign, c.mid), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	// A member may not link a private entity: it is as missing.
	if r := e.Do("POST", markersPath(e.Campaign, mid), e.Member, with("entity_id", hiddenEntity)); r.Status != 422 || r.Errors()["entity_id"] == nil {
		t.Fatalf("hidden entity: %d %s", r.Status, r.Raw)
	}
	// Kanka's own strings come back as sent: 1,000 points fit.
	if r := e.Do("POST", markersPath(e.Campaign, mid), e.Admin, poly(points(1000))); r.Status != 200 || r.Data()["custom_shape"] != points(1000) {
		t.Fatalf("1,000 points: %d", r.Status)
	}
	// Nothing was stored by a refused write.
	if l := e.Do("GET", markersPath(e.Campaign, mid), e.Admin, nil); l.Body["meta"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("total after refused writes: %s", l.Raw)
	}
	audit(t, e, e.Campaign)
}

// TestMarkerAccess: every role against markers of each visibility, of a private map, of
// another map, and linked to a private entity.
func TestMarkerAccess(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	ctx := context.Background()
	_ = ctx
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Open"})
	hiddenMap := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Hidden", "is_private": true})
	secret := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Secret", "is_private": true})
	secretEntity := int64(e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", secret)), e.Admin, nil).Data()["entity_id"].(float64))
	ids := map[string]int64{}
	for _, v := range []string{"all", "members", "admin", "self", "admin-self"} {
		b := pin(v)
		b["visibility"] = v
		ids[v] = create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", mid), b)
	}
	// The 2021 name and today's id of the same visibility.
	b := pin("members by id")
	b["visibility_id"] = 5
	ids["members by id"] = create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", mid), b)
	b = pin("linked")
	b["entity_id"] = secretEntity
	ids["linked"] = create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", mid), b)
	b = pin("own")
	b["visibility"] = "self"
	ids["member's own"] = create(t, e, e.Campaign, e.Member, fmt.Sprintf("/maps/%d/map_markers", mid), b)
	inHidden := create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", hiddenMap), pin("in hidden map"))
	cases := []struct {
		name    string
		token   string
		visible []string
	}{
		{"admin", e.Admin, []string{"all", "members", "admin", "self", "admin-self", "members by id", "linked"}},
		{"member", e.Member, []string{"all", "members", "members by id", "member's own"}},
		{"viewer", e.Viewer, []string{"all", "members", "members by id"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := e.Do("GET", markersPath(e.Campaign, mid), c.token, nil)
			if l.Status != 200 || len(l.List()) != len(c.visible) || l.Body["meta"].(map[string]any)["total"] != float64(len(c.visible)) {
				t.Fatalf("list: %d %s, want %v", l.Status, l.Raw, c.visible)
			}
			for name, id := range ids {
				want := 404
				for _, v := range c.visible {
					if v == name {
						want = 200
					}
				}
				if s := e.Do("GET", markerPath(e.Campaign, mid, id), c.token, nil); s.Status != want {
					t.Errorf("show %s: %d, want %d", name, s.Status, want)
				}
			}
			wantHidden := 404
			if c.token == e.Admin {
				wantHidden = 200
			}
			if s := e.Do("GET", markerPath(e.Campaign, hiddenMap, inHidden), c.token, nil); s.Status != wantHidden {
				t.Errorf("marker of a private map: %d, want %d", s.Status, wantHidden)
			}
			// Another map's marker under this map's path is not there.
			if s := e.Do("GET", markerPath(e.Campaign, mid, inHidden), c.token, nil); s.Status != 404 {
				t.Errorf("another map's marker: %d", s.Status)
			}
		})
	}
	// Writes: a viewer may not write; an outsider sees nothing; a member may not touch the
	// admin's hidden markers; another map's marker cannot be written through this map.
	for _, w := range []struct {
		name, method, path, token string
		want                      int
	}{
		{"viewer create", "POST", markersPath(e.Campaign, mid), e.Viewer, 403},
		{"viewer update", "PATCH", markerPath(e.Campaign, mid, ids["all"]), e.Viewer, 403},
		{"outsider list", "GET", markersPath(e.Campaign, mid), e.Outsider, 404},
		{"outsider create", "POST", markersPath(e.Campaign, mid), e.Outsider, 404},
		{"member update admin's", "PATCH", markerPath(e.Campaign, mid, ids["admin"]), e.Member, 404},
		{"member delete linked", "DELETE", markerPath(e.Campaign, mid, ids["linked"]), e.Member, 404},
		{"member create in hidden map", "POST", markersPath(e.Campaign, hiddenMap), e.Member, 404},
		{"admin update through another map", "PATCH", markerPath(e.Campaign, hiddenMap, ids["all"]), e.Admin, 404},
		{"admin delete through another campaign", "DELETE", markerPath(e.OtherCampaign, mid, ids["all"]), e.Admin, 404},
	} {
		if r := e.Do(w.method, w.path, w.token, pin("changed")); r.Status != w.want {
			t.Errorf("%s: %d %s, want %d", w.name, r.Status, r.Raw, w.want)
		}
	}
	if s := e.Do("GET", markerPath(e.Campaign, mid, ids["all"]), e.Admin, nil); s.Data()["name"] != "all" {
		t.Fatalf("a refused write changed the marker: %s", s.Raw)
	}
	// The public campaign's outsider reads public maps' markers of visibility all only.
	pm := create(t, e, e.PublicCampaign, e.Admin, "/maps", map[string]any{"name": "Public"})
	create(t, e, e.PublicCampaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", pm), pin("open"))
	mb := pin("members")
	mb["visibility"] = "members"
	create(t, e, e.PublicCampaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", pm), mb)
	if l := e.Do("GET", markersPath(e.PublicCampaign, pm), e.Outsider, nil); l.Status != 200 || len(l.List()) != 1 {
		t.Fatalf("public reader: %d %s", l.Status, l.Raw)
	}
	audit(t, e, e.Campaign)
	audit(t, e, e.PublicCampaign)
}

// TestMarkerRoundTrips: a show is one round trip (the map, its marker and the access read
// together), a page two, a write one transaction after its reads; items evaluated grow with
// the page, not with the map.
func TestMarkerRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Budget"})
	loc := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Town"})
	locEntity := int64(e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", loc)), e.Admin, nil).Data()["entity_id"].(float64))
	var id int64
	for i := 0; i < 60; i++ {
		id = create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", mid), pin(fmt.Sprintf("Pin %d", i)))
	}
	linked := pin("Linked")
	linked["entity_id"] = locEntity
	centre := create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", mid), pin("Centre"))
	if r := e.Do("PATCH", mapPath(e.Campaign, mid), e.Admin, map[string]any{"center_marker_id": centre}); r.Status != 200 {
		t.Fatalf("centre: %d %s", r.Status, r.Raw)
	}
	since := e.Do("GET", markersPath(e.Campaign, mid), e.Admin, nil).Body["sync"].(string)
	cases := []struct {
		name         string
		method, path string
		body         any
		max          int64
	}{
		{"show", "GET", markerPath(e.Campaign, mid, id), nil, 1},
		{"list page 1", "GET", markersPath(e.Campaign, mid) + "?limit=10", nil, 2},
		{"list page 2", "GET", markersPath(e.Campaign, mid) + "?limit=10&page=2", nil, 3},
		{"create", "POST", markersPath(e.Campaign, mid), pin("New"), 4},
		{"create linked", "POST", markersPath(e.Campaign, mid), linked, 5},
		{"update", "PATCH", markerPath(e.Campaign, mid, id), map[string]any{"latitude": 5}, 3},
		{"list lastSync", "GET", markersPath(e.Campaign, mid) + "?limit=10&lastSync=" + since, nil, 4},
		{"list deleted=1", "GET", markersPath(e.Campaign, mid) + "?deleted=1", nil, 3},
		{"update of the map's centre", "PATCH", markerPath(e.Campaign, mid, centre), map[string]any{"visibility": "members"}, 3},
		{"delete", "DELETE", markerPath(e.Campaign, mid, id), nil, 3},
		{"delete of the map's centre", "DELETE", markerPath(e.Campaign, mid, centre), nil, 3},
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
			if c.method == "GET" && strings.Contains(c.path, "limit=10") {
				if got := e.Counter.Fetched(); got > 2*(10+1)+6 {
					t.Fatalf("%d items evaluated for a page of 10", got)
				}
			}
		})
	}
}
