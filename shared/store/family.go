package store

import (
	"context"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// What a family's own storage uses of the kernel. A family whose records the kernel's
// cross-kind mechanisms (entities, copies, counters, sync, trash) do not manage keeps its item
// types and its calls beside its routes: the table, its transactions, the id sequences, the
// clock and the error map are the kernel's, and so are the keys. The kernel spells a record's
// keys in the campaign's partition (RecordKey, CounterKey) and the key of the record's own
// partition (PartitionOf); the family names the items inside that partition (Partition.Item).

// Key is an item's primary key.
type Key = layout.ItemKey

// Table is the single table, for a family's queries and writes of its own items.
func (s *Store) Table() dynamo.Table { return s.table }

// WriteTx starts a transaction of a family's own items.
func (s *Store) WriteTx() *dynamo.WriteTx { return s.db.WriteTx() }

// Now is the store's clock (UTC; tests set it).
func (s *Store) Now() time.Time { return s.now() }

// NextIDs takes n consecutive ids of the campaign's id sequence named sequence (a kind's ids)
// in one update; the first is returned.
func (s *Store) NextIDs(ctx context.Context, cid int64, sequence string, n int) (int64, error) {
	return s.reserveIDs(ctx, layout.CampaignPK(cid), sequence, n)
}

// GetItem reads item k into out, strongly consistent; ErrNotFound when there is none.
func (s *Store) GetItem(ctx context.Context, k Key, out any) error {
	return s.getItem(ctx, k.PK, k.SK, out)
}

// DeleteItems deletes items by key in batches (an absent item is no error).
func (s *Store) DeleteItems(ctx context.Context, keys []Key) error {
	all := make([]dynamo.Keyed, len(keys))
	for i, k := range keys {
		all[i] = dynamo.Keys{k.PK, k.SK}
	}
	return s.batchDelete(ctx, all)
}

// Wrap maps a DynamoDB error to Lorekeep's (apperr): the one error map of the storage.
func Wrap(err error) error { return layout.Wrap(err) }

// FormatTime writes t as the table stores times (sortable); ParseTime reads it back.
func FormatTime(t time.Time) string { return layout.FormatTime(t) }

// ParseTime reads a time written by FormatTime (zero for an unreadable one).
func ParseTime(s string) time.Time { return layout.ParseTime(s) }

// EntityKey is the key of entity eid of campaign cid.
func EntityKey(cid, eid int64) Key { return RecordKey(cid, layout.EntityPrefix, eid) }

// EntityPartition is entity eid's partition, where what hangs from it lives.
func EntityPartition(cid, eid int64) Partition { return PartitionOf(cid, layout.EntityPrefix, eid) }

// RecordKey is the key of record id of kind in campaign cid's partition.
func RecordKey(cid int64, kind string, id int64) Key {
	return Key{PK: layout.CampaignPK(cid), SK: layout.RecordSK(kind, id)}
}

// CounterKey is the key of the campaign's count of kind's records.
func CounterKey(cid int64, kind string) Key {
	return Key{PK: layout.CampaignPK(cid), SK: layout.CounterPrefix + kind}
}

// Partition is the partition of the items record (kind, id) holds besides its home.
type Partition struct{ pk string }

// PartitionOf is the own partition of record id of kind in campaign cid.
func PartitionOf(cid int64, kind string, id int64) Partition {
	return Partition{pk: layout.ChildPK(cid, kind, id)}
}

// PK is the partition's key, for queries of its items.
func (p Partition) PK() string { return p.pk }

// Item is the key of the family's item sk of the partition.
func (p Partition) Item(sk string) Key { return Key{PK: p.pk, SK: sk} }

// TimeIndexSK is a sort key of GSI1 that orders (cid, id) by t; ParseTimeIndexSK reads the
// ids back.
func TimeIndexSK(t time.Time, cid, id int64) string {
	return layout.FormatTime(t) + "#" + layout.Pad(cid) + "#" + layout.Pad(id)
}

// TimeIndexBound is the greatest TimeIndexSK of time t, for a range up to t.
func TimeIndexBound(t time.Time) string { return layout.FormatTime(t) + "#~" }

// ParseTimeIndexSK reads the ids of a TimeIndexSK.
func ParseTimeIndexSK(sk string) (cid, id int64, ok bool) {
	return layout.ParseTimeIndexSK(sk)
}

// FamilyKind declares a kind a family stores itself (layout.FamilyKind's fields).
type FamilyKind = layout.FamilyKind

// DeclareKind registers a family's kind, from the family's declarations at init, so that the
// counters' checks and the audit know its items (a record's own partition is not an orphan).
func DeclareKind(k FamilyKind) { layout.RegisterFamilyKind(k) }

// Tx is a write's transaction as a family's step adds its own items to it (Step); the kernel's
// additions are its own.
type Tx struct{ b *txBuilder }

// Step makes a family's addition to a write's transaction.
func Step(add func(Tx)) TxStep { return func(b *txBuilder) { add(Tx{b}) } }

// Put writes item (with its pk and sk) unconditionally.
func (t Tx) Put(item any) { t.b.put(t.b.s.table.Put(item)) }

// PutNew writes item on condition that no item has its key; taken is the write's answer when
// one has.
func (t Tx) PutNew(item any, taken error) {
	if t.b.needs == nil {
		t.b.needs = map[int]error{}
	}
	t.b.needs[t.b.n] = taken
	t.b.put(t.b.s.table.Put(item).If("attribute_not_exists(pk)"))
}

// Delete deletes item k (an absent item is no error).
func (t Tx) Delete(k Key) { t.b.del(t.b.s.table.Delete("pk", k.PK).Range("sk", k.SK)) }

// Need makes the write conditional on item k existing; gone is its answer when it does not.
func (t Tx) Need(k Key, gone error) { t.b.need(k.PK, k.SK, gone) }

// WeatherDayKey is the day key of calendar calID's manual weather on d: one per day, ordered as
// dates in the calendar's partition.
func WeatherDayKey(cid, calID int64, d calengine.Date) Key {
	return Key{PK: layout.CalendarPK(cid, calID), SK: layout.WeatherDaySK(d)}
}

// QueryBetween reads the items of partition pk whose sort keys lie between lo and hi (both
// included), strongly consistent, decoded as I.
func QueryBetween[I any](ctx context.Context, s *Store, pk, lo, hi string) ([]I, error) {
	items, err := queryAll[I](ctx, s.table.Get("pk", pk).Range("sk", dynamo.Between, lo, hi).Consistent(true))
	return items, layout.Wrap(err)
}

// EntityWith reads entity eid and the first of keys (an item of its partition at any of its
// keys) that exists, into out (found), in one round trip or from what was read ahead;
// ErrNotFound without the entity.
func (s *Store) EntityWith(ctx context.Context, cid, eid int64, keys []Key, out any) (e *domain.Entity, found bool, err error) {
	ek := EntityKey(cid, eid)
	items, err := s.getItems(ctx, append([]Key{ek}, keys...)...)
	if err != nil {
		return nil, false, err
	}
	raw, ok := items[ek]
	if !ok {
		return nil, false, apperr.ErrNotFound
	}
	var ei layout.EntityItem
	if err := unmarshalItem(raw, &ei); err != nil {
		return nil, false, err
	}
	for _, k := range keys {
		if raw, ok := items[k]; ok {
			if err := unmarshalItem(raw, out); err != nil {
				return nil, false, err
			}
			found = true
			break
		}
	}
	return ei.Entity(), found, nil
}

// ChildHomeSKs are the sort keys a child of kind k placed by visibility may have its home at
// (a `self` child's is its own).
func ChildHomeSKs(k Kind, id int64) []string { return childHomeSKs(k.Prefix, id) }

// ConflictIsGone maps a write's failed condition (ErrConflict) to ErrNotFound, for a write whose
// only conditions are that what it names still exists.
func ConflictIsGone(err error) error { return conflictIsNotFound(err) }

// Add applies kernel steps to the transaction (a relation's placing, a link's move).
func (t Tx) Add(steps ...TxStep) {
	for _, st := range steps {
		if st != nil {
			st(t.b)
		}
	}
}

// GetItems reads items by key (100 a BatchGetItem), strongly consistent, taking what was read
// ahead; missing ones are absent from the map.
func (s *Store) GetItems(ctx context.Context, keys ...Key) (map[Key]dynamo.Item, error) {
	return s.getItems(ctx, keys...)
}

// Write runs a transaction of the family's steps: a failed Need answers its error, any other
// failed condition ErrConflict.
func (s *Store) Write(ctx context.Context, steps ...TxStep) error {
	b := s.newTx()
	for _, st := range steps {
		if st != nil {
			st(b)
		}
	}
	return b.run(ctx)
}

// PutIf writes item on condition cond (DynamoDB's condition syntax, with args).
func (t Tx) PutIf(item any, cond string, args ...any) {
	t.b.put(t.b.s.table.Put(item).If(cond, args...))
}

// DeleteIf deletes item k on condition cond (with args).
func (t Tx) DeleteIf(k Key, cond string, args ...any) {
	t.b.del(t.b.s.table.Delete("pk", k.PK).Range("sk", k.SK).If(cond, args...))
}

// CampaignPartition is the campaign's own partition (its records' homes and indexes).
func CampaignPartition(cid int64) Partition { return Partition{pk: layout.CampaignPK(cid)} }

// ListVisible reads one page of the items of kind placed by visibility in partition p that
// reader a may see (its audience's range and its own), decoded as I.
func ListVisible[I any, T any](ctx context.Context, s *Store, kind Kind, p Partition, a domain.Access, f domain.Filter, page domain.PageRequest, record func(I) T) (domain.Page[T], error) {
	l := listSpec{ranges: childRanges(kind.Prefix, p.pk, a)}
	l.filter(f)
	return listPage(ctx, s, l, page, record)
}

// QueryPrefix reads the items of partition p whose sort keys begin with prefix, strongly
// consistent, decoded as I.
func QueryPrefix[I any](ctx context.Context, s *Store, p Partition, prefix string) ([]I, error) {
	items, err := queryAll[I](ctx, s.table.Get("pk", p.pk).Range("sk", dynamo.BeginsWith, prefix).Consistent(true))
	return items, layout.Wrap(err)
}
