package store

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Child kinds on the kernel. A family whose records live in their parent record's partition,
// one audience (whoever sees the parent: the admins' range), declares a ChildKind: its row of
// the kind table (its Parent kind, placement layout.PlaceMapPoint), where its record keeps what
// the kernel manages (Child) and its item type (ChildHome beside the family's own fields). The
// kernel places it, counts it, moves its sync pointer and checks its parent in every write; a
// parent's delete takes the partition.

// MapPointKind is the row of a location's map points.
var MapPointKind = layout.MustKind(layout.MapPointPrefix)

// Child is what the kernel keeps of a child record, as pointers into it.
type Child struct {
	Meta     *domain.Meta
	ParentID int64 // the parent record (of the kind's Parent kind) whose partition holds it
}

// ChildKind is a family's child kind: R its record, I its item.
type ChildKind[R any, I any] struct {
	Kind     Kind
	Sequence string // the campaign's id sequence of the kind
	Of       func(*R) Child
	Item     func(*R) I
	Record   func(I) R
}

// ChildHome is the kernel's part of the item of child record m of kind k under parent.
func ChildHome(k Kind, parent int64, m domain.Meta) MetaAttrs {
	return layout.ToMetaAttrs(layout.ChildPK(m.CampaignID, k.Parent, parent), layout.RecordSK(k.Prefix, m.ID), m)
}

// Key is the key of child id of parent in campaign cid.
func (k ChildKind[R, I]) Key(cid, parent, id int64) Key {
	return Key{PK: layout.ChildPK(cid, k.Kind.Parent, parent), SK: layout.RecordSK(k.Kind.Prefix, id)}
}

func (k ChildKind[R, I]) slots(r *R) []layout.Slot {
	c := k.Of(r)
	key := k.Key(c.Meta.CampaignID, c.ParentID, c.Meta.ID)
	return []layout.Slot{{PK: key.PK, SK: key.SK, Home: true, Counter: layout.CounterSK(k.Kind.Prefix), Attr: layout.ClassAdmin, Id: c.Meta.ID}}
}

func (k ChildKind[R, I]) ref(r *R) func() *layout.SyncRef {
	return func() *layout.SyncRef {
		c := k.Of(r)
		return &layout.SyncRef{Kind: k.Kind.Prefix, Ptr: layout.SyncPointer{PK: layout.ChildPK(c.Meta.CampaignID, k.Kind.Parent, c.ParentID), ID: c.Meta.ID}, Updated: c.Meta.UpdatedAt}
	}
}

// parentExists is the check that r's parent still exists (a parent being deleted is gone from
// the first step of its delete): ErrNotFound otherwise.
func (k ChildKind[R, I]) parentExists(s *Store, r *R) TxStep {
	c := k.Of(r)
	return s.exists(layout.CampaignPK(c.Meta.CampaignID), layout.RecordSK(k.Kind.Parent, c.ParentID), apperr.ErrNotFound)
}

// Get reads child id of parent; ErrNotFound when there is none.
func (k ChildKind[R, I]) Get(ctx context.Context, s *Store, cid, parent, id int64) (*R, error) {
	key := k.Key(cid, parent, id)
	return getRecord(ctx, s, key.PK, key.SK, k.Record)
}

// List reads one page of parent's children, ordered by id.
func (k ChildKind[R, I]) List(ctx context.Context, s *Store, cid, parent int64, f domain.Filter, p domain.PageRequest) (domain.Page[R], error) {
	l := listSpec{ranges: []layout.ListRange{{PK: layout.ChildPK(cid, k.Kind.Parent, parent), Prefix: k.Kind.Prefix + "#",
		Counter: layout.CounterSK(k.Kind.Prefix), Attr: layout.ClassAdmin}}}
	l.filter(f)
	return listPage(ctx, s, l, p, k.Record)
}

// Create stores a new child, its id from the campaign's sequence, on condition that its parent
// still exists (ErrNotFound otherwise).
func (k ChildKind[R, I]) Create(ctx context.Context, s *Store, r *R) error {
	return s.createChild(ctx, k.Of(r).Meta, k.Sequence, func() any { return k.Item(r) }, func() []layout.Slot { return k.slots(r) },
		k.parentExists(s, r), synced(nil, k.ref(r)))
}

// Update writes next over prev if nobody wrote since prev was read and the parent still exists.
func (k ChildKind[R, I]) Update(ctx context.Context, s *Store, prev, next *R) error {
	return s.updateChild(ctx, k.Of(prev).Meta, k.Of(next).Meta, func() any { return k.Item(next) },
		func() []layout.Slot { return k.slots(prev) }, func() []layout.Slot { return k.slots(next) },
		k.parentExists(s, next), synced(k.ref(prev), k.ref(next)))
}

// Delete deletes a child (its count and pointer with it) if nobody wrote since it was read.
func (k ChildKind[R, I]) Delete(ctx context.Context, s *Store, r *R) error {
	return s.deleteChild(ctx, k.Of(r).Meta, k.slots(r), synced(k.ref(r), nil))
}

// GetWithParent reads parent record parent (into parentOut, the family's item of it) and its
// child id in one BatchGetItem (or from what was read ahead); ErrNotFound unless both exist (a
// child under another parent is not found).
func (k ChildKind[R, I]) GetWithParent(ctx context.Context, s *Store, cid, parent, id int64, parentOut any) (*R, error) {
	var it I
	if err := s.getPair(ctx, Key{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Kind.Parent, parent)}, []Key{k.Key(cid, parent, id)}, parentOut, &it); err != nil {
		return nil, err
	}
	r := k.Record(it)
	return &r, nil
}
