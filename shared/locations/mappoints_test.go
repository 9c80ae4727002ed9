package locations_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func validPoint() map[string]any {
	return map[string]any{"name": "Gate", "axis_x": 10, "axis_y": -20, "colour": "blue", "shape": "circle", "size": "standard", "icon": "pin"}
}

func with(m map[string]any, kv ...any) map[string]any {
	c := map[string]any{}
	for k, v := range m {
		c[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(c, kv[i].(string))
			continue
		}
		c[kv[i].(string)] = kv[i+1]
	}
	return c
}

func TestMapPointsLifecycle(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	l := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Harbour"})
	target := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Lighthouse"})
	targetEntity := e.Do("GET", loc(e.Campaign, target), e.Admin, nil).Data()["entity_id"]
	base := loc(e.Campaign, l) + "/map_points"

	r := e.Do("POST", base, e.Member, validPoint())
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	d := r.Data()
	for k, v := range map[string]any{"name": "Gate", "axis_x": float64(10), "axis_y": float64(-20), "colour": "blue", "shape": "circle", "size": "standard", "icon": "pin", "location_id": float64(l), "target_entity_id": nil} {
		if d[k] != v {
			t.Errorf("%s = %v, want %v", k, d[k], v)
		}
	}
	id := int64(d["id"].(float64))
	one := fmt.Sprintf("%s/%d", base, id)

	r = e.Do("PATCH", one, e.Member, map[string]any{"target_entity_id": targetEntity, "size": "large"})
	if r.Status != 200 || r.Data()["name"] != nil || r.Data()["target_entity_id"] != targetEntity || r.Data()["size"] != "large" || r.Data()["axis_x"] != float64(10) {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	r = e.Do("PUT", one, e.Member, map[string]any{"axis_y": "7"})
	if r.Status != 200 || r.Data()["axis_y"] != float64(7) {
		t.Fatalf("put: %d %s", r.Status, r.Raw)
	}
	e.Do("POST", base, e.Admin, with(validPoint(), "name", "Second"))
	list := e.Do("GET", base, e.Viewer, nil)
	if list.Status != 200 || len(list.List()) != 2 || list.Body["meta"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("list: %d %s", list.Status, list.Raw)
	}
	if r := e.Do("GET", one, e.Viewer, nil); r.Status != 200 || r.Data()["id"] != float64(id) {
		t.Fatalf("show: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("DELETE", one, e.Viewer, nil); r.Status != 403 {
		t.Fatalf("viewer delete: %d", r.Status)
	}
	if r := e.Do("DELETE", one, e.Member, nil); r.Status != 200 || r.Data()["deleted"] != true {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", one, e.Admin, nil); r.Status != 404 {
		t.Fatalf("deleted point: %d", r.Status)
	}
	if r := e.Do("GET", base, e.Admin, nil); r.Body["meta"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("total after delete: %s", r.Raw)
	}
}

func TestBadMapPointInputIsRefusedWithTheFieldNamed(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	l := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Harbour"})
	hidden := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Vault", "is_private": true})
	hiddenEntity := e.Do("GET", loc(e.Campaign, hidden), e.Admin, nil).Data()["entity_id"]
	base := loc(e.Campaign, l) + "/map_points"
	cases := []struct {
		name  string
		token string
		body  map[string]any
		field string
	}{
		{"neither name nor target", e.Admin, with(validPoint(), "name", nil), "name"},
		{"missing axis_x", e.Admin, with(validPoint(), "axis_x", nil), "axis_x"},
		{"axis_y not an integer", e.Admin, with(validPoint(), "axis_y", 1.5), "axis_y"},
		{"axis_x huge", e.Admin, with(validPoint(), "axis_x", 1e12), "axis_x"},
		{"bad colour", e.Admin, with(validPoint(), "colour", "purple"), "colour"},
		{"bad hex colour", e.Admin, with(validPoint(), "colour", "#12345"), "colour"},
		{"bad shape", e.Admin, with(validPoint(), "shape", "triangle"), "shape"},
		{"bad size", e.Admin, with(validPoint(), "size", "huge"), "size"},
		{"bad icon", e.Admin, with(validPoint(), "icon", "<svg>"), "icon"},
		{"missing icon", e.Admin, with(validPoint(), "icon", nil), "icon"},
		{"name too long", e.Admin, with(validPoint(), "name", strings.Repeat("n", 192)), "name"},
		{"unknown target entity", e.Admin, with(validPoint(), "target_entity_id", 9999), "target_entity_id"},
		{"target entity hidden from a member", e.Member, with(validPoint(), "target_entity_id", hiddenEntity), "target_entity_id"},
		{"target entity not an id", e.Admin, with(validPoint(), "target_entity_id", "abc"), "target_entity_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", base, c.token, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if r := e.Do("GET", base, e.Admin, nil); len(r.List()) != 0 {
		t.Fatalf("refused creates stored points: %s", r.Raw)
	}
	// An update may omit required fields but not clear them.
	p := e.Do("POST", base, e.Admin, validPoint())
	one := fmt.Sprintf("%s/%v", base, p.Data()["id"])
	if r := e.Do("PATCH", one, e.Admin, map[string]any{"colour": nil}); r.Status != 422 || r.Errors()["colour"] == nil {
		t.Fatalf("clearing colour: %d %s", r.Status, r.Raw)
	}
	stored, _ := locstore.New(e.Store).GetMapPoint(context.Background(), e.Campaign, l, int64(p.Data()["id"].(float64)))
	if stored.Colour != "blue" {
		t.Fatalf("refused update stored colour %q", stored.Colour)
	}
}

func TestMapPointsFollowTheirLocationsVisibility(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	private := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Vault", "is_private": true})
	privateMap := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Secret map", "is_map_private": true})
	for _, l := range []int64{private, privateMap} {
		base := loc(e.Campaign, l) + "/map_points"
		p := e.Do("POST", base, e.Admin, validPoint())
		if p.Status != 200 {
			t.Fatal(p.Status)
		}
		one := fmt.Sprintf("%s/%v", base, p.Data()["id"])
		for _, c := range []struct{ method, path string }{{"GET", base}, {"POST", base}, {"GET", one}, {"PATCH", one}, {"DELETE", one}} {
			if r := e.Do(c.method, c.path, e.Member, validPoint()); r.Status != 404 {
				t.Errorf("member %s %s: %d, want 404", c.method, c.path, r.Status)
			}
		}
		if r := e.Do("GET", one, e.Admin, nil); r.Status != 200 {
			t.Errorf("admin: %d", r.Status)
		}
	}
}
