package maps_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/maps"
	"github.com/lorekeep/lorekeep/shared/maps/mapstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// register mounts maps, locations (their location_id) and the entities routes (maps among the
// entities, search, recovery).
func register(api *httpapi.API, st *store.Store) {
	maps.Register(api, st)
	locations.Register(api, st)
	entities.Register(api, st)
}

func create(t *testing.T, e *apitest.Env, cid int64, token, path string, body map[string]any) int64 {
	t.Helper()
	r := e.Do("POST", apitest.Path(cid, path), token, body)
	if r.Status != 200 {
		t.Fatalf("create %v: %d %s", body, r.Status, r.Raw)
	}
	return int64(r.Data()["id"].(float64))
}

func mapPath(cid, id int64) string { return apitest.Path(cid, fmt.Sprintf("/maps/%d", id)) }

func audit(t *testing.T, e *apitest.Env, cid int64) {
	t.Helper()
	if problems, err := ops.Audit(context.Background(), e.Store, cid); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
}

func TestMapCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	ctx := context.Background()
	loc := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Saltmarsh"})
	r := e.Do("POST", apitest.Path(e.Campaign, "/maps"), e.Admin, map[string]any{
		"name": " Pelor's Reach ", "type": "Continent", "entry": "<p>Big <script>x</script>land</p>",
		"location_id": loc, "grid": "25", "min_zoom": -3, "max_zoom": "4.5", "initial_zoom": 1.004,
		"center_x": 499, "center_y": "422.8575", "config": map[string]any{"distance_measure": 2, "unit": "km"},
		"width": 99, // read-only: the picture's size
	})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	d := r.Data()
	for k, want := range map[string]any{"name": "Pelor's Reach", "type": "Continent", "location_id": float64(loc), "map_id": nil,
		"grid": float64(25), "min_zoom": float64(-3), "max_zoom": 4.5, "initial_zoom": float64(1), "center_x": float64(499),
		"center_y": 422.858, "is_real": false, "width": nil, "height": nil, "center_marker_id": nil,
		"image_full": "", "has_custom_image": false} {
		if fmt.Sprint(d[k]) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", k, d[k], want)
		}
	}
	if cfg, _ := d["config"].(map[string]any); cfg["unit"] != "km" || cfg["distance_measure"] != float64(2) {
		t.Errorf("config = %v", d["config"])
	}
	if strings.Contains(d["entry"].(string), "script") {
		t.Errorf("entry not sanitised: %v", d["entry"])
	}
	if fmt.Sprint(d["layers"], d["groups"]) != "[] []" {
		t.Errorf("layers, groups = %v %v, want empty arrays", d["layers"], d["groups"])
	}
	id, eid := int64(d["id"].(float64)), int64(d["entity_id"].(float64))
	child := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Keep", "parent_id": eid}) // today's name: the entity id
	if got, _ := mapstore.New(e.Store).GetMap(ctx, e.Campaign, child); got == nil || got.ParentID == nil || *got.ParentID != id {
		t.Fatalf("stored child = %+v", got)
	}
	// The entity is a map entity, listed among the entities and found by search.
	ent := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d", eid)), e.Admin, nil)
	if ent.Status != 200 || ent.Data()["type"] != "map" || ent.Data()["child_id"] != float64(id) {
		t.Fatalf("entity: %d %s", ent.Status, ent.Raw)
	}
	for _, q := range []string{"/entities?types=map", "/entities?type_id[]=17"} {
		if l := e.Do("GET", apitest.Path(e.Campaign, q), e.Admin, nil); l.Status != 200 || len(l.List()) != 2 {
			t.Fatalf("%s: %d %s", q, l.Status, l.Raw)
		}
	}
	if s := e.Do("GET", apitest.Path(e.Campaign, "/search/pelor"), e.Admin, nil); s.Status != 200 || len(s.List()) != 1 {
		t.Fatalf("search: %d %s", s.Status, s.Raw)
	}
	if l := e.Do("GET", apitest.Path(e.Campaign, "/maps?name=keep"), e.Admin, nil); l.Status != 200 || len(l.List()) != 1 {
		t.Fatalf("name filter: %d %s", l.Status, l.Raw)
	}
	if rel := e.Do("GET", mapPath(e.Campaign, id)+"?related=1", e.Admin, nil); rel.Status != 200 || rel.Data()["posts"] == nil {
		t.Fatalf("related=1: %d %s", rel.Status, rel.Raw)
	}
	// Update: cleared zooms answer Kanka's defaults; a real map's defaults differ.
	u := e.Do("PATCH", mapPath(e.Campaign, id), e.Admin, map[string]any{"min_zoom": nil, "max_zoom": nil, "initial_zoom": nil, "location_id": nil})
	if u.Status != 200 || u.Data()["min_zoom"] != float64(-2) || u.Data()["max_zoom"] != 2.75 || u.Data()["initial_zoom"] != float64(0) || u.Data()["location_id"] != nil {
		t.Fatalf("update: %d %s", u.Status, u.Raw)
	}
	u = e.Do("PATCH", mapPath(e.Campaign, id), e.Admin, map[string]any{"is_real": true, "center_x": 12.5, "center_y": -45})
	if u.Status != 200 || u.Data()["min_zoom"] != float64(2) || u.Data()["max_zoom"] != float64(15) || u.Data()["initial_zoom"] != float64(12) {
		t.Fatalf("real map: %d %s", u.Status, u.Raw)
	}
	audit(t, e, e.Campaign)
	// Delete (to the trash): the child becomes a root; recovery brings the parent link back.
	if del := e.Do("DELETE", mapPath(e.Campaign, id), e.Admin, nil); del.Status != 200 {
		t.Fatalf("delete: %d %s", del.Status, del.Raw)
	}
	if _, err := mapstore.New(e.Store).GetMap(ctx, e.Campaign, id); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("deleted map: %v", err)
	}
	if got, _ := mapstore.New(e.Store).GetMap(ctx, e.Campaign, child); got == nil || got.ParentID != nil {
		t.Fatalf("orphaned child = %+v, want a root", got)
	}
	gone := e.Do("GET", apitest.Path(e.Campaign, "/maps?deleted=1"), e.Admin, nil)
	if gone.Status != 200 || len(gone.List()) != 1 || gone.List()[0].(map[string]any)["id"] != float64(id) {
		t.Fatalf("?deleted=1: %d %s", gone.Status, gone.Raw)
	}
	audit(t, e, e.Campaign)
	if rec := e.Do("POST", apitest.Path(e.Campaign, "/recover"), e.Admin, map[string]any{"entities": []any{eid}}); rec.Status != 200 {
		t.Fatalf("recover: %d %s", rec.Status, rec.Raw)
	}
	if got, err := mapstore.New(e.Store).GetMap(ctx, e.Campaign, id); err != nil || got.Name != "Pelor's Reach" || !got.IsReal {
		t.Fatalf("restored map = %+v, %v", got, err)
	}
	if got, _ := mapstore.New(e.Store).GetMap(ctx, e.Campaign, child); got == nil || got.ParentID == nil || *got.ParentID != id {
		t.Fatalf("restored parent's child = %+v, want under %d", got, id)
	}
	audit(t, e, e.Campaign)
}

func TestMapValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	parent := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Parent"})
	theirs := create(t, e, e.OtherCampaign, e.Stranger, "/maps", map[string]any{"name": "Theirs"})
	theirLoc := create(t, e, e.OtherCampaign, e.Stranger, "/locations", map[string]any{"name": "Their town"})
	for i := 0; i < 3; i++ { // their ids run past ours
		create(t, e, e.OtherCampaign, e.Stranger, "/maps", map[string]any{"name": "Filler"})
		create(t, e, e.OtherCampaign, e.Stranger, "/locations", map[string]any{"name": "Filler"})
	}
	hidden := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Hidden", "is_private": true})
	hiddenLoc := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Hidden town", "is_private": true})
	locEntity := int64(e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", hiddenLoc)), e.Admin, nil).Data()["entity_id"].(float64))
	big := map[string]any{}
	for i := 0; i < 21; i++ {
		big[fmt.Sprintf("k%d", i)] = i
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no name", map[string]any{"type": "x"}, "name"},
		{"name too long", map[string]any{"name": strings.Repeat("n", 192)}, "name"},
		{"name not a string", map[string]any{"name": 12}, "name"},
		{"parent not a number", map[string]any{"name": "x", "map_id": "abc"}, "map_id"},
		{"parent huge", map[string]any{"name": "x", "map_id": 1e300}, "map_id"},
		{"parent missing", map[string]any{"name": "x", "map_id": 999999}, "map_id"},
		{"parent of another campaign", map[string]any{"name": "x", "map_id": theirs + 3}, "map_id"},
		{"parent_id not a map's entity", map[string]any{"name": "x", "parent_id": 999999}, "parent_id"},
		{"parent_id a location's entity", map[string]any{"name": "x", "parent_id": locEntity}, "parent_id"},
		{"parent_id not a number", map[string]any{"name": "x", "parent_id": "x"}, "parent_id"},
		{"location missing", map[string]any{"name": "x", "location_id": 999999}, "location_id"},
		{"location of another campaign", map[string]any{"name": "x", "location_id": theirLoc + 1}, "location_id"},
		{"location a map's id", map[string]any{"name": "x", "location_id": "x1"}, "location_id"},
		{"grid negative", map[string]any{"name": "x", "grid": -1}, "grid"},
		{"grid huge", map[string]any{"name": "x", "grid": 100001}, "grid"},
		{"grid fractional", map[string]any{"name": "x", "grid": 1.5}, "grid"},
		{"zoom 16", map[string]any{"name": "x", "max_zoom": 16}, "max_zoom"},
		{"max zoom 0", map[string]any{"name": "x", "max_zoom": 0}, "max_zoom"},
		{"min zoom -11", map[string]any{"name": "x", "min_zoom": -11}, "min_zoom"},
		{"min above max", map[string]any{"name": "x", "min_zoom": 5, "max_zoom": 4}, "min_zoom"},
		{"zoom exponent", map[string]any{"name": "x", "initial_zoom": "1e1"}, "initial_zoom"},
		{"zoom NaN", map[string]any{"name": "x", "initial_zoom": "NaN"}, "initial_zoom"},
		{"zoom Infinity", map[string]any{"name": "x", "initial_zoom": "Infinity"}, "initial_zoom"},
		{"zoom a boolean", map[string]any{"name": "x", "initial_zoom": true}, "initial_zoom"},
		{"centre 10,000,000", map[string]any{"name": "x", "center_x": 10000000}, "center_x"},
		{"centre long digits", map[string]any{"name": "x", "center_y": strings.Repeat("9", 400)}, "center_y"},
		{"real map latitude 91", map[string]any{"name": "x", "is_real": true, "center_y": 91}, "center_y"},
		{"real map longitude 181", map[string]any{"name": "x", "is_real": true, "center_x": -181}, "center_x"},
		{"is_real not a boolean", map[string]any{"name": "x", "is_real": "maybe"}, "is_real"},
		{"config a string", map[string]any{"name": "x", "config": "{}"}, "config"},
		{"config nested", map[string]any{"name": "x", "config": map[string]any{"a": map[string]any{"b": 1}}}, "config"},
		{"config array value", map[string]any{"name": "x", "config": map[string]any{"a": []any{1}}}, "config"},
		{"config too many keys", map[string]any{"name": "x", "config": big}, "config"},
		{"config too big", map[string]any{"name": "x", "config": map[string]any{"a": strings.Repeat("é", 191), "b": strings.Repeat("é", 191),
			"c": strings.Repeat("é", 191), "d": strings.Repeat("é", 191), "e": strings.Repeat("é", 191), "f": strings.Repeat("é", 191)}}, "config"},
		{"config distance not positive", map[string]any{"name": "x", "config": map[string]any{"distance_measure": -1}}, "config"},
		{"config long key", map[string]any{"name": "x", "config": map[string]any{strings.Repeat("k", 65): 1}}, "config"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", apitest.Path(e.Campaign, "/maps"), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	// A member may not see a private parent or location: they are as missing.
	for field, id := range map[string]int64{"map_id": hidden, "location_id": hiddenLoc} {
		if r := e.Do("POST", apitest.Path(e.Campaign, "/maps"), e.Member, map[string]any{"name": "x", field: id}); r.Status != 422 || r.Errors()[field] == nil {
			t.Fatalf("hidden %s: %d %s", field, r.Status, r.Raw)
		}
	}
	// Cycles: a map under itself or under its own descendant.
	child := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Child", "map_id": parent})
	grandchild := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Grandchild", "map_id": child})
	for name, target := range map[string]int64{"itself": parent, "its grandchild": grandchild} {
		t.Run("cycle "+name, func(t *testing.T) {
			r := e.Do("PATCH", mapPath(e.Campaign, parent), e.Admin, map[string]any{"map_id": target})
			if r.Status != 422 || r.Errors()["map_id"] == nil {
				t.Fatalf("got %d %s, want 422 naming map_id", r.Status, r.Raw)
			}
		})
	}
	// Nothing was stored by a refused write: the admin's total is what was created.
	if l := e.Do("GET", apitest.Path(e.Campaign, "/maps"), e.Admin, nil); l.Body["meta"].(map[string]any)["total"] != float64(4) {
		t.Fatalf("total after refused writes: %s", l.Raw)
	}
	if p, _ := mapstore.New(e.Store).GetMap(context.Background(), e.Campaign, parent); p.ParentID != nil || p.Version != 1 {
		t.Fatalf("a refused write changed the map: %+v", p)
	}
	audit(t, e, e.Campaign)
}

// TestMapAccessMatrix checks every role against public and private maps, in a private and a
// public campaign, and what a refused write leaves behind.
func TestMapAccessMatrix(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	e.OwnerAccessMatrix(t, apitest.AccessMatrix{
		Collection: "/maps",
		Create: func(t *testing.T, cid int64, body map[string]any) int64 {
			return create(t, e, cid, e.Admin, "/maps", body)
		},
		StoredName: func(ctx context.Context, cid, id int64) (string, error) {
			r, err := mapstore.New(e.Store).GetMap(ctx, cid, id)
			if err != nil {
				return "", err
			}
			return r.Name, nil
		},
		After: func(t *testing.T, _ int, cid, _, _ int64) { audit(t, e, cid) },
	})
	// Only admins make a map private.
	if r := e.Do("POST", apitest.Path(e.Campaign, "/maps"), e.Member, map[string]any{"name": "Secret", "is_private": true}); r.Status != 403 {
		t.Fatalf("member creates a private map: %d %s", r.Status, r.Raw)
	}
}

// TestPrivateParentAndLocationAreHidden: a non-admin sees a public map under a private one as a
// root and without its private location; the parent's privacy change re-places the child's
// public copy in its own write, and a member writing back what it read keeps both.
func TestPrivateParentAndLocationAreHidden(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	parent := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Parent"})
	loc := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Town", "is_private": true})
	child := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Child", "map_id": parent, "location_id": loc})
	shown := func(tok string) (any, any) {
		t.Helper()
		r := e.Do("GET", mapPath(e.Campaign, child), tok, nil)
		if r.Status != 200 {
			t.Fatalf("show child: %d %s", r.Status, r.Raw)
		}
		return r.Data()["map_id"], r.Data()["location_id"]
	}
	if p, l := shown(e.Member); p != float64(parent) || l != nil {
		t.Fatalf("member sees parent %v location %v, want %d and none", p, l, parent)
	}
	if r := e.Do("PATCH", mapPath(e.Campaign, parent), e.Admin, map[string]any{"is_private": true}); r.Status != 200 {
		t.Fatalf("privatise parent: %d %s", r.Status, r.Raw)
	}
	if p, l := shown(e.Member); p != nil || l != nil {
		t.Fatalf("member sees private parent %v, location %v", p, l)
	}
	if p, l := shown(e.Admin); p != float64(parent) || l != float64(loc) {
		t.Fatalf("admin sees parent %v location %v", p, l)
	}
	l := e.Do("GET", apitest.Path(e.Campaign, "/maps"), e.Member, nil)
	if len(l.List()) != 1 || l.List()[0].(map[string]any)["map_id"] != nil || l.List()[0].(map[string]any)["location_id"] != nil {
		t.Fatalf("member's list: %s", l.Raw)
	}
	if r := e.Do("PUT", mapPath(e.Campaign, child), e.Member, map[string]any{"name": "Child", "map_id": nil, "location_id": nil}); r.Status != 200 {
		t.Fatalf("member update: %d %s", r.Status, r.Raw)
	}
	if got, _ := mapstore.New(e.Store).GetMap(context.Background(), e.Campaign, child); got.ParentID == nil || *got.ParentID != parent || got.LocationID == nil || *got.LocationID != loc {
		t.Fatalf("member's write dropped the hidden parent or location: %+v", got)
	}
	// A location deleted under a map: the next write clears it, as Kanka's foreign key does.
	if r := e.Do("DELETE", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", loc)), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete location: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("PATCH", mapPath(e.Campaign, child), e.Admin, map[string]any{"type": "Region"}); r.Status != 200 || r.Data()["location_id"] != nil {
		t.Fatalf("write after the location's delete: %d %s", r.Status, r.Raw)
	}
	audit(t, e, e.Campaign)
}

func TestMapDepthIsBounded(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	prev := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Root"})
	for i := 1; i < domain.MaxLocationDepth; i++ {
		prev = create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": fmt.Sprintf("Level %d", i), "map_id": prev})
	}
	leaf := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Leaf"})
	r := e.Do("PATCH", mapPath(e.Campaign, leaf), e.Admin, map[string]any{"map_id": prev})
	if r.Status != 422 || r.Errors()["map_id"] == nil {
		t.Fatalf("too deep: %d %s", r.Status, r.Raw)
	}
}

// TestMapSyncAndPages: lastSync reports changes since, pages follow one another.
func TestMapSyncAndPages(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	var ids []int64
	for i := 0; i < 5; i++ {
		ids = append(ids, create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": fmt.Sprintf("Map %d", i)}))
	}
	p2 := e.Do("GET", apitest.Path(e.Campaign, "/maps?limit=2&page=2"), e.Admin, nil)
	if p2.Status != 200 || len(p2.List()) != 2 || p2.List()[0].(map[string]any)["id"] != float64(ids[2]) {
		t.Fatalf("page 2: %d %s", p2.Status, p2.Raw)
	}
	sync := e.Do("GET", apitest.Path(e.Campaign, "/maps"), e.Admin, nil).Body["sync"].(string)
	if r := e.Do("PATCH", mapPath(e.Campaign, ids[3]), e.Admin, map[string]any{"grid": 10}); r.Status != 200 {
		t.Fatalf("update: %d %s", r.Status, r.Raw)
	}
	s := e.Do("GET", apitest.Path(e.Campaign, "/maps?lastSync="+sync), e.Admin, nil)
	if s.Status != 200 || len(s.List()) != 1 || s.List()[0].(map[string]any)["id"] != float64(ids[3]) {
		t.Fatalf("lastSync: %d %s", s.Status, s.Raw)
	}
}

// TestMapRoundTrips holds map routes to DESIGN 3's budgets: a show is one round trip after the
// access read (read ahead), a list page two, a write one transaction after its reads.
func TestMapRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	loc := create(t, e, e.Campaign, e.Admin, "/locations", map[string]any{"name": "Town"})
	id := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Budget"})
	for i := 0; i < 50; i++ {
		create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": fmt.Sprintf("Filler %d", i)})
	}
	centre := create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", id), pin("Centre"))
	since := e.Do("GET", apitest.Path(e.Campaign, "/maps"), e.Admin, nil).Body["sync"].(string)
	gone := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Gone"})
	if r := e.Do("DELETE", mapPath(e.Campaign, gone), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	cases := []struct {
		name         string
		method, path string
		body         any
		max          int64
	}{
		{"show", "GET", mapPath(e.Campaign, id), nil, 1},
		// A page adds one BatchGetItem of its rows' layers and groups.
		{"list page 1", "GET", apitest.Path(e.Campaign, "/maps?limit=10"), nil, 3},
		{"list page 2", "GET", apitest.Path(e.Campaign, "/maps?limit=10&page=2"), nil, 4},
		{"create", "POST", apitest.Path(e.Campaign, "/maps"), map[string]any{"name": "New"}, 5},
		{"create under a parent, with a location", "POST", apitest.Path(e.Campaign, "/maps"), map[string]any{"name": "Sub", "map_id": id, "location_id": loc}, 7},
		{"update", "PATCH", mapPath(e.Campaign, id), map[string]any{"type": "Keep"}, 4},
		{"update naming a centre", "PATCH", mapPath(e.Campaign, id), map[string]any{"center_marker_id": centre}, 3},
		{"list related=1", "GET", apitest.Path(e.Campaign, "/maps?limit=10&related=1"), nil, 5},
		{"list by name", "GET", apitest.Path(e.Campaign, "/maps?limit=10&name=filler%201"), nil, 4},
		{"list lastSync", "GET", apitest.Path(e.Campaign, "/maps?limit=10&lastSync="+since), nil, 4},
		{"list deleted=1", "GET", apitest.Path(e.Campaign, "/maps?deleted=1"), nil, 2},
		{"entities types=map", "GET", apitest.Path(e.Campaign, "/entities?types=map&limit=10"), nil, 3},
		{"delete", "DELETE", mapPath(e.Campaign, id), nil, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do(c.method, c.path, e.Admin, c.body)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			t.Logf("%d DynamoDB calls, %d items fetched", e.Counter.N(), e.Counter.Fetched())
			if n := e.Counter.N(); n > c.max || n == 0 {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
			if c.method == "GET" && c.path != mapPath(e.Campaign, id) {
				if got := e.Counter.Fetched(); got > 10+2+1+100+2*10 {
					t.Fatalf("%d items evaluated for a page of 10", got)
				}
			}
		})
	}
}
