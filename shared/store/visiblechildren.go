package store

import (
	"context"
	"sync"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Children placed by visibility on the kernel. A family whose records hang from a parent
// record (an entity's posts and reminders, a calendar's weather) and are placed by visibility
// declares a VisibleChildKind: its row of the kind table (placement layout.PlaceChild under
// its Parent kind), where its record keeps what the kernel manages (VisibleChild) and its item
// type (VisibleChildHome beside the family's own fields). The kernel places it in the parent's
// partition (home, the audiences' copies, the creator's own range and, under an entity, the
// related=1 bucket), counts it, moves its sync pointer, keeps the mentions of its entry and
// checks the parent in every write; the parent's delete takes the partition.

// VisibleChild is what the kernel keeps of a child record placed by visibility, as pointers
// into it.
type VisibleChild struct {
	Meta       *domain.Meta
	ParentID   int64 // the parent record, of the kind's Parent kind (an entity, a calendar)
	Visibility domain.Visibility
	IsPrivate  bool    // admins only, whatever the visibility
	Entry      *string // the entry whose mentions the kernel keeps (nil: none)
}

// VisibleChildKind is a family's kind of children placed by visibility: R its record, I its item.
type VisibleChildKind[R any, I any] struct {
	Kind     Kind
	Sequence string // the campaign's id sequence of the kind
	Of       func(*R) VisibleChild
	Item     func(*R) I
	Record   func(I) R
	// Created and Updated, when set, are the checks of a new and of a rewritten child's parent
	// instead of its existence (an event's holds its entity's links privacy as read, a marker's
	// write its map's centre).
	Created func(*R) TxStep
	Updated func(prev, next *R) TxStep
}

// VisibleChildHome is the kernel's part of the item of child m of kind k under parent.
func VisibleChildHome(k Kind, parent int64, m domain.Meta) MetaAttrs {
	return layout.ToMetaAttrs(layout.ChildPK(m.CampaignID, k.Parent, parent), layout.RecordSK(k.Prefix, m.ID), m)
}

func (k VisibleChildKind[R, I]) slots(r *R) []layout.Slot {
	c := k.Of(r)
	m := c.Meta
	slots := layout.ChildSlots(k.Kind.Prefix, layout.ChildPK(m.CampaignID, k.Kind.Parent, c.ParentID), m.ID, m.CreatedBy, c.Visibility, c.IsPrivate)
	if k.Kind.Parent != layout.EntityPrefix { // only an entity's children have related=1 copies
		return slots
	}
	return append(slots, layout.RelatedSlot(m.CampaignID, c.ParentID, k.Kind.Prefix, m.ID))
}

func (k VisibleChildKind[R, I]) ref(r *R) func() *layout.SyncRef {
	return func() *layout.SyncRef {
		c := k.Of(r)
		return &layout.SyncRef{Kind: k.Kind.Prefix, Ptr: layout.SyncPointer{PK: layout.ChildPK(c.Meta.CampaignID, k.Kind.Parent, c.ParentID), ID: c.Meta.ID,
			IsPrivate: c.IsPrivate, Visibility: string(c.Visibility), CreatedBy: c.Meta.CreatedBy}, Updated: c.Meta.UpdatedAt}
	}
}

// mentionSource is the mention source of r (its id read once it has one).
func (k VisibleChildKind[R, I]) mentionSource(r *R) mentionSource {
	c := k.Of(r)
	v := c.Visibility
	if v == "" {
		v = domain.VisibilityAll
	}
	return mentionSource{cid: c.Meta.CampaignID, src: c.ParentID, post: func() int64 { return k.Of(r).Meta.ID }, visibility: v, createdBy: c.Meta.CreatedBy}
}

func (k VisibleChildKind[R, I]) entry(r *R) string {
	if r == nil {
		return ""
	}
	if e := k.Of(r).Entry; e != nil {
		return *e
	}
	return ""
}

// mentions plans the change of the mentions from prev's entry to next's (nil: none).
func (k VisibleChildKind[R, I]) mentions(ctx context.Context, s *Store, prev, next *R) (TxStep, error) {
	if (prev == nil || k.Of(prev).Entry == nil) && (next == nil || k.Of(next).Entry == nil) {
		return nil, nil
	}
	var ps, ns mentionSource
	if prev != nil {
		ps = k.mentionSource(prev)
	}
	if next != nil {
		ns = k.mentionSource(next)
	}
	return s.mentionPlan(ctx, k.entry(prev), k.entry(next), ps, ns, next == nil)
}

func (k VisibleChildKind[R, I]) parentExists(s *Store, r *R) TxStep {
	c := k.Of(r)
	return s.exists(layout.CampaignPK(c.Meta.CampaignID), layout.RecordSK(k.Kind.Parent, c.ParentID), apperr.ErrNotFound)
}

// parentHeld is a create's check of its parent.
func (k VisibleChildKind[R, I]) parentHeld(s *Store, r *R) TxStep {
	if k.Created != nil {
		return k.Created(r)
	}
	return k.parentExists(s, r)
}

// GetWithEntity reads entity eid and its child id in one round trip (or from what was read
// ahead); ErrNotFound unless both exist.
func (k VisibleChildKind[R, I]) GetWithEntity(ctx context.Context, s *Store, cid, eid, id int64) (*domain.Entity, *R, error) {
	return getWithEntity(ctx, s, cid, eid, k.Kind.Prefix, id, k.Record)
}

// GetWithParent reads parent record parent (into parentOut, the family's item of it) and its
// child id in one round trip (or from what was read ahead); ErrNotFound unless both exist.
func (k VisibleChildKind[R, I]) GetWithParent(ctx context.Context, s *Store, cid, parent, id int64, parentOut any) (*R, error) {
	var it I
	var homes []layout.ItemKey
	for _, sk := range childHomeSKs(k.Kind.Prefix, id) {
		homes = append(homes, layout.ItemKey{PK: layout.ChildPK(cid, k.Kind.Parent, parent), SK: sk})
	}
	if err := s.getPair(ctx, layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Kind.Parent, parent)}, homes, parentOut, &it); err != nil {
		return nil, err
	}
	r := k.Record(it)
	return &r, nil
}

// List reads one page of parent's children that reader a may see: its audience's range and
// its own range, never anyone else's; where adds a condition of the family's.
func (k VisibleChildKind[R, I]) List(ctx context.Context, s *Store, cid, parent int64, a domain.Access, f domain.Filter, p domain.PageRequest, where ...Where) (domain.Page[R], error) {
	l := listSpec{ranges: childRanges(k.Kind.Prefix, layout.ChildPK(cid, k.Kind.Parent, parent), a)}
	l.filter(f)
	for _, w := range where {
		l.where(w.Cond, w.Args...)
	}
	return listPage(ctx, s, l, p, k.Record)
}

// Where is a filter condition on a list's items (DynamoDB's expression syntax).
type Where struct {
	Cond string
	Args []any
}

// Create stores a new child, its id from the campaign's sequence, on condition that its parent
// still exists (ErrNotFound otherwise), with also's steps.
func (k VisibleChildKind[R, I]) Create(ctx context.Context, s *Store, r *R, also ...TxStep) error {
	mentions, err := k.mentions(ctx, s, nil, r)
	if err != nil {
		return err
	}
	steps := append([]TxStep{k.parentHeld(s, r), synced(nil, k.ref(r)), mentions}, also...)
	return s.createChild(ctx, k.Of(r).Meta, k.Sequence, func() any { return k.Item(r) }, func() []layout.Slot { return k.slots(r) }, steps...)
}

// Update writes next over prev if nobody wrote since prev was read and the parent exists, with
// also's steps.
func (k VisibleChildKind[R, I]) Update(ctx context.Context, s *Store, prev, next *R, also ...TxStep) error {
	mentions, err := k.mentions(ctx, s, prev, next)
	if err != nil {
		return err
	}
	held := k.parentExists(s, next)
	if k.Updated != nil {
		held = k.Updated(prev, next)
	}
	steps := append([]TxStep{held, synced(k.ref(prev), k.ref(next)), mentions}, also...)
	return s.updateChild(ctx, k.Of(prev).Meta, k.Of(next).Meta, func() any { return k.Item(next) },
		func() []layout.Slot { return k.slots(prev) }, func() []layout.Slot { return k.slots(next) }, steps...)
}

// Delete deletes a child (its copies, counts and mentions) if nobody wrote since it was read,
// with also's steps.
func (k VisibleChildKind[R, I]) Delete(ctx context.Context, s *Store, r *R, also ...TxStep) error {
	mentions, err := k.mentions(ctx, s, r, nil)
	if err != nil {
		return err
	}
	return s.deleteChild(ctx, k.Of(r).Meta, k.slots(r), append([]TxStep{synced(k.ref(r), nil), mentions}, also...)...)
}

// relatedDecoders decode the rows of the related=1 buckets by kind, declared by the families.
var relatedDecoders = map[string]func(item dynamo.Item, owner int64, out *timeline.Related) error{}

// DeclareRelated registers how a related=1 read decodes the bucket rows of kind (the copies
// an VisibleChildKind places there) into out, for owner entity owner.
func DeclareRelated(kind Kind, decode func(item dynamo.Item, owner int64, out *timeline.Related) error) {
	relatedDecoders[kind.Prefix] = decode
}

// getWithEntity reads an entity and one record (of kind, at either home key) of its partition
// (item type I) in one BatchGetItem; ErrNotFound unless both exist.
func getWithEntity[I any, T any](ctx context.Context, s *Store, cid, eid int64, kind string, id int64, record func(I) T) (*domain.Entity, *T, error) {
	var ei layout.EntityItem
	var it I
	var homes []layout.ItemKey
	for _, sk := range childHomeSKs(kind, id) {
		homes = append(homes, layout.ItemKey{PK: layout.EntityPK(cid, eid), SK: sk})
	}
	if err := s.getPair(ctx, layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, eid)}, homes, &ei, &it); err != nil {
		return nil, nil, err
	}
	t := record(it)
	return ei.Entity(), &t, nil
}

// CreateMany stores new children rs (a batch, all of one campaign): their ids in one round
// trip, then one transaction each (the child, its copies, counts and sync pointer, on condition
// that its parent still exists, with also's steps for it), at most writeConcurrency at once:
// 1 + len(rs) round trips. A transaction's failure is the error; the children written before it
// stay (each is whole), and the caller reports which were not.
func (k VisibleChildKind[R, I]) CreateMany(ctx context.Context, s *Store, rs []*R, also func(*R) []TxStep) (written int, err error) {
	if len(rs) == 0 {
		return 0, nil
	}
	first, err := s.reserveIDs(ctx, layout.CampaignPK(k.Of(rs[0]).Meta.CampaignID), k.Sequence, len(rs))
	if err != nil {
		return 0, err
	}
	txs := make([]*txBuilder, len(rs))
	for i, r := range rs {
		s.stampNew(k.Of(r).Meta, first+int64(i))
		b := s.newTx()
		steps := append([]TxStep{k.parentHeld(s, r), synced(nil, k.ref(r))}, also(r)...)
		for _, c := range steps {
			if c != nil {
				c(b)
			}
		}
		b.place(layout.Marshal(k.Item(r)), nil, k.slots(r), 0)
		txs[i] = b
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writeConcurrency)
	for _, b := range txs {
		g.Go(func() error {
			if err := conflictIsNotFound(b.run(gctx)); err != nil {
				return err
			}
			mu.Lock()
			written++
			mu.Unlock()
			return nil
		})
	}
	return written, g.Wait()
}

// Home is the key of r's home (by its visibility: a `self` child's is its own).
func (k VisibleChildKind[R, I]) Home(r *R) Key {
	sl := k.slots(r)[0]
	return Key{PK: sl.PK, SK: sl.SK}
}

// Homes are the keys child id of parent may have its home at, for a read that does not know
// its visibility.
func (k VisibleChildKind[R, I]) Homes(cid, parent, id int64) []Key {
	var out []Key
	for _, sk := range childHomeSKs(k.Kind.Prefix, id) {
		out = append(out, Key{PK: layout.ChildPK(cid, k.Kind.Parent, parent), SK: sk})
	}
	return out
}
