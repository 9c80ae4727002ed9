package relations_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestSyncAndDeletions: lastSync on an entity's relations and on the campaign-wide list reads
// the sync pointers (the changed relations only), ?deleted=1 answers the deleted relations'
// tombstones, each filtered by what the reader may see, at asserted round trips.
func TestSyncAndDeletions(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	cid := e.Campaign
	a, b := place(t, e, cid, "A", false), place(t, e, cid, "B", false)
	hidden := place(t, e, cid, "H", true)
	var ids []int64
	for i := 0; i < 20; i++ {
		ids = append(ids, id(create(t, e, cid, a.EntityID, e.Admin, map[string]any{"target_id": b.EntityID, "relation": fmt.Sprint("R", i)})))
	}
	secret := id(create(t, e, cid, a.EntityID, e.Admin, map[string]any{"target_id": hidden.EntityID, "relation": "S"}))
	since := apitest.SyncPoint()
	// Changed since: two updated, one created, two deleted (one of them admins' only).
	for _, rid := range ids[3:5] {
		if r := e.Do("PATCH", one(cid, a.EntityID, rid), e.Admin, map[string]any{"attitude": 9}); r.Status != 200 {
			t.Fatalf("update: %d %s", r.Status, r.Raw)
		}
	}
	added := id(create(t, e, cid, b.EntityID, e.Admin, map[string]any{"target_id": a.EntityID, "relation": "New"}))
	for _, rid := range []int64{ids[7], secret} {
		if r := e.Do("DELETE", one(cid, a.EntityID, rid), e.Admin, nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Raw)
		}
	}
	ts := url.QueryEscape(domain.FormatTime(since))
	rows := func(r apitest.Response) string {
		var out []int64
		for _, row := range r.List() {
			out = append(out, int64(row.(map[string]any)["id"].(float64)))
		}
		return fmt.Sprint(out)
	}
	for _, c := range []struct {
		name, path, token, want string
		calls                   int64
	}{
		{"owner's list", rels(cid, a.EntityID) + "?lastSync=" + ts, e.Admin, fmt.Sprint([]int64{ids[3], ids[4]}), 3},
		{"campaign list", apitest.Path(cid, "/relations?lastSync="+ts), e.Member, fmt.Sprint([]int64{ids[3], ids[4], added}), 3},
		{"owner's deletions, admin", rels(cid, a.EntityID) + "?deleted=1&lastSync=" + ts, e.Admin, fmt.Sprint([]int64{ids[7], secret}), 2},
		{"owner's deletions, member", rels(cid, a.EntityID) + "?deleted=1&lastSync=" + ts, e.Member, fmt.Sprint([]int64{ids[7]}), 2},
		{"campaign deletions, viewer", apitest.Path(cid, "/relations?deleted=1&lastSync="+ts), e.Viewer, fmt.Sprint([]int64{ids[7]}), 2},
		{"campaign deletions, admin", apitest.Path(cid, "/relations?deleted=1&lastSync="+ts), e.Admin, fmt.Sprint([]int64{ids[7], secret}), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", c.path, c.token, nil)
			if r.Status != 200 || rows(r) != c.want || r.Body["meta"].(map[string]any)["total"] != float64(len(r.List())) {
				t.Fatalf("%d %s, want ids %s", r.Status, r.Raw, c.want)
			}
			if n := e.Counter.N(); n != c.calls {
				t.Errorf("%d DynamoDB calls, want %d", n, c.calls)
			}
		})
	}
	audit(t, e, cid)
}
