package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// The kernel's references (refs.go), on any owner kind: resolved and checked on write, hidden
// by their target's trash, shown by its restore, dropped by its purge; a referrer's purge
// removes its links; a write over the transaction's budget is a 422 naming the field. The
// campaign audits clean at each step.
func TestReferencesThroughTrashAndPurge(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c"})
	locs := locstore.New(st)
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}
	audit := func(step string) {
		t.Helper()
		if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
			t.Fatalf("%s: audit %v %v", step, err, problems)
		}
	}
	mk := func(name string, refs ...domain.Reference) *domain.Location {
		t.Helper()
		l := &domain.Location{Meta: meta, Owner: domain.Owner{Name: name, Refs: refs, TagsByAdmin: true}}
		if err := locs.CreateLocation(ctx, l); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		return l
	}
	get := func(id int64) *domain.Location {
		t.Helper()
		l, err := locs.GetLocation(ctx, c.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	byModule, byEntity := mk("T1"), mk("T2")
	r := mk("R", domain.Reference{Field: "near", Type: "location", ID: byModule.ID}, domain.Reference{Field: "by", EntityID: byEntity.EntityID})
	got := get(r.ID).Refs
	if len(got) != 2 || got[0].EntityID != byModule.EntityID || got[1].ID != byEntity.ID || got[1].Type != "location" {
		t.Fatalf("resolved: %+v", got)
	}
	audit("created")

	// An unknown target is a 422 naming it, and nothing is written.
	bad := &domain.Location{Meta: meta, Owner: domain.Owner{Name: "Bad", TagsByAdmin: true,
		Refs: []domain.Reference{{Field: "near", Type: "location", ID: byModule.ID}, {Field: "near", Type: "location", ID: 999}}}}
	if err := locs.CreateLocation(ctx, bad); !isInvalid(err, "near.1") {
		t.Fatalf("unknown target: %v", err)
	}
	// More new references than one transaction holds: a 422 saying how many fit.
	many := make([]domain.Reference, 0, 60)
	for i := range 60 {
		many = append(many, domain.Reference{Field: "near", Type: "location", ID: mk(fmt.Sprint("M", i)).ID})
	}
	prev := get(r.ID)
	next := *prev
	next.Owner = prev.Owner.Clone()
	next.Refs = append(next.Refs, many...)
	next.TagsByAdmin = true
	if err := locs.UpdateLocation(ctx, prev, &next); !isInvalid(err, "near") {
		t.Fatalf("over the budget: %v", err)
	}
	audit("refused")

	// The target trashed: hidden; restored: shown.
	if err := locs.DeleteLocation(ctx, get(byModule.ID)); err != nil {
		t.Fatal(err)
	}
	if refs := get(r.ID).Refs; !refs[0].Hidden || refs[1].Hidden {
		t.Fatalf("after the target's trash: %+v", refs)
	}
	audit("target trashed")
	if err := st.RestoreEntity(ctx, c.ID, byModule.EntityID, admin.ID); err != nil {
		t.Fatal(err)
	}
	if refs := get(r.ID).Refs; refs[0].Hidden {
		t.Fatalf("after the target's restore: %+v", refs)
	}
	audit("target restored")

	// The target purged: dropped.
	if err := locs.DeleteLocation(ctx, get(byModule.ID)); err != nil {
		t.Fatal(err)
	}
	if err := store.ExpireTrash(ctx, st, c.ID, byModule.EntityID); err != nil {
		t.Fatal(err)
	}
	if n, _, err := st.SweepPurges(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if refs := get(r.ID).Refs; len(refs) != 1 || refs[0].Field != "by" {
		t.Fatalf("after the target's purge: %+v", refs)
	}
	audit("target purged")

	// The referrer trashed then purged: its links go.
	if err := locs.DeleteLocation(ctx, get(r.ID)); err != nil {
		t.Fatal(err)
	}
	audit("referrer trashed")
	if err := store.ExpireTrash(ctx, st, c.ID, r.EntityID); err != nil {
		t.Fatal(err)
	}
	if n, _, err := st.SweepPurges(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if links, _, err := store.ReferencesOf(st).Referrers(ctx, c.ID, byEntity.EntityID, "by", true, 10); err != nil || len(links) != 0 {
		t.Fatalf("links after the referrer's purge: %v %v", links, err)
	}
	audit("referrer purged")
}

func isInvalid(err error, field string) bool {
	var e *apperr.Error
	return errors.As(err, &e) && e.Fields != nil && e.Fields.Has(field)
}
