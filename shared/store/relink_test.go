package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/relations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestRelationsFollowEndsPrivacy: a relation is never more visible than its ends. When an end is made private
// its relations (both directions, mirrors included) become admins' only, in every list, total
// and show; made public again they come back. A privacy change stopped after hiding is
// finished by the sweeper (as `lorekeep migrate` does). Audited at every step.
func TestRelationsFollowEndsPrivacy(t *testing.T) {
	e := apitest.New(t, func(api *httpapi.API, st *store.Store) {
		locations.Register(api, st)
		relations.Register(api, st)
	})
	place := func(t *testing.T, e *apitest.Env, cid int64, name string, private bool) domain.Location {
		t.Helper()
		l := domain.Location{Meta: domain.Meta{CampaignID: cid, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: name, IsPrivate: private}}
		if err := locstore.New(e.Store).CreateLocation(context.Background(), &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	rels := func(cid, eid int64) string { return apitest.Path(cid, fmt.Sprintf("/entities/%d/relations", eid)) }
	one := func(cid, eid, id int64) string {
		return apitest.Path(cid, fmt.Sprintf("/entities/%d/relations/%d", eid, id))
	}
	create := func(t *testing.T, e *apitest.Env, cid, eid int64, token string, body map[string]any) map[string]any {
		t.Helper()
		r := e.Do("POST", rels(cid, eid), token, body)
		if r.Status != 200 {
			t.Fatalf("create relation %v: %d %s", body, r.Status, r.Raw)
		}
		return r.Data()
	}
	id := func(m map[string]any) int64 { return int64(m["id"].(float64)) }
	audit := func(t *testing.T, e *apitest.Env, cid int64) {
		t.Helper()
		if problems, err := ops.Audit(context.Background(), e.Store, cid); err != nil || len(problems) > 0 {
			t.Fatalf("audit: %v %v", err, problems)
		}
	}
	ctx := context.Background()
	cid := e.PublicCampaign
	a, b, c := place(t, e, cid, "A", false), place(t, e, cid, "B", false), place(t, e, cid, "C", false)
	out := create(t, e, cid, a.EntityID, e.Admin, map[string]any{"target_id": b.EntityID, "relation": "ally", "two_way": true})
	in := create(t, e, cid, c.EntityID, e.Admin, map[string]any{"target_id": b.EntityID, "relation": "rival"})
	other := create(t, e, cid, a.EntityID, e.Admin, map[string]any{"target_id": c.EntityID, "relation": "friend"})
	mirror := int64(out["mirror_id"].(float64))
	touching := []struct{ owner, id int64 }{{a.EntityID, id(out)}, {b.EntityID, mirror}, {c.EntityID, id(in)}}

	see := func(step string, token string, want bool) {
		t.Helper()
		n := 1 // the relation between public ends
		if want {
			n = 4
		}
		if l := e.Do("GET", apitest.Path(cid, "/relations"), token, nil); l.Status != 200 || len(l.List()) != n || l.Body["meta"].(map[string]any)["total"] != float64(n) {
			t.Errorf("%s: campaign list: %d rows, %s", step, len(l.List()), l.Raw)
		}
		for _, r := range touching {
			status := 404
			if want {
				status = 200
			}
			if s := e.Do("GET", one(cid, r.owner, r.id), token, nil); s.Status != status {
				t.Errorf("%s: relation %d: %d, want %d", step, r.id, s.Status, status)
			}
			rows := e.Do("GET", rels(cid, r.owner), token, nil).List()
			found := false
			for _, row := range rows {
				found = found || row.(map[string]any)["id"] == float64(r.id)
			}
			if found != want {
				t.Errorf("%s: relation %d in its owner's list: %v, want %v", step, r.id, found, want)
			}
		}
		if s := e.Do("GET", one(cid, a.EntityID, id(other)), token, nil); s.Status != 200 {
			t.Errorf("%s: the relation between public ends: %d", step, s.Status)
		}
	}
	readers := []struct {
		name  string
		token string
		admin bool
	}{{"admin", e.Admin, true}, {"member", e.Member, false}, {"viewer", e.Viewer, false}, {"public reader", e.Outsider, false}}
	for _, step := range []struct {
		name    string
		private bool
	}{{"public", false}, {"made private", true}, {"public again", false}} {
		if step.name != "public" {
			if r := e.Do("PATCH", apitest.Path(cid, fmt.Sprintf("/locations/%d", b.ID)), e.Admin, map[string]any{"is_private": step.private}); r.Status != 200 {
				t.Fatalf("%s: %d %s", step.name, r.Status, r.Raw)
			}
		}
		for _, rd := range readers {
			// Admins see B's relations (and B's list, since it is theirs); others only while B is public.
			if !rd.admin && step.private {
				see(step.name+", "+rd.name, rd.token, false)
			} else if rd.admin || !step.private {
				n := 4
				if l := e.Do("GET", apitest.Path(cid, "/relations"), rd.token, nil); len(l.List()) != n {
					t.Errorf("%s, %s: campaign list %d rows, want %d", step.name, rd.name, len(l.List()), n)
				}
			}
		}
		audit(t, e, cid)
	}

	// A privacy change that stopped after hiding: the sweeper puts the relations back as the
	// entity is (public), and removes its marker.
	if err := store.HalfRelink(ctx, e.Store, cid, b.EntityID, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	see("half re-placed", e.Member, false)
	if _, err := e.Store.SweepDeletes(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	see("swept", e.Member, true)
	audit(t, e, cid)
}
