package maps_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestMapCentre: center_marker_id names a marker of this map the writer may see (else a 422
// naming it, nothing written); it is answered to readers who may see that marker, follows the
// marker's placement, and a delete of the marker clears it in the marker's transaction.
func TestMapCentre(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	mid := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "World"})
	other := create(t, e, e.Campaign, e.Admin, "/maps", map[string]any{"name": "Elsewhere"})
	markers := fmt.Sprintf("/maps/%d/map_markers", mid)
	open := create(t, e, e.Campaign, e.Admin, markers, pin("Open"))
	adminOnly := pin("Admins")
	adminOnly["visibility_id"] = 2
	hidden := create(t, e, e.Campaign, e.Admin, markers, adminOnly)
	mine := pin("Member's own")
	mine["visibility"] = "self"
	own := create(t, e, e.Campaign, e.Member, markers, mine)
	foreign := create(t, e, e.Campaign, e.Admin, fmt.Sprintf("/maps/%d/map_markers", other), pin("Foreign"))

	if r := e.Do("POST", apitest.Path(e.Campaign, "/maps"), e.Admin, map[string]any{"name": "New", "center_marker_id": open}); r.Status != 422 || r.Errors()["center_marker_id"] == nil {
		t.Fatalf("create with a centre: %d %s", r.Status, r.Raw)
	}
	bad := []struct {
		name  string
		token string
		v     any
	}{
		{"another map's marker", e.Admin, foreign},
		{"no such marker", e.Admin, 99999},
		{"a string", e.Admin, "abc"},
		{"negative", e.Admin, -1},
		{"huge", e.Admin, 1e300},
		{"admins' marker by a member", e.Member, hidden},
		{"a member's own marker by an admin", e.Admin, own},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("PATCH", mapPath(e.Campaign, mid), c.token, map[string]any{"center_marker_id": c.v, "name": "Changed"})
			if r.Status != 422 || r.Errors()["center_marker_id"] == nil {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if s := e.Do("GET", mapPath(e.Campaign, mid), e.Admin, nil).Data(); s["name"] != "World" || s["center_marker_id"] != nil {
				t.Fatalf("changed by a refused write: %v", s)
			}
		})
	}
	centre := func(token string) any {
		return e.Do("GET", mapPath(e.Campaign, mid), token, nil).Data()["center_marker_id"]
	}
	steps := []struct {
		name                  string
		do                    func() apitest.Response
		admin, member, viewer any
	}{
		{"open marker", func() apitest.Response {
			return e.Do("PATCH", mapPath(e.Campaign, mid), e.Admin, map[string]any{"center_marker_id": open})
		}, float64(open), float64(open), float64(open)},
		{"admins' marker", func() apitest.Response {
			return e.Do("PATCH", mapPath(e.Campaign, mid), e.Admin, map[string]any{"center_marker_id": hidden})
		}, float64(hidden), nil, nil},
		{"the marker is made visible to all", func() apitest.Response {
			return e.Do("PATCH", apitest.Path(e.Campaign, fmt.Sprintf("%s/%d", markers, hidden)), e.Admin, map[string]any{"visibility": "all"})
		}, float64(hidden), float64(hidden), float64(hidden)},
		{"a member's own marker by that member", func() apitest.Response {
			return e.Do("PATCH", mapPath(e.Campaign, mid), e.Member, map[string]any{"center_marker_id": own})
		}, nil, float64(own), nil},
		{"its deletion clears it", func() apitest.Response {
			return e.Do("DELETE", apitest.Path(e.Campaign, fmt.Sprintf("%s/%d", markers, own)), e.Member, nil)
		}, nil, nil, nil},
		{"null clears it", func() apitest.Response {
			if r := e.Do("PATCH", mapPath(e.Campaign, mid), e.Admin, map[string]any{"center_marker_id": open}); r.Status != 200 {
				return r
			}
			return e.Do("PATCH", mapPath(e.Campaign, mid), e.Admin, map[string]any{"center_marker_id": nil})
		}, nil, nil, nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if r := s.do(); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			for _, c := range []struct {
				who   string
				token string
				want  any
			}{{"admin", e.Admin, s.admin}, {"member", e.Member, s.member}, {"viewer", e.Viewer, s.viewer}} {
				if got := centre(c.token); fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("%s reads center_marker_id %v, want %v", c.who, got, c.want)
				}
			}
			audit(t, e, e.Campaign)
		})
	}
	// The centre marker's delete is one transaction with the map's change: 3 calls as any delete.
	if r := e.Do("PATCH", mapPath(e.Campaign, mid), e.Admin, map[string]any{"center_marker_id": hidden}); r.Status != 200 {
		t.Fatalf("centre: %d %s", r.Status, r.Raw)
	}
	e.Counter.Reset()
	if r := e.Do("DELETE", apitest.Path(e.Campaign, fmt.Sprintf("%s/%d", markers, hidden)), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if n := e.Counter.N(); n > 3 {
		t.Fatalf("centre delete: %d DynamoDB calls, budget 3", n)
	}
	if got := centre(e.Admin); got != nil {
		t.Fatalf("centre after its delete: %v", got)
	}
	audit(t, e, e.Campaign)
}
