package tags_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/tags"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func withEverything(api *httpapi.API, st *store.Store) {
	tags.Register(api, st)
	locations.Register(api, st)
	entities.Register(api, st)
}

// TestPrivateTagIDs: a private tag's id is shown to admins only, on every read path that
// answers a record's tags (show, list, related=1, entities, entity_tags, the tags[] filter,
// both its member read and its scan), and follows the tag's privacy changes both ways.
func TestPrivateTagIDs(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, withEverything)
	cid := e.PublicCampaign
	open := create(t, e, cid, e.Admin, map[string]any{"name": "Open"})
	secret := create(t, e, cid, e.Admin, map[string]any{"name": "Secret", "is_private": true})
	r := e.Do("POST", apitest.Path(cid, "/locations"), e.Admin, map[string]any{"name": "Tagged", "tags": []int64{open, secret}})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	lid, eid := int64(r.Data()["id"].(float64)), int64(r.Data()["entity_id"].(float64))
	// A child tag tagged with both: tags are owners too.
	child := create(t, e, cid, e.Admin, map[string]any{"name": "Child", "tags": []int64{secret, open}})
	audit(t, e, cid)

	readers := []struct {
		name  string
		token string
		admin bool
	}{{"admin", e.Admin, true}, {"member", e.Member, false}, {"viewer", e.Viewer, false}, {"public reader", e.Outsider, false}}
	ids := func(v any) string {
		l, _ := v.([]any)
		out := []int64{}
		for _, x := range l {
			if f, ok := x.(float64); ok {
				out = append(out, int64(f))
			}
		}
		slices.Sort(out) // order aside: a member's write re-appends the tags it keeps
		return fmt.Sprint(out)
	}
	rowTags := func(rows []any, id int64) string {
		for _, row := range rows {
			if m := row.(map[string]any); m["id"] == float64(id) {
				return ids(m["tags"])
			}
		}
		return "absent"
	}
	check := func(step string, hidden, shown int64) {
		t.Helper()
		for _, rd := range readers {
			want := fmt.Sprint([]int64{shown})
			if rd.admin {
				want = fmt.Sprint(slices.Sorted(slices.Values([]int64{open, secret})))
			}
			wantChild := fmt.Sprint([]int64{shown})
			if rd.admin {
				wantChild = fmt.Sprint(slices.Sorted(slices.Values([]int64{secret, open})))
			}
			path := func(p string) string { return apitest.Path(cid, p) }
			got := map[string]string{
				"show":        ids(e.Do("GET", path(fmt.Sprintf("/locations/%d", lid)), rd.token, nil).Data()["tags"]),
				"related=1":   ids(e.Do("GET", path(fmt.Sprintf("/locations/%d?related=1", lid)), rd.token, nil).Data()["tags"]),
				"list":        rowTags(e.Do("GET", path("/locations"), rd.token, nil).List(), lid),
				"entity":      ids(e.Do("GET", path(fmt.Sprintf("/entities/%d", eid)), rd.token, nil).Data()["tags"]),
				"entities":    rowTags(e.Do("GET", path("/entities"), rd.token, nil).List(), eid),
				"tag show":    ids(e.Do("GET", path(fmt.Sprintf("/tags/%d", child)), rd.token, nil).Data()["tags"]),
				"tag list":    rowTags(e.Do("GET", path("/tags"), rd.token, nil).List(), child),
				"entity_tags": fmt.Sprint(len(e.Do("GET", path(fmt.Sprintf("/entities/%d/entity_tags", eid)), rd.token, nil).List())),
			}
			wants := map[string]string{"show": want, "related=1": want, "list": want, "entity": want, "entities": want,
				"tag show": wantChild, "tag list": wantChild, "entity_tags": "1"}
			if rd.admin {
				wants["entity_tags"] = "2"
			}
			for k, w := range wants {
				if got[k] != w {
					t.Errorf("%s, %s, %s: tags %s, want %s", step, rd.name, k, got[k], w)
				}
			}
			// The hidden tag's row and filter: nothing for non-admins.
			status, n := 404, 0
			if rd.admin {
				status, n = 200, 1
			}
			if s := e.Do("GET", path(fmt.Sprintf("/entities/%d/entity_tags/%d", eid, hidden)), rd.token, nil); s.Status != status {
				t.Errorf("%s, %s: entity_tags/%d: %d, want %d", step, rd.name, hidden, s.Status, status)
			}
			for _, q := range []string{"/locations?tags[]=%d", "/locations?tags[]=%d&tags_option=any", "/locations?tags[]=%d&name=ed"} {
				if l := e.Do("GET", path(fmt.Sprintf(q, hidden)), rd.token, nil); l.Status != 200 || len(l.List()) != n {
					t.Errorf("%s, %s: %s: %d %d rows, want %d", step, rd.name, fmt.Sprintf(q, hidden), l.Status, len(l.List()), n)
				}
			}
			if l := e.Do("GET", path(fmt.Sprintf("/locations?tags[]=%d", shown)), rd.token, nil); len(l.List()) != 1 {
				t.Errorf("%s, %s: the public tag's filter: %s", step, rd.name, l.Raw)
			}
		}
	}
	check("created", secret, open)

	// The private tag made public, the public one private: the ids follow, both ways.
	for _, c := range []struct {
		id      int64
		private bool
	}{{secret, false}, {open, true}} {
		if r := e.Do("PATCH", tagPath(cid, c.id), e.Admin, map[string]any{"is_private": c.private}); r.Status != 200 {
			t.Fatalf("privacy of %d: %d %s", c.id, r.Status, r.Raw)
		}
		audit(t, e, cid)
	}
	check("swapped", open, secret)

	// A member's writes keep the private tag it cannot see (its id stays, still hidden), even
	// one that sends `tags` without it; they may not add it back either.
	for _, body := range []map[string]any{{"name": "Renamed"}, {"tags": []int64{secret}}} {
		if r := e.Do("PATCH", apitest.Path(cid, fmt.Sprintf("/locations/%d", lid)), e.Member, body); r.Status != 200 {
			t.Fatalf("member update %v: %d %s", body, r.Status, r.Raw)
		}
		audit(t, e, cid)
		check(fmt.Sprint("after a member's write ", body), open, secret)
	}
	if l, err := locstore.New(e.Store).GetLocation(t.Context(), cid, lid); err != nil || fmt.Sprint(l.Tags) != fmt.Sprint([]int64{secret, open}) {
		t.Fatalf("stored tags after the member's writes: %v %v", l, err)
	}
	if r := e.Do("POST", apitest.Path(cid, "/locations"), e.Member, map[string]any{"name": "Mine", "tags": []int64{open}}); r.Status != 422 || r.Errors()["tags.0"] == nil {
		t.Fatalf("member adds a private tag: %d %s", r.Status, r.Raw)
	}
}
