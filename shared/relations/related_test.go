package relations_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/attributes"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/relations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func registerAll(api *httpapi.API, st *store.Store) {
	locations.Register(api, st)
	attributes.Register(api, st)
	relations.Register(api, st)
}

// TestRelatedArrays: ?related=1 answers each record's attributes and relations as their own
// routes answer them to the same caller (private attributes, relations to hidden entities and
// admin-only relations left out for a member).
func TestRelatedArrays(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, registerAll)
	a, b := place(t, e, e.Campaign, "A", false), place(t, e, e.Campaign, "B", false)
	hidden := place(t, e, e.Campaign, "Hidden", true)
	for _, body := range []map[string]any{{"name": "Open", "value": "1"}, {"name": "Secret", "is_private": true}} {
		if r := e.Do("POST", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/attributes", a.EntityID)), e.Admin, body); r.Status != 200 {
			t.Fatal(r.Status, string(r.Raw))
		}
	}
	create(t, e, e.Campaign, a.EntityID, e.Admin, map[string]any{"target_id": b.EntityID, "relation": "Ally", "two_way": true})
	create(t, e, e.Campaign, a.EntityID, e.Admin, map[string]any{"target_id": hidden.EntityID, "relation": "Secret"})
	create(t, e, e.Campaign, a.EntityID, e.Admin, map[string]any{"target_id": b.EntityID, "relation": "Admins", "visibility": "admin"})
	for _, c := range []struct {
		who, token  string
		attrs, rels int
	}{{"admin", e.Admin, 2, 3}, {"member", e.Member, 1, 1}} {
		t.Run(c.who, func(t *testing.T) {
			for _, path := range []string{apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d?related=1", a.ID)), apitest.Path(e.Campaign, "/locations?related=1")} {
				r := e.Do("GET", path, c.token, nil)
				d := r.Data()
				if d == nil {
					for _, row := range r.List() {
						if row.(map[string]any)["id"] == float64(a.ID) {
							d = row.(map[string]any)
						}
					}
				}
				if r.Status != 200 || d == nil {
					t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
				}
				for k, want := range map[string]int{"attributes": c.attrs, "relations": c.rels} {
					got, _ := d[k].([]any)
					if len(got) != want {
						t.Errorf("%s %s: %d, want %d", path, k, len(got), want)
					}
					route := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/%s", a.EntityID, k)), c.token, nil)
					if fmt.Sprint(route.Body["data"]) != fmt.Sprint(d[k]) {
						t.Errorf("%s embedded:\n%v\nits route:\n%v", k, d[k], route.Body["data"])
					}
				}
			}
		})
	}
}

// TestRelatedReadsArePerPage: the attributes and relations of a whole page are one batch of
// packs and one Query per related bucket (100 owners by entity id), however many rows.
func TestRelatedReadsArePerPage(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, registerAll)
	var eids []int64
	for i := 0; i < 150; i++ {
		eids = append(eids, place(t, e, e.Campaign, fmt.Sprint("P", i), false).EntityID)
	}
	for _, owner := range []int64{eids[0], eids[99], eids[149]} {
		create(t, e, e.Campaign, owner, e.Admin, map[string]any{"target_id": eids[1], "relation": "R"})
		if r := e.Do("POST", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/attributes", owner)), e.Admin, map[string]any{"name": "A"}); r.Status != 200 {
			t.Fatal(r.Status)
		}
	}
	ctx := context.Background()
	for _, c := range []struct {
		name        string
		page        []int64
		buckets     int64
		attrs, rels int
	}{{"10 rows", eids[:10], 1, 1, 1}, {"100 rows", eids[:100], 2, 2, 2}, {"the last 50", eids[100:], 1, 1, 1}} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			rels, err := e.Store.RelatedOf(ctx, e.Campaign, c.page, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := e.Counter.N(); n != c.buckets {
				t.Errorf("relations: %d DynamoDB calls, want %d", n, c.buckets)
			}
			e.Counter.Reset()
			attrs, err := e.Store.AttributesOf(ctx, e.Campaign, c.page)
			if err != nil {
				t.Fatal(err)
			}
			if n := e.Counter.N(); n != 1 {
				t.Errorf("attributes: %d DynamoDB calls, want 1", n)
			}
			if len(rels.Relations) != c.rels || len(attrs) != c.attrs {
				t.Errorf("relations of %d owners, attributes of %d; want %d, %d", len(rels.Relations), len(attrs), c.rels, c.attrs)
			}
		})
	}
	e.Counter.Reset()
	if r := e.Do("GET", apitest.Path(e.Campaign, "/locations?related=1&limit=100"), e.Admin, nil); r.Status != 200 || len(r.List()) != 100 {
		t.Fatalf("%d", r.Status)
	}
	t.Logf("a related=1 page of 100 locations: %d DynamoDB calls", e.Counter.N())
}
