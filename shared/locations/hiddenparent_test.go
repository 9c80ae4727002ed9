package locations_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A location the caller may see, under a parent it may not, shows no parent (as a root does),
// and filtering by the hidden parent answers as filtering by a missing one.
func TestAVisibleChildDoesNotRevealItsHiddenParent(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	hidden := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Vault", "is_private": true})
	open := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Town"})
	child := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Door", "parent_location_id": hidden})
	sibling := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Square", "parent_location_id": open})
	list := apitest.Path(e.Campaign, "/locations")

	parents := func(token string) map[any]any {
		out := map[any]any{}
		for _, row := range e.Do("GET", list, token, nil).List() {
			m := row.(map[string]any)
			out[m["id"]] = m["parent_location_id"]
		}
		return out
	}
	for _, c := range []struct {
		name, token string
		want        any // the child's parent_location_id
	}{
		{"admin", e.Admin, float64(hidden)},
		{"member", e.Member, nil},
		{"viewer", e.Viewer, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			show := e.Do("GET", loc(e.Campaign, child), c.token, nil).Data()
			if show["parent_location_id"] != c.want || show["location_id"] != c.want {
				t.Errorf("show: parent_location_id %v location_id %v, want %v", show["parent_location_id"], show["location_id"], c.want)
			}
			ps := parents(c.token)
			if ps[float64(child)] != c.want || ps[float64(sibling)] != float64(open) {
				t.Errorf("list: child's parent %v (want %v), sibling's %v (want %d)", ps[float64(child)], c.want, ps[float64(sibling)], open)
			}
		})
	}
	// A member's write answers with the same rule.
	if r := e.Do("PATCH", loc(e.Campaign, child), e.Member, map[string]any{"type": "Gate"}); r.Status != 200 || r.Data()["parent_location_id"] != nil {
		t.Fatalf("member's update answer: %d %v", r.Status, r.Data()["parent_location_id"])
	}
	// Writing back the null it was shown keeps the hidden parent; under a visible parent, null
	// still makes a root.
	if r := e.Do("PUT", loc(e.Campaign, child), e.Member, map[string]any{"name": "Door", "parent_location_id": nil}); r.Status != 200 || r.Data()["parent_location_id"] != nil {
		t.Fatalf("member's write-back: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", loc(e.Campaign, child), e.Admin, nil); r.Data()["parent_location_id"] != float64(hidden) {
		t.Fatalf("the stored parent changed: %s", r.Raw)
	}
	if r := e.Do("PATCH", loc(e.Campaign, sibling), e.Member, map[string]any{"parent_location_id": nil}); r.Status != 200 || r.Data()["parent_location_id"] != nil {
		t.Fatalf("member detaches from a visible parent: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", loc(e.Campaign, sibling), e.Admin, nil); r.Data()["parent_location_id"] != nil {
		t.Fatalf("detached sibling: %s", r.Raw)
	}

	missing := e.Do("GET", list+"?parent_location_id=999999", e.Member, nil)
	byHidden := e.Do("GET", list+fmt.Sprintf("?parent_location_id=%d", hidden), e.Member, nil)
	if byHidden.Status != missing.Status || len(byHidden.List()) != len(missing.List()) || fmt.Sprint(byHidden.Body["meta"].(map[string]any)["total"]) != fmt.Sprint(missing.Body["meta"].(map[string]any)["total"]) {
		t.Fatalf("filter by a hidden parent: %d %s; by a missing one: %d %s", byHidden.Status, byHidden.Raw, missing.Status, missing.Raw)
	}
	if r := e.Do("GET", list+fmt.Sprintf("?parent_location_id=%d", hidden), e.Admin, nil); len(r.List()) != 1 {
		t.Fatalf("an admin filters by the private parent: %s", r.Raw)
	}
}
