package relations_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/relations"
	"github.com/lorekeep/lorekeep/shared/relations/relstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func register(api *httpapi.API, st *store.Store) {
	locations.Register(api, st)
	relations.Register(api, st)
}

// place makes a location and returns it (its entity id is EntityID).
func place(t *testing.T, e *apitest.Env, cid int64, name string, private bool) domain.Location {
	t.Helper()
	l := domain.Location{Meta: domain.Meta{CampaignID: cid, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: name, IsPrivate: private}}
	if err := locstore.New(e.Store).CreateLocation(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func rels(cid, eid int64) string {
	return apitest.Path(cid, fmt.Sprintf("/entities/%d/relations", eid))
}
func one(cid, eid, id int64) string {
	return apitest.Path(cid, fmt.Sprintf("/entities/%d/relations/%d", eid, id))
}

func create(t *testing.T, e *apitest.Env, cid, eid int64, token string, body map[string]any) map[string]any {
	t.Helper()
	r := e.Do("POST", rels(cid, eid), token, body)
	if r.Status != 200 {
		t.Fatalf("create relation %v: %d %s", body, r.Status, r.Raw)
	}
	return r.Data()
}

func id(m map[string]any) int64 { return int64(m["id"].(float64)) }

// audit requires the campaign's stored state to be consistent.
func audit(t *testing.T, e *apitest.Env, cid int64) {
	t.Helper()
	problems, err := ops.Audit(context.Background(), e.Store, cid)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error("audit: " + p)
	}
}

func TestVisibilityMatrix(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	var target int64
	apitest.VisibilityMatrix(t, e, apitest.Family{
		Entity: func(t *testing.T, cid int64) int64 {
			target = place(t, e, cid, "Target", false).EntityID
			return place(t, e, cid, "Owner", false).EntityID
		},
		Collection: rels,
		Body: func(vis string) map[string]any {
			return map[string]any{"target_id": target, "relation": "Ally " + vis, "visibility": vis}
		},
		Exists: func(cid, eid, id int64) bool {
			_, _, err := relstore.New(e.Store).GetRelationAndEntity(context.Background(), cid, eid, id)
			return err == nil
		},
	})
	audit(t, e, e.Campaign)
	audit(t, e, e.PublicCampaign)
}

func TestFieldsOfBothEras(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	a, b := place(t, e, e.Campaign, "A", false), place(t, e, e.Campaign, "B", false)
	cases := []struct {
		name string
		body map[string]any
		want map[string]any
	}{
		{"today", map[string]any{"target_id": b.EntityID, "relation": "Rival", "attitude": -40, "colour": "#AA0000", "is_pinned": true, "visibility_id": 5, "owner_id": 999},
			map[string]any{"owner_id": a.EntityID, "target_id": b.EntityID, "relation": "Rival", "attitude": -40, "colour": "#aa0000",
				"is_pinned": true, "is_star": true, "visibility": "member", "visibility_id": 5, "mirror_id": nil}},
		{"2022", map[string]any{"target_id": b.EntityID, "relation": "Friend", "colour": "00ff00", "is_star": true, "visibility": "admin"},
			map[string]any{"relation": "Friend", "attitude": 0, "colour": "#00ff00", "is_pinned": true, "visibility_id": 2}},
		{"no colour", map[string]any{"target_id": b.EntityID, "relation": "Neighbour", "colour": ""},
			map[string]any{"colour": "", "visibility": "all", "visibility_id": 1, "is_pinned": false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := create(t, e, e.Campaign, a.EntityID, e.Admin, c.body)
			for k, v := range c.want {
				if fmt.Sprint(got[k]) != fmt.Sprint(v) {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			if _, named := got["target_name"]; named {
				t.Error("a relation names its target")
			}
			show := e.Do("GET", one(e.Campaign, a.EntityID, id(got)), e.Admin, nil)
			if show.Status != 200 || fmt.Sprint(show.Data()) != fmt.Sprint(got) {
				t.Errorf("show: %d %v, created %v", show.Status, show.Data(), got)
			}
		})
	}
	audit(t, e, e.Campaign)
}

func TestValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	a, b := place(t, e, e.Campaign, "A", false), place(t, e, e.Campaign, "B", false)
	hidden := place(t, e, e.Campaign, "Hidden", true)
	var foreign domain.Location
	for foreign.EntityID <= hidden.EntityID {
		foreign = place(t, e, e.OtherCampaign, "Elsewhere", false)
	}
	many := make([]int64, domain.MaxRelationTargets+1)
	for i := range many {
		many[i] = b.EntityID
	}
	for _, c := range []struct {
		name  string
		token string
		body  map[string]any
		field string
	}{
		{"no relation", e.Admin, map[string]any{"target_id": b.EntityID}, "relation"},
		{"no target", e.Admin, map[string]any{"relation": "x"}, "target_id"},
		{"itself", e.Admin, map[string]any{"relation": "x", "target_id": a.EntityID}, "target_id"},
		{"no such entity", e.Admin, map[string]any{"relation": "x", "target_id": 99999}, "target_id"},
		{"another campaign's entity", e.Admin, map[string]any{"relation": "x", "target_id": foreign.EntityID}, "target_id"},
		{"a private target, for a member", e.Member, map[string]any{"relation": "x", "target_id": hidden.EntityID}, "target_id"},
		{"attitude", e.Admin, map[string]any{"relation": "x", "target_id": b.EntityID, "attitude": 101}, "attitude"},
		{"colour", e.Admin, map[string]any{"relation": "x", "target_id": b.EntityID, "colour": "red"}, "colour"},
		{"visibility", e.Admin, map[string]any{"relation": "x", "target_id": b.EntityID, "visibility_id": 9}, "visibility_id"},
		{"too many targets", e.Admin, map[string]any{"relation": "x", "targets": many}, "targets"},
		{"a bad target in targets", e.Admin, map[string]any{"relation": "x", "targets": []int64{b.EntityID, 99999}}, "targets.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", rels(e.Campaign, a.EntityID), c.token, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Errorf("%d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if l := e.Do("GET", rels(e.Campaign, a.EntityID), e.Admin, nil); len(l.List()) != 0 {
		t.Errorf("refused creates stored %d relations", len(l.List()))
	}
	audit(t, e, e.Campaign)
}

// TestTargetsTheCallerMayNotSee: a relation to a private entity is the admins' alone: absent
// from every other reader's lists and totals and a 404 by id, never a name.
func TestTargetsTheCallerMayNotSee(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	a := place(t, e, e.Campaign, "A", false)
	open, hidden := place(t, e, e.Campaign, "Open", false), place(t, e, e.Campaign, "Hidden", true)
	create(t, e, e.Campaign, a.EntityID, e.Admin, map[string]any{"target_id": open.EntityID, "relation": "Open"})
	secret := create(t, e, e.Campaign, a.EntityID, e.Admin, map[string]any{"target_id": hidden.EntityID, "relation": "Secret"})
	for _, c := range []struct {
		who, token string
		rows       int
		show       int
	}{{"admin", e.Admin, 2, 200}, {"member", e.Member, 1, 404}, {"viewer", e.Viewer, 1, 404}} {
		for _, path := range []string{rels(e.Campaign, a.EntityID), apitest.Path(e.Campaign, "/relations")} {
			l := e.Do("GET", path, c.token, nil)
			if l.Status != 200 || len(l.List()) != c.rows || l.Body["meta"].(map[string]any)["total"] != float64(c.rows) {
				t.Errorf("%s %s: %d %s, want %d rows", c.who, path, l.Status, l.Raw, c.rows)
			}
		}
		if r := e.Do("GET", one(e.Campaign, a.EntityID, id(secret)), c.token, nil); r.Status != c.show {
			t.Errorf("%s show: %d, want %d", c.who, r.Status, c.show)
		}
	}
	if r := e.Do("PATCH", one(e.Campaign, a.EntityID, id(secret)), e.Member, map[string]any{"relation": "Exposed"}); r.Status != 404 {
		t.Errorf("member update of a relation to a hidden entity: %d", r.Status)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/relations"), e.Outsider, nil); r.Status != 404 {
		t.Errorf("outsider, private campaign: %d", r.Status)
	}
	audit(t, e, e.Campaign)
}

func TestMirrors(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	a, b := place(t, e, e.Campaign, "A", false), place(t, e, e.Campaign, "B", false)
	c := place(t, e, e.Campaign, "C", false)
	pair := func(t *testing.T) (map[string]any, map[string]any) {
		t.Helper()
		r := create(t, e, e.Campaign, a.EntityID, e.Member, map[string]any{"target_id": b.EntityID, "relation": "Parent", "target_relation": "Child",
			"two_way": true, "attitude": 50, "colour": "#123456", "visibility": "member"})
		m := e.Do("GET", one(e.Campaign, b.EntityID, int64(r["mirror_id"].(float64))), e.Member, nil)
		if m.Status != 200 {
			t.Fatalf("mirror: %d %s", m.Status, m.Raw)
		}
		return r, m.Data()
	}
	t.Run("create writes both", func(t *testing.T) {
		r, m := pair(t)
		want := map[string]any{"owner_id": b.EntityID, "target_id": a.EntityID, "relation": "Child", "attitude": 50, "colour": "#123456",
			"visibility": "member", "mirror_id": id(r)}
		for k, v := range want {
			if fmt.Sprint(m[k]) != fmt.Sprint(v) {
				t.Errorf("mirror %s = %v, want %v", k, m[k], v)
			}
		}
		audit(t, e, e.Campaign)
	})
	t.Run("update leaves the mirror", func(t *testing.T) {
		r, m := pair(t)
		if u := e.Do("PATCH", one(e.Campaign, a.EntityID, id(r)), e.Member, map[string]any{"attitude": -10}); u.Status != 200 || u.Data()["attitude"] != float64(-10) {
			t.Fatalf("%d %s", u.Status, u.Raw)
		}
		got := e.Do("GET", one(e.Campaign, b.EntityID, id(m)), e.Member, nil).Data()
		if got["attitude"] != float64(50) || got["mirror_id"] != float64(id(r)) {
			t.Errorf("mirror after update = %v", got)
		}
		audit(t, e, e.Campaign)
	})
	t.Run("a new target unlinks both", func(t *testing.T) {
		r, m := pair(t)
		u := e.Do("PATCH", one(e.Campaign, a.EntityID, id(r)), e.Member, map[string]any{"target_id": c.EntityID})
		if u.Status != 200 || u.Data()["mirror_id"] != nil || u.Data()["target_id"] != float64(c.EntityID) {
			t.Fatalf("%d %s", u.Status, u.Raw)
		}
		if got := e.Do("GET", one(e.Campaign, b.EntityID, id(m)), e.Member, nil).Data(); got["mirror_id"] != nil {
			t.Errorf("mirror still linked: %v", got)
		}
		audit(t, e, e.Campaign)
	})
	t.Run("delete keeps the mirror, unlinked", func(t *testing.T) {
		r, m := pair(t)
		if d := e.Do("DELETE", one(e.Campaign, a.EntityID, id(r)), e.Member, nil); d.Status != 200 {
			t.Fatalf("%d %s", d.Status, d.Raw)
		}
		got := e.Do("GET", one(e.Campaign, b.EntityID, id(m)), e.Member, nil)
		if got.Status != 200 || got.Data()["mirror_id"] != nil {
			t.Errorf("mirror after delete: %d %v", got.Status, got.Data())
		}
		audit(t, e, e.Campaign)
	})
	t.Run("delete_mirrored deletes both", func(t *testing.T) {
		r, m := pair(t)
		if d := e.Do("DELETE", one(e.Campaign, a.EntityID, id(r))+"?delete_mirrored=1", e.Member, nil); d.Status != 200 {
			t.Fatalf("%d %s", d.Status, d.Raw)
		}
		if got := e.Do("GET", one(e.Campaign, b.EntityID, id(m)), e.Member, nil); got.Status != 404 {
			t.Errorf("mirror after delete_mirrored: %d", got.Status)
		}
		audit(t, e, e.Campaign)
	})
}

func TestTargetsList(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	a, b, c := place(t, e, e.Campaign, "A", false), place(t, e, e.Campaign, "B", false), place(t, e, e.Campaign, "C", false)
	r := e.Do("POST", rels(e.Campaign, a.EntityID), e.Admin, map[string]any{"targets": []int64{b.EntityID, c.EntityID, b.EntityID}, "relation": "Trade", "two_way": true})
	if r.Status != 200 || len(r.List()) != 4 {
		t.Fatalf("%d %s, want the 2 relations and their 2 mirrors", r.Status, r.Raw)
	}
	for _, path := range []string{rels(e.Campaign, a.EntityID), rels(e.Campaign, b.EntityID), rels(e.Campaign, c.EntityID)} {
		want := 1
		if path == rels(e.Campaign, a.EntityID) {
			want = 2
		}
		if l := e.Do("GET", path, e.Admin, nil); len(l.List()) != want {
			t.Errorf("%s: %d rows, want %d", path, len(l.List()), want)
		}
	}
	if l := e.Do("GET", apitest.Path(e.Campaign, "/relations?limit=3"), e.Admin, nil); len(l.List()) != 3 || l.Body["meta"].(map[string]any)["total"] != float64(4) {
		t.Errorf("campaign list: %s", l.Raw)
	}
	audit(t, e, e.Campaign)
}

// TestDeletedEntities: deleting an entity's record removes the relations it owns and the ones
// pointing at it (mirrors included), with their copies and counts.
func TestDeletedEntities(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	a, b, c := place(t, e, e.Campaign, "A", false), place(t, e, e.Campaign, "B", false), place(t, e, e.Campaign, "C", false)
	create(t, e, e.Campaign, a.EntityID, e.Admin, map[string]any{"target_id": b.EntityID, "relation": "To B", "two_way": true})
	create(t, e, e.Campaign, c.EntityID, e.Admin, map[string]any{"target_id": b.EntityID, "relation": "C to B"})
	create(t, e, e.Campaign, c.EntityID, e.Admin, map[string]any{"target_id": a.EntityID, "relation": "C to A", "visibility": "self"})
	if r := e.Do("DELETE", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", b.ID)), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete B: %d %s", r.Status, r.Raw)
	}
	for _, c := range []struct {
		path string
		want int
	}{{rels(e.Campaign, a.EntityID), 0}, {rels(e.Campaign, c.EntityID), 1}, {apitest.Path(e.Campaign, "/relations"), 1}} {
		l := e.Do("GET", c.path, e.Admin, nil)
		if len(l.List()) != c.want || l.Body["meta"].(map[string]any)["total"] != float64(c.want) {
			t.Errorf("%s: %s, want %d", c.path, l.Raw, c.want)
		}
	}
	audit(t, e, e.Campaign)
}

// TestRoundTrips: a show is one read (the relation and its owner, read ahead with the access),
// a list page two (access and counters, then the page), a campaign-wide page too; a create is
// the access, the targets' read, the ids and one transaction.
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	a, b := place(t, e, e.Campaign, "A", false), place(t, e, e.Campaign, "B", false)
	var first int64
	for i := 0; i < 30; i++ {
		r := create(t, e, e.Campaign, a.EntityID, e.Admin, map[string]any{"target_id": b.EntityID, "relation": fmt.Sprint("R", i)})
		if i == 0 {
			first = id(r)
		}
	}
	for _, c := range []struct {
		method, path string
		token        string
		body         any
		want         int64
	}{
		{"GET", one(e.Campaign, a.EntityID, first), e.Admin, nil, 1},
		// ?page=N without a cursor: the access, the counter segments, the page (DESIGN 3.1)
		{"GET", rels(e.Campaign, a.EntityID) + "?page=2&limit=10", e.Admin, nil, 3},
		{"GET", rels(e.Campaign, a.EntityID) + "?page=2&limit=10", e.Member, nil, 3},
		{"GET", apitest.Path(e.Campaign, "/relations?page=2&limit=10"), e.Member, nil, 3},
		{"POST", rels(e.Campaign, a.EntityID), e.Admin, map[string]any{"target_id": b.EntityID, "relation": "New", "two_way": true}, 4},
		{"PATCH", one(e.Campaign, a.EntityID, first), e.Admin, map[string]any{"attitude": 3}, 3},
		{"DELETE", one(e.Campaign, a.EntityID, first), e.Admin, nil, 2},
	} {
		e.Counter.Reset()
		r := e.Do(c.method, c.path, c.token, c.body)
		if r.Status != 200 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, r.Status, r.Raw)
		}
		if n := e.Counter.N(); n != c.want {
			t.Errorf("%s %s: %d DynamoDB calls, want %d", c.method, c.path, n, c.want)
		}
	}
	audit(t, e, e.Campaign)
}
