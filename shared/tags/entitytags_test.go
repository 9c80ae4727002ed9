package tags_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestEntityTags: entities/{id}/entity_tags reads and writes the record's tag links with the
// checks of a record update; refused writes change nothing; every step audited.
func TestEntityTags(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, withLocations)
	ctx := context.Background()
	open := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Open"})
	secret := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Secret", "is_private": true})
	var theirs int64 // ids are per campaign: one beyond this campaign's
	for i := 0; i < 6; i++ {
		theirs = create(t, e, e.OtherCampaign, e.Stranger, map[string]any{"name": "Theirs"})
	}
	r := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Tagged"})
	if r.Status != 200 {
		t.Fatalf("create location: %d %s", r.Status, r.Raw)
	}
	lid, eid := int64(r.Data()["id"].(float64)), int64(r.Data()["entity_id"].(float64))
	hidden := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Hidden", "is_private": true})
	hiddenEid := int64(hidden.Data()["entity_id"].(float64))
	theirEnt := e.Do("GET", tagPath(e.OtherCampaign, theirs), e.Stranger, nil).Data()["entity_id"].(float64)
	coll := func(cid, eid int64) string { return apitest.Path(cid, fmt.Sprintf("/entities/%d/entity_tags", eid)) }
	item := func(eid, id int64) string {
		return apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/entity_tags/%d", eid, id))
	}
	stored := func(want string) {
		t.Helper()
		l, err := locstore.New(e.Store).GetLocation(ctx, e.Campaign, lid)
		if err != nil || fmt.Sprint(l.Tags) != want {
			t.Fatalf("location tags = %v (%v), want %s", l.Tags, err, want)
		}
		if ent, err := e.Store.GetEntity(ctx, e.Campaign, eid); err != nil || fmt.Sprint(ent.Tags) != want {
			t.Fatalf("entity tags = %v (%v), want %s", ent.Tags, err, want)
		}
		audit(t, e, e.Campaign)
	}
	for _, c := range []struct {
		name   string
		token  string
		path   string
		body   any
		status int
		field  string
	}{
		{"unknown tag", e.Admin, coll(e.Campaign, eid), map[string]any{"tag_id": 999999}, 422, "tag_id"},
		{"other campaign's tag", e.Admin, coll(e.Campaign, eid), map[string]any{"tag_id": theirs}, 422, "tag_id"},
		{"private tag for a member", e.Member, coll(e.Campaign, eid), map[string]any{"tag_id": secret}, 422, "tag_id"},
		{"not an id", e.Admin, coll(e.Campaign, eid), map[string]any{"tag_id": "x"}, 422, "tag_id"},
		{"huge id", e.Admin, coll(e.Campaign, eid), map[string]any{"tag_id": 1e300}, 422, "tag_id"},
		{"missing", e.Admin, coll(e.Campaign, eid), map[string]any{}, 422, "tag_id"},
		{"the tag itself", e.Admin, coll(e.Campaign, int64(e.Do("GET", tagPath(e.Campaign, open), e.Admin, nil).Data()["entity_id"].(float64))), map[string]any{"tag_id": open}, 422, "tag_id"},
		{"viewer", e.Viewer, coll(e.Campaign, eid), map[string]any{"tag_id": open}, 403, ""},
		{"hidden entity for a member", e.Member, coll(e.Campaign, hiddenEid), map[string]any{"tag_id": open}, 404, ""},
		{"other campaign's entity", e.Admin, coll(e.Campaign, int64(theirEnt)), map[string]any{"tag_id": open}, 404, ""},
		{"other campaign's entity, its own path", e.Admin, coll(e.OtherCampaign, int64(theirEnt)), map[string]any{"tag_id": theirs}, 404, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", c.path, c.token, c.body)
			if r.Status != c.status || (c.field != "" && r.Errors()[c.field] == nil) {
				t.Fatalf("got %d %s, want %d naming %q", r.Status, r.Raw, c.status, c.field)
			}
		})
	}
	stored("[]")

	// Adding: the answer, the record, its entity, the tag's show; again changes nothing.
	for _, tok := range []string{e.Member, e.Member} {
		r := e.Do("POST", coll(e.Campaign, eid), tok, map[string]any{"tag_id": open})
		if r.Status != 200 || fmt.Sprint(r.Data()) != fmt.Sprint(map[string]any{"id": float64(open), "entity_id": float64(eid), "tag_id": float64(open)}) {
			t.Fatalf("add: %d %s", r.Status, r.Raw)
		}
	}
	if r := e.Do("POST", coll(e.Campaign, eid), e.Admin, map[string]any{"tag_id": secret}); r.Status != 200 {
		t.Fatalf("admin adds a private tag: %d %s", r.Status, r.Raw)
	}
	stored(fmt.Sprint([]int64{open, secret}))
	if show := e.Do("GET", tagPath(e.Campaign, open), e.Viewer, nil); fmt.Sprint(show.Data()["entities"]) != fmt.Sprint([]any{float64(eid)}) {
		t.Fatalf("tag show after add: %s", show.Raw)
	}

	// Reading: every reader of the entity, the row id is the tag id; the private tag's row is
	// the admins' only.
	if l := e.Do("GET", coll(e.Campaign, eid), e.Admin, nil); l.Status != 200 || len(l.List()) != 2 {
		t.Fatalf("admin list: %d %s", l.Status, l.Raw)
	}
	l := e.Do("GET", coll(e.Campaign, eid), e.Viewer, nil)
	if l.Status != 200 || len(l.List()) != 1 || fmt.Sprint(l.List()[0]) != fmt.Sprint(map[string]any{"id": float64(open), "entity_id": float64(eid), "tag_id": float64(open)}) {
		t.Fatalf("list: %d %s", l.Status, l.Raw)
	}
	for _, c := range []struct {
		name   string
		token  string
		path   string
		status int
	}{
		{"show", e.Viewer, item(eid, open), 200},
		{"show a tag it does not have", e.Admin, item(eid, theirs), 404},
		{"show on a hidden entity", e.Member, item(hiddenEid, open), 404},
		{"list of a hidden entity", e.Viewer, coll(e.Campaign, hiddenEid), 404},
		{"list of another campaign's entity", e.Admin, coll(e.Campaign, int64(theirEnt)), 404},
		{"bad id", e.Admin, apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/entity_tags/x", eid)), 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := e.Do("GET", c.path, c.token, nil); r.Status != c.status {
				t.Fatalf("got %d %s, want %d", r.Status, r.Raw, c.status)
			}
		})
	}

	// Removing: viewers may not; a tag it does not have is a 404; the link goes.
	if r := e.Do("DELETE", item(eid, open), e.Viewer, nil); r.Status != 403 {
		t.Fatalf("viewer delete: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("DELETE", item(eid, theirs), e.Admin, nil); r.Status != 404 {
		t.Fatalf("delete absent: %d %s", r.Status, r.Raw)
	}
	stored(fmt.Sprint([]int64{open, secret}))
	e.Counter.Reset()
	if r := e.Do("DELETE", item(eid, open), e.Member, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if n := e.Counter.N(); n > 5 {
		t.Fatalf("delete made %d DynamoDB calls, budget 5", n)
	}
	stored(fmt.Sprint([]int64{secret}))
	if show := e.Do("GET", tagPath(e.Campaign, open), e.Admin, nil); fmt.Sprint(show.Data()["entities"]) != "[]" {
		t.Fatalf("tag show after remove: %s", show.Raw)
	}
	e.Counter.Reset()
	if r := e.Do("GET", coll(e.Campaign, eid), e.Admin, nil); r.Status != 200 || len(r.List()) != 1 {
		t.Fatalf("list after remove: %d %s", r.Status, r.Raw)
	}
	if n := e.Counter.N(); n != 1 {
		t.Fatalf("list made %d DynamoDB calls, want 1", n)
	}
	// A tagged tag: entity_tags serve every owner kind.
	tagEnt := int64(e.Do("GET", tagPath(e.Campaign, secret), e.Admin, nil).Data()["entity_id"].(float64))
	if r := e.Do("POST", coll(e.Campaign, tagEnt), e.Admin, map[string]any{"tag_id": open}); r.Status != 200 {
		t.Fatalf("tag a tag: %d %s", r.Status, r.Raw)
	}
	if tg, err := tagstore.New(e.Store).GetTag(ctx, e.Campaign, secret); err != nil || fmt.Sprint(tg.Tags) != fmt.Sprint([]int64{open}) {
		t.Fatalf("tagged tag: %+v %v", tg, err)
	}
	audit(t, e, e.Campaign)
}

// TestEntityTagsConcurrent: tags added at once to one entity, and a tag deleted meanwhile, all
// land or are refused whole: the record keeps every added live tag, the audit finds no stray link.
func TestEntityTagsConcurrent(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, withLocations)
	var ids []int64
	for i := 0; i < 6; i++ {
		ids = append(ids, create(t, e, e.Campaign, e.Admin, map[string]any{"name": fmt.Sprintf("T%d", i)}))
	}
	r := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Busy"})
	lid, eid := int64(r.Data()["id"].(float64)), int64(r.Data()["entity_id"].(float64))
	path := apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/entity_tags", eid))
	status := make([]int, len(ids))
	done := make(chan struct{})
	for i, id := range ids {
		go func() {
			status[i] = e.Do("POST", path, e.Member, map[string]any{"tag_id": id}).Status
			done <- struct{}{}
		}()
	}
	gone := e.Do("DELETE", tagPath(e.Campaign, ids[5]), e.Admin, nil).Status
	for range ids {
		<-done
	}
	if gone != 200 {
		t.Fatalf("tag delete: %d", gone)
	}
	l, err := locstore.New(e.Store).GetLocation(context.Background(), e.Campaign, lid)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids[:5] {
		if status[i] != 200 || !slices.Contains(l.Tags, id) {
			t.Fatalf("tag %d: %d, stored %v", id, status[i], l.Tags)
		}
	}
	if slices.Contains(l.Tags, ids[5]) || (status[5] != 200 && status[5] != 422) {
		t.Fatalf("deleted tag: %d, stored %v", status[5], l.Tags)
	}
	audit(t, e, e.Campaign)
}
