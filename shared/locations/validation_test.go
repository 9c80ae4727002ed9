package locations_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func total(t *testing.T, e *apitest.Env, cid int64) float64 {
	t.Helper()
	r := e.Do("GET", apitest.Path(cid, "/locations"), e.Admin, nil)
	return r.Body["meta"].(map[string]any)["total"].(float64)
}

func TestBadLocationInputIsRefusedWithTheFieldNamed(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	p := apitest.Path(e.Campaign, "/locations")
	cases := []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"missing name", map[string]any{"type": "City"}, 422, "name"},
		{"empty name", map[string]any{"name": ""}, 422, "name"},
		{"blank name", map[string]any{"name": "   "}, 422, "name"},
		{"null name", map[string]any{"name": nil}, 422, "name"},
		{"192-character name", map[string]any{"name": strings.Repeat("a", 192)}, 422, "name"},
		{"name is a number", map[string]any{"name": 12}, 422, "name"},
		{"name is an object", map[string]any{"name": map[string]any{"a": 1}}, 422, "name"},
		{"is_private is a word", map[string]any{"name": "A", "is_private": "maybe"}, 422, "is_private"},
		{"parent is a string", map[string]any{"name": "A", "parent_location_id": "north"}, 422, "parent_location_id"},
		{"parent is fractional", map[string]any{"name": "A", "parent_location_id": 1.5}, 422, "parent_location_id"},
		{"parent is huge", map[string]any{"name": "A", "parent_location_id": 1e300}, 422, "parent_location_id"},
		{"parent is negative", map[string]any{"name": "A", "parent_location_id": -3}, 422, "parent_location_id"},
		{"parent does not exist", map[string]any{"name": "A", "parent_location_id": 999}, 422, "parent_location_id"},
		{"alias parent does not exist", map[string]any{"name": "A", "location_id": 999}, 422, "location_id"},
		{"tags not an array", map[string]any{"name": "A", "tags": 5}, 422, "tags"},
		{"tag not an id", map[string]any{"name": "A", "tags": []any{1, "x"}}, 422, "tags.1"},
		{"too many tags", map[string]any{"name": "A", "tags": make([]int, 101)}, 422, "tags"},
		{"image_url not a URL", map[string]any{"name": "A", "image_url": "javascript:alert(1)"}, 422, "image_url"},
		{"map_url not a URL", map[string]any{"name": "A", "map_url": "not a url"}, 422, "map_url"},
		{"gallery image needs superboost", map[string]any{"name": "A", "entity_image_uuid": "0b0e6a4e-6a43-4d5c-a2a1-5f3b2c1d0e9f"}, 422, "entity_image_uuid"},
		{"entry too large", map[string]any{"name": "A", "entry": strings.Repeat("x", domain.MaxEntryLength+1)}, 422, "entry"},
		{"malformed JSON", `{"name": "A",`, 422, "body"},
		{"JSON array body", `[{"name": "A"}]`, 422, "body"},
		{"two JSON objects", `{"name": "A"} {"name": "B"}`, 422, "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", p, e.Admin, c.body)
			if r.Status != c.status || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want %d naming %q", r.Status, r.Raw, c.status, c.field)
			}
			if msg, _ := r.Body["message"].(string); msg == "" || !strings.HasPrefix(msg, "The ") {
				t.Fatalf("message %q is not a Laravel-style sentence", msg)
			}
		})
	}
	t.Run("every failing field is named at once", func(t *testing.T) {
		r := e.Do("POST", p, e.Admin, map[string]any{"is_private": "x", "tags": "y"})
		for _, f := range []string{"name", "is_private", "tags"} {
			if r.Errors()[f] == nil {
				t.Errorf("%s not named: %s", f, r.Raw)
			}
		}
		if r.Body["message"] != "The is private field must be true or false." && r.Body["message"] != "The tags must be an array." && r.Body["message"] != "The name field is required." {
			t.Errorf("message is not the first error: %s", r.Raw)
		}
	})
	t.Run("2 MiB body", func(t *testing.T) {
		r := e.Do("POST", p, e.Admin, `{"name":"`+strings.Repeat("a", 2<<20)+`"}`)
		if r.Status != 413 || r.Body["message"] != "The request body must not be larger than 1 MiB (a multipart form with an image file: 4.25 MiB)." {
			t.Fatalf("got %d %s, want 413 naming the 1 MiB limit", r.Status, r.Raw)
		}
	})
	t.Run("body that is neither JSON nor a form", func(t *testing.T) {
		r := e.DoRaw("POST", p, e.Admin, "text/plain", strings.NewReader("name=A"))
		if r.Status != 415 {
			t.Fatalf("got %d %s, want 415", r.Status, r.Raw)
		}
	})
	if n := total(t, e, e.Campaign); n != 0 {
		t.Fatalf("refused creates stored %v locations", n)
	}
}

func TestFormBodiesAndLenientTypesAreAccepted(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	e.EnsureTags(e.Campaign, 7)
	p := apitest.Path(e.Campaign, "/locations")
	form := url.Values{"name": {"Neverwinter"}, "tags[]": {"4", "2"}, "is_private": {"0"}, "type": {""}}
	r := e.DoRaw("POST", p, e.Admin, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if r.Status != 200 || r.Data()["name"] != "Neverwinter" || fmt.Sprint(r.Data()["tags"]) != "[4 2]" || r.Data()["is_private"] != false {
		t.Fatalf("form create: %d %s", r.Status, r.Raw)
	}
	r = e.Do("POST", p, e.Admin, map[string]any{"name": "Luskan", "is_private": "TRUE", "tags": []any{"7"}, "parent_location_id": "1"})
	if r.Status != 200 || r.Data()["is_private"] != true || r.Data()["parent_location_id"] != float64(1) || r.Data()["location_id"] != float64(1) {
		t.Fatalf("lenient JSON: %d %s", r.Status, r.Raw)
	}
	// Read-only and unknown fields are ignored, never a 422.
	r = e.Do("POST", p, e.Admin, map[string]any{"name": "Ignored", "id": 77, "entity_id": 99, "created_by": 5, "colour": "red"})
	if r.Status != 200 || r.Data()["id"] == float64(77) || r.Data()["entity_id"] == float64(99) || r.Data()["created_by"] != float64(e.AdminID) {
		t.Fatalf("read-only fields: %d %s", r.Status, r.Raw)
	}
}

func TestCreateStoresEveryFieldAndUpdateMergesPartially(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	e.EnsureTags(e.Campaign, 7)
	p := apitest.Path(e.Campaign, "/locations")
	parent := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Sword Coast"})
	r := e.Do("POST", p, e.Admin, map[string]any{
		"name": "Baldur's Gate", "entry": `<p>A <b>port</b> <a href="javascript:alert(1)">city</a><img src=x onerror=alert(1)></p>`,
		"type": "City", "parent_location_id": parent, "tags": []int{5, 3, 5}, "is_private": true,
		"map_url": "https://img.example/bg-map.png", "is_map_private": 1,
	})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	d := r.Data()
	want := map[string]any{
		"name": "Baldur's Gate", "type": "City", "parent_location_id": float64(parent), "location_id": float64(parent),
		"is_private": true, "image": "", "image_full": "",
		"has_custom_image": false, "map": "https://img.example/bg-map.png", "is_map_private": float64(1),
		"created_by": float64(e.AdminID), "updated_by": float64(e.AdminID),
	}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %v, want %v", k, d[k], v)
		}
	}
	if fmt.Sprint(d["tags"]) != "[5 3]" {
		t.Errorf("tags = %v, want [5 3] (duplicates dropped)", d["tags"])
	}
	if entry := d["entry"].(string); strings.Contains(entry, "javascript") || strings.Contains(entry, "onerror") || !strings.Contains(entry, "<b>port</b>") {
		t.Errorf("entry not sanitised or formatting lost: %q", entry)
	}
	for _, k := range []string{"created_at", "updated_at"} {
		if s, _ := d[k].(string); len(s) != len("2019-01-30T00:01:44.000000Z") || !strings.HasSuffix(s, "Z") {
			t.Errorf("%s = %q, want six fraction digits and Z", k, s)
		}
	}
	id := int64(d["id"].(float64))
	if d["entity_id"] == nil || d["entity_id"].(float64) < 1 {
		t.Errorf("no entity id: %v", d["entity_id"])
	}

	r = e.Do("PATCH", loc(e.Campaign, id), e.Member2, map[string]any{"type": "Metropolis"})
	if r.Status != 404 {
		t.Fatalf("member patched a private location: %d", r.Status)
	}
	r = e.Do("PATCH", loc(e.Campaign, id), e.Admin, map[string]any{"type": "Metropolis", "location_id": nil})
	if r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	d = r.Data()
	if d["type"] != "Metropolis" || d["name"] != "Baldur's Gate" || d["parent_location_id"] != nil || fmt.Sprint(d["tags"]) != "[5 3]" || d["map"] != "https://img.example/bg-map.png" {
		t.Fatalf("partial update lost or kept the wrong fields: %s", r.Raw)
	}
	if d["updated_at"] == d["created_at"] {
		t.Errorf("updated_at did not move")
	}
	stored, _ := locstore.New(e.Store).GetLocation(context.Background(), e.Campaign, id)
	if stored.Type != "Metropolis" || stored.ParentID != nil || stored.Version != 2 {
		t.Fatalf("stored: %+v", stored)
	}
	// Name may not be cleared by an update, and a refused update stores nothing.
	r = e.Do("PUT", loc(e.Campaign, id), e.Admin, map[string]any{"name": "", "type": "Ruin"})
	if r.Status != 422 || r.Errors()["name"] == nil {
		t.Fatalf("clearing name: %d %s", r.Status, r.Raw)
	}
	if stored, _ := locstore.New(e.Store).GetLocation(context.Background(), e.Campaign, id); stored.Type != "Metropolis" {
		t.Fatalf("refused update stored type %q", stored.Type)
	}
	// A private map is the admins' business.
	open := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Open map", "map_url": "https://img.example/m.png", "is_map_private": true})
	if r := e.Do("GET", loc(e.Campaign, open), e.Member, nil); r.Data()["map"] != "" || r.Data()["is_map_private"] != float64(1) {
		t.Fatalf("member sees a private map: %s", r.Raw)
	}
}

func TestGalleryImagesNeedASuperboostedCampaign(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	c, err := campstore.New(e.Store).CreateCampaign(context.Background(), domain.Campaign{Name: "Boosted", OwnerID: e.AdminID, Boost: domain.BoostSuperboosted})
	if err != nil {
		t.Fatal(err)
	}
	uuid := "0B0E6A4E-6A43-4D5C-A2A1-5F3B2C1D0E9F"
	r := e.Do("POST", apitest.Path(c.ID, "/locations"), e.Admin, map[string]any{"name": "A", "entity_image_uuid": uuid, "entity_header_uuid": "nope"})
	if r.Status != 422 || r.Errors()["entity_header_uuid"] == nil || r.Errors()["entity_image_uuid"] != nil {
		t.Fatalf("bad header uuid: %d %s", r.Status, r.Raw)
	}
	r = e.Do("POST", apitest.Path(c.ID, "/locations"), e.Admin, map[string]any{"name": "A", "entity_image_uuid": uuid})
	if r.Status != 200 || r.Data()["entity_image_uuid"] != strings.ToLower(uuid) {
		t.Fatalf("superboosted: %d %s", r.Status, r.Raw)
	}
}

func TestParentsMustBeVisibleAndAcyclic(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	a := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "A"})
	b := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "B", "parent_location_id": a})
	c := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "C", "location_id": b})
	hidden := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Hidden", "is_private": true})
	cases := []struct {
		name  string
		id    int64
		token string
		body  map[string]any
		field string
	}{
		{"self-parent", a, e.Admin, map[string]any{"parent_location_id": a}, "parent_location_id"},
		{"direct cycle", a, e.Admin, map[string]any{"parent_location_id": b}, "parent_location_id"},
		{"deep cycle", a, e.Admin, map[string]any{"location_id": c}, "location_id"},
		{"parent hidden from a member", c, e.Member, map[string]any{"parent_location_id": hidden}, "parent_location_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do("PATCH", loc(e.Campaign, tc.id), tc.token, tc.body)
			if r.Status != 422 || r.Errors()[tc.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, tc.field)
			}
		})
	}
	if l, _ := locstore.New(e.Store).GetLocation(context.Background(), e.Campaign, a); l.ParentID != nil {
		t.Fatalf("a refused move was stored: parent %v", *l.ParentID)
	}
	// Moving a subtree under a sibling is fine; an admin may use a private parent.
	if r := e.Do("PATCH", loc(e.Campaign, c), e.Admin, map[string]any{"parent_location_id": hidden}); r.Status != 200 {
		t.Fatalf("admin, private parent: %d %s", r.Status, r.Raw)
	}
	// Filtering by parent.
	r := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations?parent_location_id=%d", a)), e.Admin, nil)
	if len(r.List()) != 1 || r.List()[0].(map[string]any)["name"] != "B" {
		t.Fatalf("children of A: %s", r.Raw)
	}
}

func TestDeleteMakesChildrenRootsAndRemovesEntityAndMapPoints(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	ctx := context.Background()
	a := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "A"})
	b := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "B", "parent_location_id": a})
	c := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "C", "parent_location_id": a})
	point := e.Do("POST", loc(e.Campaign, a)+"/map_points", e.Admin, map[string]any{"name": "Gate", "axis_x": 5, "axis_y": 6, "colour": "#A0B0C0", "shape": "square", "size": "large", "icon": "tower-2"})
	if point.Status != 200 || point.Data()["colour"] != "#a0b0c0" {
		t.Fatalf("map point: %d %s", point.Status, point.Raw)
	}
	before, _ := locstore.New(e.Store).GetLocation(ctx, e.Campaign, b)
	entity := before.EntityID
	aLoc, _ := locstore.New(e.Store).GetLocation(ctx, e.Campaign, a)

	r := e.Do("DELETE", loc(e.Campaign, a), e.Member, nil)
	if r.Status != 200 || r.Data()["deleted"] != true || r.Data()["id"] != float64(a) {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	for _, id := range []int64{b, c} {
		l, err := locstore.New(e.Store).GetLocation(ctx, e.Campaign, id)
		if err != nil || l.ParentID != nil || l.Version != 2 {
			t.Fatalf("child %d not made a root: %+v %v", id, l, err)
		}
	}
	if _, err := e.Store.GetEntity(ctx, e.Campaign, aLoc.EntityID); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("entity of deleted location: %v", err)
	}
	if _, err := e.Store.GetEntity(ctx, e.Campaign, entity); err != nil {
		t.Fatalf("child's entity went too: %v", err)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d/map_points/%d", a, int64(point.Data()["id"].(float64)))), e.Admin, nil); r.Status != 404 {
		t.Fatalf("map point of a trashed location: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", loc(e.Campaign, a), e.Admin, nil); r.Status != 404 {
		t.Fatalf("deleted location readable: %d", r.Status)
	}
	if r := e.Do("DELETE", loc(e.Campaign, a), e.Admin, nil); r.Status != 404 {
		t.Fatalf("second delete: %d", r.Status)
	}
	if n := total(t, e, e.Campaign); n != 2 {
		t.Fatalf("total after delete: %v", n)
	}
}
