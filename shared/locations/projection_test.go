package locations_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Layout 3 (issue 20): no reader needs a set of private ids. A location's public copy shows its
// parent only when the parent is public, and a parent's privacy change re-places its public
// children's copies in its own transaction; the audit checks both after every step.
func TestPublicCopiesShowOnlyPublicParents(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	ctx := context.Background()
	meta := domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}
	parent := domain.Location{Meta: meta, Owner: domain.Owner{Name: "Parent", IsPrivate: true}}
	if err := locstore.New(e.Store).CreateLocation(ctx, &parent); err != nil {
		t.Fatal(err)
	}
	kid := domain.Location{Meta: meta, Owner: domain.Owner{Name: "Kid"}, ParentID: &parent.ID}
	hidden := domain.Location{Meta: meta, Owner: domain.Owner{Name: "Hidden kid", IsPrivate: true}, ParentID: &parent.ID}
	for _, l := range []*domain.Location{&kid, &hidden} {
		if err := locstore.New(e.Store).CreateLocation(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	audit := func(step string) {
		t.Helper()
		if problems, err := ops.Audit(ctx, e.Store, e.Campaign); err != nil || len(problems) > 0 {
			t.Fatalf("after %s: %v %q", step, err, problems)
		}
	}
	audit("creates")
	parentOf := func(r apitest.Response) any { return r.Data()["parent_location_id"] }
	steps := []struct {
		name          string
		parentPrivate bool
		memberParent  any // the kid's parent as a member sees it
	}{
		{"private parent", true, nil},
		{"parent made public", false, float64(parent.ID)},
		{"parent made private again", true, nil},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if i > 0 {
				r := e.Do("PATCH", loc(e.Campaign, parent.ID), e.Admin, map[string]any{"is_private": st.parentPrivate})
				if r.Status != 200 {
					t.Fatalf("privacy change: %d %s", r.Status, r.Raw)
				}
				audit(st.name)
			}
			e.Counter.Reset()
			show := e.Do("GET", loc(e.Campaign, kid.ID), e.Member, nil)
			if show.Status != 200 || parentOf(show) != st.memberParent {
				t.Errorf("member's show: %d parent %v, want %v", show.Status, parentOf(show), st.memberParent)
			}
			if n := e.Counter.N(); n != 1 {
				t.Errorf("member's show: %d calls, want 1", n)
			}
			if r := e.Do("GET", loc(e.Campaign, kid.ID), e.Admin, nil); parentOf(r) != float64(parent.ID) {
				t.Errorf("admin's show: parent %v", parentOf(r))
			}
			list := e.Do("GET", apitest.Path(e.Campaign, "/locations"), e.Member, nil)
			var row map[string]any
			for _, it := range list.List() {
				if m := it.(map[string]any); m["id"] == float64(kid.ID) {
					row = m
				}
			}
			if row == nil || row["parent_location_id"] != st.memberParent {
				t.Errorf("member's list row: %v, want parent %v", row, st.memberParent)
			}
			// Filtering by a parent the member may not see matches nothing.
			byParent := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations?parent_location_id=%d", parent.ID)), e.Member, nil)
			want := 1
			if st.parentPrivate {
				want = 0
			}
			if byParent.Status != 200 || len(byParent.List()) != want {
				t.Errorf("member's list by parent: %d, %d rows, want %d", byParent.Status, len(byParent.List()), want)
			}
			// related=1 lists a non-admin's children by the privacy their links carry.
			if !st.parentPrivate {
				rel := e.Do("GET", loc(e.Campaign, parent.ID)+"?related=1", e.Member, nil)
				if kids, _ := rel.Data()["children"].([]any); rel.Status != 200 || len(kids) != 1 {
					t.Errorf("member's children of the parent: %d %v", rel.Status, rel.Data()["children"])
				}
			}
		})
	}

	// A member who is shown no parent and sends none back changes nothing it could not see.
	if r := e.Do("PATCH", loc(e.Campaign, kid.ID), e.Member, map[string]any{"name": "Kid 2", "parent_location_id": nil}); r.Status != 200 {
		t.Fatalf("member's update: %d %s", r.Status, r.Raw)
	}
	if l, err := locstore.New(e.Store).GetLocation(ctx, e.Campaign, kid.ID); err != nil || l.ParentID == nil || *l.ParentID != parent.ID {
		t.Errorf("after the member's update: %+v %v", l, err)
	}
	audit("the member's update")
}

// Round3 3.2: a write over DynamoDB's 100 items answers 422 naming its largest variable part
// and how many of it fit, and writes nothing. A location whose public children outnumber the
// budget cannot change its privacy in one write; with fewer it can.
func TestAWriteOverTheTransactionBudgetIsRefused(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	ctx := context.Background()
	meta := domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}
	cases := []struct {
		name     string
		children int
		status   int
	}{
		{"85 public children fit: 100 items with the parent's 15 (its re-placement marks among them)", 85, 200},
		{"100 public children do not", 100, 422},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parent := domain.Location{Meta: meta, Owner: domain.Owner{Name: "Parent"}}
			if err := locstore.New(e.Store).CreateLocation(ctx, &parent); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < c.children; i++ {
				kid := domain.Location{Meta: meta, Owner: domain.Owner{Name: fmt.Sprint("Kid ", i)}, ParentID: &parent.ID}
				if err := locstore.New(e.Store).CreateLocation(ctx, &kid); err != nil {
					t.Fatal(err)
				}
			}
			r := e.Do("PATCH", loc(e.Campaign, parent.ID), e.Admin, map[string]any{"is_private": true})
			if r.Status != c.status {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			l, err := locstore.New(e.Store).GetLocation(ctx, e.Campaign, parent.ID)
			if err != nil {
				t.Fatal(err)
			}
			if c.status == 422 {
				msgs, _ := r.Errors()["is_private"].([]any)
				if len(msgs) != 1 || msgs[0] != fmt.Sprintf("This write would change %d child locations; at most 85 fit in one write.", c.children) {
					t.Errorf("errors %v", r.Errors())
				}
				if l.IsPrivate || l.Version != 1 {
					t.Errorf("refused write changed the parent: private %v version %d", l.IsPrivate, l.Version)
				}
			} else if !l.IsPrivate {
				t.Errorf("parent not private after the write")
			}
			if problems, err := ops.Audit(ctx, e.Store, e.Campaign); err != nil || len(problems) > 0 {
				t.Fatalf("audit: %v %q", err, problems)
			}
		})
	}
}
