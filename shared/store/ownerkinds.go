package store

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Owner kinds that do not nest (calendars) on the kernel: a family declares an OwnerKind, its
// row of the kind table, where its record keeps its meta and owner, and its item type (OwnerHome
// beside the family's own fields). The kernel does the rest in every write's transaction, as
// for a nested kind (nested.go), parents aside.

// CalendarKind is the calendars' row.
var CalendarKind = layout.CalendarKind

// OwnerKind is a family's owner kind that does not nest: R its record, I its item.
type OwnerKind[R any, I any] struct {
	Kind   Kind
	Of     func(*R) (*domain.Meta, *domain.Owner)
	Item   func(*R) I
	Record func(I) R
	// Trashed: a delete moves the record to the trash (restorable for 30 days); otherwise it
	// is deleted with its cascade.
	Trashed bool
}

// Get reads record id; ErrNotFound when there is none.
func (k OwnerKind[R, I]) Get(ctx context.Context, s *Store, cid, id int64) (*R, error) {
	return getRecord(ctx, s, layout.CampaignPK(cid), layout.RecordSK(k.Kind.Prefix, id), k.Record)
}

// GetMany reads the records with the given ids in one batch (per 100); missing ones are
// absent from the map.
func (k OwnerKind[R, I]) GetMany(ctx context.Context, s *Store, cid int64, ids []int64) (map[int64]*R, error) {
	return getRecords(ctx, s, cid, k.Kind.Prefix, ids, true, func(it I) (int64, *R) {
		r := k.Record(it)
		m, _ := k.Of(&r)
		return m.ID, &r
	})
}

// List reads one page of the campaign's records of the kind, ordered by id: an admin's range
// holds every record, everyone else's only the public ones; a filter by name alone reads the
// name shards.
func (k OwnerKind[R, I]) List(ctx context.Context, s *Store, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[R], error) {
	return listNested(ctx, s, k.Kind, cid, f, hidePrivate, p, k.Record)
}

// Create stores a new record and its entity in one transaction, with ids from the campaign's
// sequences: two round trips.
func (k OwnerKind[R, I]) Create(ctx context.Context, s *Store, r *R, also ...TxStep) error {
	m, o := k.Of(r)
	return s.createOwner(ctx, k.Kind, m, o, func() any { return k.Item(r) }, also...)
}

// Update writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise). The entity and the totals follow in the same transaction.
func (k OwnerKind[R, I]) Update(ctx context.Context, s *Store, prev, next *R, also ...TxStep) error {
	pm, po := k.Of(prev)
	nm, no := k.Of(next)
	return s.updateOwner(ctx, k.Kind, pm, nm, po, no, func() any { return k.Item(next) }, also...)
}

// Delete deletes record r with its cascade, or moves it to the trash (Trashed), where what
// hangs from it stays, unreachable, until the purge.
func (k OwnerKind[R, I]) Delete(ctx context.Context, s *Store, r *R, also ...TxStep) error {
	m, o := k.Of(r)
	if k.Trashed {
		return s.trashOwner(ctx, k.Kind, m, o, k.Item(r), also...)
	}
	return s.deleteOwner(ctx, k.Kind, m, o, also...)
}

// ResumeDelete finishes a delete of record id that failed after its first step; it reports
// whether there was one.
func (k OwnerKind[R, I]) ResumeDelete(ctx context.Context, s *Store, cid, id int64) (bool, error) {
	return s.resumeDelete(ctx, cid, k.Kind.Prefix, id)
}
