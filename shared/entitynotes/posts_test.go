package entitynotes_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Kanka today (DESIGN.md 9): an entity's notes are its posts.

func posts(cid, eid int64) string {
	return apitest.Path(cid, fmt.Sprintf("/entities/%d/posts", eid))
}

var visibilityIDs = map[string]int{"all": 1, "admin": 2, "self-admin": 3, "self": 4, "member": 5}

func TestPostVisibilityMatrix(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	apitest.VisibilityMatrix(t, e, apitest.Family{
		Entity:     func(t *testing.T, cid int64) int64 { return entity(t, e, cid, false) },
		Collection: posts,
		Body: func(vis string) map[string]any {
			return map[string]any{"name": "P " + vis, "visibility_id": visibilityIDs[vis]}
		},
		Exists: func(cid, eid, id int64) bool {
			_, _, err := notestore.New(e.Store).GetNoteAndEntity(context.Background(), cid, eid, id)
			return err == nil
		},
	})
}

func TestPostsAreTheEntityNotes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	r := e.Do("POST", posts(e.Campaign, eid), e.Member, map[string]any{
		"name": "Rumours", "entry": "<p>Ask at [location:" + fmt.Sprint(eid) + "].</p>", "visibility_id": "5", "position": 2,
	})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	want := map[string]any{"entity_id": float64(eid), "name": "Rumours", "visibility_id": float64(5), "visibility": "member",
		"position": float64(2), "is_pinned": true, "is_private": false, "is_template": false, "layout_id": nil,
		"calendar_id": nil, "calendar_year": nil, "calendar_month": nil, "calendar_day": nil, "calendar_reminder_length": nil}
	for k, v := range want {
		if r.Data()[k] != v {
			t.Errorf("post %s = %v, want %v", k, r.Data()[k], v)
		}
	}
	for _, k := range []string{"tags", "permissions", "settings"} {
		if l, ok := r.Data()[k].([]any); !ok || len(l) != 0 {
			t.Errorf("post %s = %v, want []", k, r.Data()[k])
		}
	}
	if p := r.Data()["entry_parsed"].(string); p == "" || p == r.Data()["entry"] {
		t.Errorf("entry_parsed = %q, want the mention as a link", p)
	}
	id := r.Data()["id"]
	// The same record as an entity note, with visibility_id beside visibility.
	n := e.Do("GET", fmt.Sprintf("%s/%v", notes(e.Campaign, eid), id), e.Member, nil)
	if n.Status != 200 || n.Data()["visibility"] != "member" || n.Data()["visibility_id"] != float64(5) || n.Data()["name"] != "Rumours" {
		t.Fatalf("as a note: %d %s", n.Status, n.Raw)
	}
	if _, ok := n.Data()["is_pinned"]; ok {
		t.Errorf("the 2022 note shape grew post fields: %s", n.Raw)
	}
	// A note made the 2022 way is a post, unpinned without a position.
	old := createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Old", "visibility": "admin"})
	p := e.Do("GET", fmt.Sprintf("%s/%d", posts(e.Campaign, eid), old), e.Admin, nil)
	if p.Status != 200 || p.Data()["visibility_id"] != float64(2) || p.Data()["is_pinned"] != false {
		t.Fatalf("note as a post: %d %s", p.Status, p.Raw)
	}
	l := e.Do("GET", posts(e.Campaign, eid), e.Admin, nil)
	if l.Status != 200 || len(l.List()) != 2 || l.Body["meta"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("list: %d %s", l.Status, l.Raw)
	}
	// Update by visibility_id, then delete: 200 with the deleted id.
	u := e.Do("PATCH", fmt.Sprintf("%s/%v", posts(e.Campaign, eid), id), e.Member, map[string]any{"visibility_id": 1})
	if u.Status != 200 || u.Data()["visibility"] != "all" || u.Data()["visibility_id"] != float64(1) {
		t.Fatalf("update: %d %s", u.Status, u.Raw)
	}
	d := e.Do("DELETE", fmt.Sprintf("%s/%v", posts(e.Campaign, eid), id), e.Member, nil)
	if d.Status != 200 || d.Data()["id"] != id || d.Data()["deleted"] != true {
		t.Fatalf("delete: %d %s", d.Status, d.Raw)
	}
	if g := e.Do("GET", fmt.Sprintf("%s/%v", notes(e.Campaign, eid), id), e.Member, nil); g.Status != 404 {
		t.Errorf("note after deleting the post: %d", g.Status)
	}
}

func TestPostValidationNamesTheField(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no name", map[string]any{"visibility_id": 1}, "name"},
		{"unknown visibility id", map[string]any{"name": "x", "visibility_id": 9}, "visibility_id"},
		{"visibility id not a number", map[string]any{"name": "x", "visibility_id": "often"}, "visibility_id"},
		{"settings not an object", map[string]any{"name": "x", "settings": "collapsed"}, "settings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", posts(e.Campaign, eid), e.Member, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("%d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if l := e.Do("GET", posts(e.Campaign, eid), e.Admin, nil); len(l.List()) != 0 {
		t.Errorf("refused creates stored %v", l.List())
	}
}

func TestPostRoutesHeadMethodsHiddenParentsAndBudgets(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	id := createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "N"})
	item := fmt.Sprintf("%s/%d", posts(e.Campaign, eid), id)
	for path, allow := range map[string]string{posts(e.Campaign, eid): "GET, HEAD, OPTIONS, POST", item: "DELETE, GET, HEAD, OPTIONS, PATCH, PUT"} {
		if h := e.Do("HEAD", path, e.Viewer, nil); h.Status != 200 || len(h.Raw) != 0 {
			t.Errorf("HEAD %s: %d %q", path, h.Status, h.Raw)
		}
		if r := e.Do("TRACE", path, e.Viewer, nil); r.Status != 405 || r.Header.Get("Allow") != allow {
			t.Errorf("TRACE %s: %d Allow %q, want %q", path, r.Status, r.Header.Get("Allow"), allow)
		}
	}
	if r := e.Do("POST", posts(e.Campaign, eid), e.Viewer, map[string]any{"name": "x"}); r.Status != 403 {
		t.Errorf("viewer create: %d", r.Status)
	}
	hidden := entity(t, e, e.Campaign, true)
	createNote(t, e, e.Campaign, hidden, e.Admin, map[string]any{"name": "secret"})
	other := entity(t, e, e.OtherCampaign, false)
	for _, p := range []string{posts(e.Campaign, hidden), posts(e.OtherCampaign, other),
		fmt.Sprintf("%s/%d", posts(e.Campaign, hidden), id)} {
		if r := e.Do("GET", p, e.Member, nil); r.Status != 404 {
			t.Errorf("GET %s: %d, want 404", p, r.Status)
		}
	}
	for _, c := range []struct {
		name, method, path string
		body               any
		max                int64
	}{
		{"show", "GET", item, nil, 1},
		{"list page", "GET", posts(e.Campaign, eid), nil, 2},
		{"create", "POST", posts(e.Campaign, eid), map[string]any{"name": "x"}, 3},
		{"update", "PATCH", item, map[string]any{"visibility_id": 5}, 2},
		{"delete", "DELETE", item, nil, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			if r := e.Do(c.method, c.path, e.Admin, c.body); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := e.Counter.N(); n > c.max || n == 0 {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
		})
	}
}
