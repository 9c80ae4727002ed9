package tags_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/tags"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func withLocations(api *httpapi.API, st *store.Store) {
	tags.Register(api, st)
	locations.Register(api, st)
}

// TestTagLinks: a record's tags must name tags the writer may see; the tag's show lists what
// it links; deleting a tag leaves no dangling id; every step audited.
func TestTagLinks(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, withLocations)
	ctx := context.Background()
	open := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Open"})
	secret := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Secret", "is_private": true})
	theirs := create(t, e, e.OtherCampaign, e.Stranger, map[string]any{"name": "Theirs"})
	for i := 0; i < 5; i++ {
		create(t, e, e.OtherCampaign, e.Stranger, map[string]any{"name": "Filler"})
	}
	gone := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Gone"})
	if r := e.Do("DELETE", tagPath(e.Campaign, gone), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	locs := apitest.Path(e.Campaign, "/locations")
	for _, c := range []struct {
		name  string
		token string
		tags  []any
		field string
	}{
		{"unknown tag", e.Admin, []any{open, 999999}, "tags.1"},
		{"deleted tag", e.Admin, []any{gone}, "tags.0"},
		{"other campaign's tag", e.Admin, []any{open, theirs + 5}, "tags.1"},
		{"private tag for a member", e.Member, []any{secret}, "tags.0"},
		{"not an id", e.Admin, []any{"x"}, "tags.0"},
		{"too many", e.Admin, func() []any {
			var out []any
			for i := 1; i <= 21; i++ {
				out = append(out, i)
			}
			return out
		}(), "tags"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", locs, c.token, map[string]any{"name": "Tagged", "tags": c.tags})
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if l := e.Do("GET", locs, e.Admin, nil); len(l.List()) != 0 {
		t.Fatalf("refused writes stored a location: %s", l.Raw)
	}
	r := e.Do("POST", locs, e.Admin, map[string]any{"name": "Tagged", "tags": []any{open, secret, open}})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	lid, eid := int64(r.Data()["id"].(float64)), r.Data()["entity_id"].(float64)
	if got := fmt.Sprint(r.Data()["tags"]); got != fmt.Sprint([]any{float64(open), float64(secret)}) {
		t.Fatalf("tags = %s, want each once", got)
	}
	audit(t, e, e.Campaign)
	show := e.Do("GET", tagPath(e.Campaign, open), e.Admin, nil)
	if fmt.Sprint(show.Data()["entities"]) != fmt.Sprint([]any{eid}) || show.Data()["entities_count"] != float64(1) {
		t.Fatalf("tag show: %s", show.Raw)
	}
	// A member keeps a private tag it did not add, and may drop a public one.
	if r := e.Do("PATCH", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", lid)), e.Member, map[string]any{"tags": []any{secret}}); r.Status != 200 {
		t.Fatalf("member update: %d %s", r.Status, r.Raw)
	}
	if show := e.Do("GET", tagPath(e.Campaign, open), e.Admin, nil); fmt.Sprint(show.Data()["entities"]) != "[]" {
		t.Fatalf("dropped link still listed: %s", show.Raw)
	}
	// Privacy moves the links; the tag's delete removes its id from the record.
	if r := e.Do("PATCH", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", lid)), e.Admin, map[string]any{"is_private": true, "tags": []any{secret, open}}); r.Status != 200 {
		t.Fatalf("admin update: %d %s", r.Status, r.Raw)
	}
	if show := e.Do("GET", tagPath(e.Campaign, open), e.Member, nil); fmt.Sprint(show.Data()["entities"]) != "[]" {
		t.Fatalf("a member sees a private record's link: %s", show.Raw)
	}
	audit(t, e, e.Campaign)
	if r := e.Do("DELETE", tagPath(e.Campaign, secret), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete tag: %d %s", r.Status, r.Raw)
	}
	l, err := locstore.New(e.Store).GetLocation(ctx, e.Campaign, lid)
	if err != nil || fmt.Sprint(l.Tags) != fmt.Sprint([]int64{open}) {
		t.Fatalf("location after its tag's delete: %+v %v", l, err)
	}
	ent := e.Store
	if got, err := ent.GetEntity(ctx, e.Campaign, int64(eid)); err != nil || fmt.Sprint(got.Tags) != fmt.Sprint([]int64{open}) {
		t.Fatalf("entity after its tag's delete: %+v %v", got, err)
	}
	audit(t, e, e.Campaign)
	// Deleting the record removes its links.
	if r := e.Do("DELETE", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", lid)), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete location: %d %s", r.Status, r.Raw)
	}
	audit(t, e, e.Campaign)
}
