package store_test

import (
	"context"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// A kind the kernel's code never names, declared as a family declares one: its row and its
// item. Everything the kernel does for an owner kind must follow from the declaration.
var chronicleKind = store.DeclareOwnerKind(domain.Module{ID: 90, Code: "chronicle", Singular: "Chronicle", Plural: "Chronicles", Nested: true},
	"CHRONICLE", "chronicle", "chronicle_id")

type chronicle struct {
	domain.Meta
	domain.Owner
	ParentID      *int64
	Ancestry      []domain.AncestorLink
	ParentPrivate bool
	Era           string
}

type chronicleItem struct {
	store.MetaAttrs
	store.OwnerAttrs
	ParentID     *int64 `dynamo:"chronicle_id,omitempty"`
	Era          string `dynamo:"era,omitempty"`
	ParentHidden bool   `dynamo:"parent_hidden,omitempty"`
}

var chronicles = store.NestedKind[chronicle, chronicleItem]{
	Kind: chronicleKind, Trashed: true,
	Of: func(c *chronicle) store.Nested {
		return store.Nested{Meta: &c.Meta, Owner: &c.Owner, ParentID: c.ParentID, Ancestry: &c.Ancestry, ParentPrivate: &c.ParentPrivate}
	},
	Item: func(c *chronicle) chronicleItem {
		meta, owner := store.OwnerHome(chronicleKind, c.Meta, c.Owner)
		return chronicleItem{MetaAttrs: meta, OwnerAttrs: owner, ParentID: c.ParentID, Era: c.Era, ParentHidden: c.ParentID != nil && c.ParentPrivate}
	},
	Record: func(it chronicleItem) chronicle {
		return chronicle{Meta: it.Meta(), Owner: it.Owner(), ParentID: it.ParentID, Era: it.Era}
	},
}

// A declared owner kind gets the kernel's whole owner behaviour: ids, an entity that mirrors
// it, the audiences' ranges and counts, nesting with a private parent hidden from the public
// copy, names (the entities list and search), a trash that orphans its children and a restore
// that puts everything back, the sweeper's purge; the campaign audits clean at every step.
func TestADeclaredOwnerKindGetsTheKernelsOwnerBehaviour(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c", IsPublic: true})
	audit := func(when string) {
		t.Helper()
		if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
			t.Fatalf("audit %s: %v %v", when, err, problems)
		}
	}
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}
	root := chronicle{Meta: meta, Owner: domain.Owner{Name: "Age of Ash", IsPrivate: true}, Era: "first"}
	if err := chronicles.Create(ctx, st, &root); err != nil {
		t.Fatal(err)
	}
	child := chronicle{Meta: meta, Owner: domain.Owner{Name: "Fall of Karsus"}, ParentID: &root.ID}
	if err := chronicles.Create(ctx, st, &child); err != nil {
		t.Fatal(err)
	}
	if root.EntityID == 0 || child.EntityID == 0 || !child.ParentPrivate {
		t.Fatalf("created %+v and %+v: want entities, and the child's parent known private", root, child)
	}
	audit("after the creates")

	got, err := chronicles.Get(ctx, st, c.ID, child.ID)
	if err != nil || got.Name != "Fall of Karsus" || got.ParentID == nil || *got.ParentID != root.ID || !got.ParentPrivate {
		t.Fatalf("get: %+v %v", got, err)
	}
	for _, hide := range []bool{false, true} {
		page, err := chronicles.List(ctx, st, c.ID, domain.Filter{}, hide, domain.PageRequest{Page: 1, Limit: 10})
		want := 2
		if hide {
			want = 1 // the public range: the private root is not in it
		}
		if err != nil || len(page.Items) != want || page.Total != want {
			t.Fatalf("list (hide private %v): %d of %d, %v; want %d", hide, len(page.Items), page.Total, err, want)
		}
	}
	ents, err := st.ListEntities(ctx, c.ID, domain.EntityFilter{Types: []string{"chronicle"}}, false, domain.PageRequest{Page: 1, Limit: 10})
	if err != nil || len(ents.Items) != 2 || ents.Items[0].Type != "chronicle" {
		t.Fatalf("entities of the kind: %+v %v", ents, err)
	}
	if e, err := st.GetEntity(ctx, c.ID, child.EntityID); err != nil || e.Name != "Fall of Karsus" || e.ChildID != child.ID {
		t.Fatalf("the child's entity: %+v %v", e, err)
	}

	next := *got
	next.Era, next.IsPrivate = "second", true
	if err := chronicles.Update(ctx, st, got, &next); err != nil {
		t.Fatal(err)
	}
	audit("after the update")

	// The root's trash makes its child a root; the restore makes it a child again.
	if err := chronicles.Delete(ctx, st, &root); err != nil {
		t.Fatal(err)
	}
	if orphan, err := chronicles.Get(ctx, st, c.ID, child.ID); err != nil || orphan.ParentID != nil {
		t.Fatalf("the child after its parent's trash: %+v %v", orphan, err)
	}
	audit("after the trash")
	if err := st.RestoreEntity(ctx, c.ID, root.EntityID, admin.ID); err != nil {
		t.Fatal(err)
	}
	back, err := chronicles.Get(ctx, st, c.ID, child.ID)
	if err != nil || back.ParentID == nil || *back.ParentID != root.ID || back.Era != "second" {
		t.Fatalf("the child after the restore: %+v %v", back, err)
	}
	audit("after the restore")

	// A delete without the trash (as a tag's): the children become roots at once, the
	// cascade takes the record's partition.
	purging := chronicles
	purging.Trashed = false
	restored, err := chronicles.Get(ctx, st, c.ID, root.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := purging.Delete(ctx, st, restored); err != nil {
		t.Fatal(err)
	}
	if _, err := chronicles.Get(ctx, st, c.ID, root.ID); err == nil {
		t.Fatal("the deleted root is still there")
	}
	if orphan, err := chronicles.Get(ctx, st, c.ID, child.ID); err != nil || orphan.ParentID != nil {
		t.Fatalf("the child after its parent's delete: %+v %v", orphan, err)
	}
	audit("after the delete")
}
