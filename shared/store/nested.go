package store

import (
	"context"
	"slices"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Owner kinds on the kernel. A family whose records own an entity and nest under a parent of
// their own kind (locations, tags) declares a NestedKind: its row of the kind table, where its
// record keeps what the kernel manages (Nested), and its item type (the kernel's home
// attributes, OwnerHome, beside the family's own fields). The kernel does the rest in every
// write's transaction: the entity, the copies and counts, the parent checks and child links,
// names, mentions, tag links, images, sync pointers, and the trash.

// Kind is a row of the kernel's kind table.
type Kind = layout.KindSpec

// The owner kinds' rows.
var (
	LocationKind = layout.LocationKind
	TagKind      = layout.TagKind
)

// The entity child kinds' rows.
var (
	NoteKind  = layout.MustKind(layout.NotePrefix)
	EventKind = layout.MustKind(layout.EventPrefix)
	// WeatherKind: a calendar's manual weather of one day, placed by visibility.
	WeatherKind = layout.MustKind(layout.WeatherPrefix)
)

// DeclareOwnerKind registers a family's owner kind (at init, from its declarations): Kanka's
// module m (its entity type and names: domain.RegisterModule) and its row of the kind table,
// the KIND prefix of its keys, placed as an owner (home, public copy unless private, an entity
// mirroring it), synced and counted, with its ?deleted=1 list gone, nested under a parent of
// its own kind through parentAttr when m nests. The kernel's mechanisms read the kind table,
// so the kind needs no other change to the kernel.
func DeclareOwnerKind(m domain.Module, prefix, gone, parentAttr string) Kind {
	if m.Nested != (parentAttr != "") {
		panic("store: module " + m.Code + " nests exactly when it has a parent attribute")
	}
	k := layout.RegisterOwnerKind(layout.KindSpec{Prefix: prefix, EntityType: m.Code, Owner: true, Synced: true,
		Counted: layout.ClassAdmin, Placement: layout.PlaceOwner, Gone: gone, ParentAttr: parentAttr, ParentField: parentAttr, Event: m.Code})
	domain.RegisterModule(m)
	return k
}

// EventKinds are the kinds whose writes the stream announces (the kind table's Event column), in
// table order: what a webhook may subscribe to.
func EventKinds() []string {
	var out []string
	for _, k := range layout.Kinds {
		if k.Event != "" {
			out = append(out, k.Event)
		}
	}
	var packs []string
	for _, p := range entityPacks { // declared by their families (DeclareEntityPack)
		packs = append(packs, p.kind)
	}
	slices.Sort(packs)
	return append(out, packs...)
}

// TxStep is one of the kernel's additions to a write's transaction (a check, a link, an
// index's change): only the kernel makes them.
type TxStep = func(*txBuilder)

// MetaAttrs and OwnerAttrs are the attributes of an owner record's home that the kernel reads
// and writes; a family's item type embeds both (OwnerHome makes them).
type (
	MetaAttrs  = layout.MetaAttrs
	OwnerAttrs = layout.OwnerAttrs
)

// OwnerHome is the kernel's part of the home item of record (m, o) of owner kind k: its keys,
// its write history and what it holds as an owner (name, entry, privacy, tags, image...).
func OwnerHome(k Kind, m domain.Meta, o domain.Owner) (MetaAttrs, OwnerAttrs) {
	return layout.ToMetaAttrs(layout.CampaignPK(m.CampaignID), layout.RecordSK(k.Prefix, m.ID), m), toOwnerAttrs(o)
}

// Nested is what the kernel keeps of a nested owner record, as pointers into it.
type Nested struct {
	Meta          *domain.Meta
	Owner         *domain.Owner
	ParentID      *int64                 // nil: a root
	Ancestry      *[]domain.AncestorLink // the parent chain as read, for the parent checks
	ParentPrivate *bool                  // set by the kernel's reads and writes
}

// NestedKind is a family's nested owner kind: R its record, I its item.
type NestedKind[R any, I any] struct {
	Kind   Kind
	Of     func(*R) Nested
	Item   func(*R) I
	Record func(I) R
	// Trashed: a delete moves the record to the trash (restorable for 30 days); otherwise it
	// is deleted with its cascade.
	Trashed bool
}

// Get reads record id and its public copy (read ahead on the kind's routes: one round trip);
// ErrNotFound when there is none. ParentPrivate comes from the public copy, which has no parent
// when the parent is private, so it is known for public records, the only ones a non-admin sees.
func (k NestedKind[R, I]) Get(ctx context.Context, s *Store, cid, id int64) (*R, error) {
	it, parentHidden, err := getNested[I](ctx, s, k.Kind, cid, id)
	if err != nil {
		return nil, err
	}
	r := k.Record(it)
	n := k.Of(&r)
	*n.ParentPrivate = n.ParentID != nil && parentHidden
	return &r, nil
}

// List reads one page of the campaign's records of the kind, ordered by id: an admin's range
// holds every record, everyone else's only the public ones.
func (k NestedKind[R, I]) List(ctx context.Context, s *Store, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[R], error) {
	return listNested(ctx, s, k.Kind, cid, f, hidePrivate, p, k.Record)
}

// Create stores a new record, its entity and its link in its parent in one transaction, with
// ids from the campaign's sequences, on condition that its parent still exists with the
// privacy read (which places the public copy), with also's steps: two round trips (three when
// the parent was not read before, by the parent checks).
func (k NestedKind[R, I]) Create(ctx context.Context, s *Store, r *R, also ...TxStep) error {
	n := k.Of(r)
	return s.createNested(ctx, k.Kind, n.Meta, n.Owner, n.ParentID, n.Ancestry, n.ParentPrivate, func() any { return k.Item(r) }, also...)
}

// Update writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise), and, when the parent changes, that the new parent chain is still the
// one read (next's Ancestry). The entity, the counts and the link follow in the same
// transaction, with also's steps; the public copy is placed by its parent's privacy, checked
// in it; a change of privacy re-places the public copies of the children.
func (k NestedKind[R, I]) Update(ctx context.Context, s *Store, prev, next *R, also ...TxStep) error {
	p, n := k.Of(prev), k.Of(next)
	checks, parentPrivate, placed, err := s.nestedUpdate(ctx, k.Kind, n.Meta.CampaignID, n.Meta.ID, p.ParentID, n.ParentID, *n.Ancestry, p.Owner.IsPrivate, n.Owner.IsPrivate)
	if err != nil {
		return err
	}
	if placed {
		*n.ParentPrivate = parentPrivate
	}
	return s.updateOwner(ctx, k.Kind, p.Meta, n.Meta, p.Owner, n.Owner, func() any { return k.Item(next) }, append(checks, also...)...)
}

// Delete deletes record r, or moves it to the trash (Trashed): its children become roots (put
// back by a restore); what hangs from its entity goes with its cascade (or, trashed, stays
// unreachable until the purge).
func (k NestedKind[R, I]) Delete(ctx context.Context, s *Store, r *R, also ...TxStep) error {
	n := k.Of(r)
	steps := append([]TxStep{s.linkParent(k.Kind, n.Meta.CampaignID, n.Meta.ID, n.ParentID, nil, n.Owner.IsPrivate, n.Owner.IsPrivate)}, also...)
	if k.Trashed {
		return s.trashOwner(ctx, k.Kind, n.Meta, n.Owner, k.Item(r), steps...)
	}
	return s.deleteOwner(ctx, k.Kind, n.Meta, n.Owner, steps...)
}

// ResumeDelete finishes a delete of record id that failed after its first step; it reports
// whether there was one.
func (k NestedKind[R, I]) ResumeDelete(ctx context.Context, s *Store, cid, id int64) (bool, error) {
	return s.resumeDelete(ctx, cid, k.Kind.Prefix, id)
}

// Ancestry reads the chain from record id upwards (id first), at most max links.
func (k NestedKind[R, I]) Ancestry(ctx context.Context, s *Store, cid, id int64, max int) ([]domain.AncestorLink, error) {
	return s.ancestry(ctx, k.Kind, cid, id, max)
}

// A tag's member pack (tagpacks.go) changes with the tag: the steps of its writes.

// TagPackCreated makes a new tag's empty member pack.
func TagPackCreated(t *domain.Tag) TxStep { return func(b *txBuilder) { b.s.newTagPack(t)(b) } }

// TagPackUpdated re-places a tag's member pack when its privacy changes.
func TagPackUpdated(prev, next *domain.Tag) TxStep {
	return func(b *txBuilder) {
		if step := b.s.tagPackPrivacy(prev, next); step != nil {
			step(b)
		}
	}
}

// TagPackDeleted removes a deleted tag's member pack.
func TagPackDeleted(t *domain.Tag) TxStep { return func(b *txBuilder) { b.s.tagPackGone(t)(b) } }
