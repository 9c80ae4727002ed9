package tags_test

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
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/tags"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// register mounts tags and the entities routes (to see tags among the entities and in search).
func register(api *httpapi.API, st *store.Store) {
	tags.Register(api, st)
	entities.Register(api, st)
}

func create(t *testing.T, e *apitest.Env, cid int64, token string, body map[string]any) int64 {
	t.Helper()
	r := e.Do("POST", apitest.Path(cid, "/tags"), token, body)
	if r.Status != 200 {
		t.Fatalf("create %v: %d %s", body, r.Status, r.Raw)
	}
	return int64(r.Data()["id"].(float64))
}

func tagPath(cid, id int64) string { return apitest.Path(cid, fmt.Sprintf("/tags/%d", id)) }

func audit(t *testing.T, e *apitest.Env, cid int64) {
	t.Helper()
	if problems, err := ops.Audit(context.Background(), e.Store, cid); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
}

func TestTagCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	ctx := context.Background()
	r := e.Do("POST", apitest.Path(e.Campaign, "/tags"), e.Admin, map[string]any{
		"name": " Villains ", "type": "Faction", "colour": "red", "entry": "<p>Bad <script>x</script>folk</p>",
		"is_auto_applied": true, "is_hidden": "1",
	})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	d := r.Data()
	for k, want := range map[string]any{"name": "Villains", "type": "Faction", "colour": "red", "is_auto_applied": true,
		"is_hidden": true, "is_private": false, "tag_id": nil, "entities_count": float64(0)} {
		if d[k] != want {
			t.Errorf("%s = %v, want %v", k, d[k], want)
		}
	}
	if strings.Contains(d["entry"].(string), "script") {
		t.Errorf("entry not sanitised: %v", d["entry"])
	}
	id, eid := int64(d["id"].(float64)), int64(d["entity_id"].(float64))
	child := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Cultists", "tag_id": id})
	if got, _ := tagstore.New(e.Store).GetTag(ctx, e.Campaign, child); got == nil || got.ParentID == nil || *got.ParentID != id {
		t.Fatalf("stored child = %+v", got)
	}
	// The entity is a tag entity, listed among the entities and found by search.
	ent := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d", eid)), e.Admin, nil)
	if ent.Status != 200 || ent.Data()["type"] != "tag" || ent.Data()["child_id"] != float64(id) {
		t.Fatalf("entity: %d %s", ent.Status, ent.Raw)
	}
	if l := e.Do("GET", apitest.Path(e.Campaign, "/entities?types=tag"), e.Admin, nil); l.Status != 200 || len(l.List()) != 2 {
		t.Fatalf("entities?types=tag: %d %s", l.Status, l.Raw)
	}
	if l := e.Do("GET", apitest.Path(e.Campaign, "/entities?type_id[]=12"), e.Admin, nil); l.Status != 200 || len(l.List()) != 2 {
		t.Fatalf("entities?type_id[]=12: %d %s", l.Status, l.Raw)
	}
	if s := e.Do("GET", apitest.Path(e.Campaign, "/search/cult"), e.Admin, nil); s.Status != 200 || len(s.List()) != 1 {
		t.Fatalf("search: %d %s", s.Status, s.Raw)
	}
	if l := e.Do("GET", apitest.Path(e.Campaign, "/tags?name=vill"), e.Admin, nil); l.Status != 200 || len(l.List()) != 1 {
		t.Fatalf("name filter: %d %s", l.Status, l.Raw)
	}
	// Update, then delete the parent: the child becomes a root, as Kanka does.
	if u := e.Do("PATCH", tagPath(e.Campaign, id), e.Admin, map[string]any{"colour": "", "name": "Foes"}); u.Status != 200 || u.Data()["colour"] != "" || u.Data()["name"] != "Foes" {
		t.Fatalf("update: %d %s", u.Status, u.Raw)
	}
	audit(t, e, e.Campaign)
	if del := e.Do("DELETE", tagPath(e.Campaign, id), e.Admin, nil); del.Status != 200 {
		t.Fatalf("delete: %d %s", del.Status, del.Raw)
	}
	if _, err := tagstore.New(e.Store).GetTag(ctx, e.Campaign, id); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("deleted tag: %v", err)
	}
	if got, _ := tagstore.New(e.Store).GetTag(ctx, e.Campaign, child); got == nil || got.ParentID != nil {
		t.Fatalf("orphaned child = %+v, want a root", got)
	}
	gone := e.Do("GET", apitest.Path(e.Campaign, "/tags?deleted=1"), e.Admin, nil)
	if gone.Status != 200 || len(gone.List()) != 1 || gone.List()[0].(map[string]any)["id"] != float64(id) {
		t.Fatalf("?deleted=1: %d %s", gone.Status, gone.Raw)
	}
	audit(t, e, e.Campaign)
}

func TestTagValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	parent := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Parent"})
	theirs := create(t, e, e.OtherCampaign, e.Stranger, map[string]any{"name": "Theirs"})
	for i := 0; i < 3; i++ { // their ids run past ours
		create(t, e, e.OtherCampaign, e.Stranger, map[string]any{"name": "Filler"})
	}
	hidden := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Hidden", "is_private": true})
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no name", map[string]any{"type": "x"}, "name"},
		{"blank name", map[string]any{"name": "   "}, "name"},
		{"name too long", map[string]any{"name": strings.Repeat("n", 192)}, "name"},
		{"name not a string", map[string]any{"name": 12}, "name"},
		{"type too long", map[string]any{"name": "x", "type": strings.Repeat("t", 192)}, "type"},
		{"unknown colour", map[string]any{"name": "x", "colour": "chartreuse"}, "colour"},
		{"hex colour", map[string]any{"name": "x", "colour": "#ff0000"}, "colour"},
		{"colour not a string", map[string]any{"name": "x", "colour": 3}, "colour"},
		{"parent not a number", map[string]any{"name": "x", "tag_id": "abc"}, "tag_id"},
		{"parent zero", map[string]any{"name": "x", "tag_id": 0}, "tag_id"},
		{"parent huge", map[string]any{"name": "x", "tag_id": 1e300}, "tag_id"},
		{"parent missing", map[string]any{"name": "x", "tag_id": 999999}, "tag_id"},
		{"parent of another campaign", map[string]any{"name": "x", "tag_id": theirs + 3}, "tag_id"},
		{"is_hidden not a boolean", map[string]any{"name": "x", "is_hidden": "maybe"}, "is_hidden"},
		{"is_auto_applied an array", map[string]any{"name": "x", "is_auto_applied": []any{1}}, "is_auto_applied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", apitest.Path(e.Campaign, "/tags"), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	// A member may not see a private parent: it is as missing.
	if r := e.Do("POST", apitest.Path(e.Campaign, "/tags"), e.Member, map[string]any{"name": "x", "tag_id": hidden}); r.Status != 422 || r.Errors()["tag_id"] == nil {
		t.Fatalf("hidden parent: %d %s", r.Status, r.Raw)
	}
	// Cycles: a tag under itself or under its own descendant.
	child := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Child", "tag_id": parent})
	grandchild := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Grandchild", "tag_id": child})
	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"itself":                {map[string]any{"tag_id": parent}, "tag_id"},
		"its grandchild":        {map[string]any{"tag_id": grandchild}, "tag_id"},
		"itself among its tags": {map[string]any{"tags": []any{child, parent}}, "tags.1"},
	} {
		t.Run("cycle "+name, func(t *testing.T) {
			r := e.Do("PATCH", tagPath(e.Campaign, parent), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	// Nothing was stored by a refused write: the admin's total is what was created.
	if l := e.Do("GET", apitest.Path(e.Campaign, "/tags"), e.Admin, nil); l.Body["meta"].(map[string]any)["total"] != float64(4) {
		t.Fatalf("total after refused writes: %s", l.Raw)
	}
	if p, _ := tagstore.New(e.Store).GetTag(context.Background(), e.Campaign, parent); p.ParentID != nil {
		t.Fatalf("a refused cycle moved the tag: %+v", p)
	}
	audit(t, e, e.Campaign)
}

func TestTagDepthIsBounded(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	prev := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Root"})
	for i := 1; i < domain.MaxLocationDepth; i++ {
		prev = create(t, e, e.Campaign, e.Admin, map[string]any{"name": fmt.Sprintf("Level %d", i), "tag_id": prev})
	}
	// The chain is MaxLocationDepth long: one more level is refused on a move.
	leaf := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Leaf"})
	r := e.Do("PATCH", tagPath(e.Campaign, leaf), e.Admin, map[string]any{"tag_id": prev})
	if r.Status != 422 || r.Errors()["tag_id"] == nil {
		t.Fatalf("too deep: %d %s", r.Status, r.Raw)
	}
}

// TestTagAccessMatrix checks every role against public and private tags, in a private and a
// public campaign, and what a refused write leaves behind.
func TestTagAccessMatrix(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	e.OwnerAccessMatrix(t, apitest.AccessMatrix{
		Collection: "/tags",
		Create:     func(t *testing.T, cid int64, body map[string]any) int64 { return create(t, e, cid, e.Admin, body) },
		StoredName: func(ctx context.Context, cid, id int64) (string, error) {
			r, err := tagstore.New(e.Store).GetTag(ctx, cid, id)
			if err != nil {
				return "", err
			}
			return r.Name, nil
		},
		After: func(t *testing.T, _ int, cid, _, _ int64) { audit(t, e, cid) },
	})
	// Only admins make a tag private.
	if r := e.Do("POST", apitest.Path(e.Campaign, "/tags"), e.Member, map[string]any{"name": "Secret", "is_private": true}); r.Status != 403 {
		t.Fatalf("member creates a private tag: %d %s", r.Status, r.Raw)
	}
}

// TestPrivateParentTagIsHidden: a non-admin sees a public tag under a private one as a root;
// the parent's privacy change re-places the child's public copy in its own write.
func TestPrivateParentTagIsHidden(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	parent := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Parent"})
	child := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Child", "tag_id": parent})
	shown := func(tok string) any {
		t.Helper()
		r := e.Do("GET", tagPath(e.Campaign, child), tok, nil)
		if r.Status != 200 {
			t.Fatalf("show child: %d %s", r.Status, r.Raw)
		}
		return r.Data()["tag_id"]
	}
	if got := shown(e.Member); got != float64(parent) {
		t.Fatalf("member sees parent %v, want %d", got, parent)
	}
	if r := e.Do("PATCH", tagPath(e.Campaign, parent), e.Admin, map[string]any{"is_private": true}); r.Status != 200 {
		t.Fatalf("privatise parent: %d %s", r.Status, r.Raw)
	}
	if got := shown(e.Member); got != nil {
		t.Fatalf("member sees private parent %v", got)
	}
	if got := shown(e.Admin); got != float64(parent) {
		t.Fatalf("admin sees parent %v", got)
	}
	l := e.Do("GET", apitest.Path(e.Campaign, "/tags"), e.Member, nil)
	if len(l.List()) != 1 || l.List()[0].(map[string]any)["tag_id"] != nil {
		t.Fatalf("member's list: %s", l.Raw)
	}
	// A member writing back what it read (no parent) keeps the hidden parent.
	if r := e.Do("PUT", tagPath(e.Campaign, child), e.Member, map[string]any{"name": "Child", "tag_id": nil}); r.Status != 200 {
		t.Fatalf("member update: %d %s", r.Status, r.Raw)
	}
	if got, _ := tagstore.New(e.Store).GetTag(context.Background(), e.Campaign, child); got.ParentID == nil || *got.ParentID != parent {
		t.Fatalf("member's write dropped the hidden parent: %+v", got)
	}
	audit(t, e, e.Campaign)
}

// TestTagRoundTrips holds tag routes to DESIGN 3's budgets: a show is one round trip after the
// access read (read ahead), a list page two, a write one transaction after its reads.
func TestTagRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Budget"})
	for i := 0; i < 50; i++ {
		create(t, e, e.Campaign, e.Admin, map[string]any{"name": fmt.Sprintf("Filler %d", i)})
	}
	cases := []struct {
		name         string
		method, path string
		body         any
		max, items   int64
	}{
		{"show (and its member pack)", "GET", tagPath(e.Campaign, id), nil, 2, 0},
		{"list page 1 (and the page's member packs)", "GET", apitest.Path(e.Campaign, "/tags?limit=10"), nil, 3, 0},
		{"list page 2", "GET", apitest.Path(e.Campaign, "/tags?limit=10&page=2"), nil, 4, 0},
		{"create", "POST", apitest.Path(e.Campaign, "/tags"), map[string]any{"name": "New"}, 5, 0},
		{"create under a parent", "POST", apitest.Path(e.Campaign, "/tags"), map[string]any{"name": "Sub", "tag_id": id}, 6, 0},
		{"update", "PATCH", tagPath(e.Campaign, id), map[string]any{"type": "Keep"}, 4, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do(c.method, c.path, e.Admin, c.body)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := e.Counter.N(); n > c.max || n == 0 {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
			if c.method == "GET" && c.path != tagPath(e.Campaign, id) {
				if got := e.Counter.Fetched(); got > 10+2+1+100+10 {
					t.Fatalf("%d items evaluated for a page of 10", got)
				}
			}
		})
	}
}
