package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// owner is a record that owns an entity (a location, a calendar). The entity mirrors its name
// and privacy; the record is counted in its kind's ranges. Creating, updating and deleting the
// record keep all of them in step in one transaction.
type owner struct {
	kind       string // key prefix: "LOCATION", "CALENDAR"
	entityType string // "location", "calendar"
	cid        int64
	id         int64
	entityID   int64
	name       string
	private    bool
	version    int64
}

func (o owner) slots() []slot { return ownerSlots(o.kind, o.cid, o.id, o.private) }

func (o owner) entityItem() entityItem {
	return entityItem{PK: campaignPK(o.cid), SK: recordSK(entityPrefix, o.entityID), ID: o.entityID,
		CampaignID: o.cid, Type: o.entityType, ChildID: o.id, Name: o.name, IsPrivate: o.private}
}

// ownerIDs allocates a new record's id and its entity's id in one round trip.
func (s *Store) ownerIDs(ctx context.Context, cid int64, sequence string) (id, entityID int64, err error) {
	ids, err := s.nextIDs(ctx, campaignPK(cid), sequence, "entity")
	if err != nil {
		return 0, 0, err
	}
	return ids[0], ids[1], nil
}

// createOwner writes a new record (item), its copies, its entity and its counts; checks adds
// the conditions the record depends on (its parent).
func (s *Store) createOwner(ctx context.Context, o owner, item any, checks ...func(*txBuilder)) error {
	b := s.newTx()
	b.place(marshal(item), nil, o.slots(), 0)
	b.put(s.table.Put(o.entityItem()).If("attribute_not_exists(pk)"))
	for _, c := range checks {
		c(b)
	}
	return b.run(ctx)
}

// updateOwner writes item over the record read as prev, on condition that nobody wrote since
// (ErrConflict otherwise). A change of name or privacy updates the entity too.
func (s *Store) updateOwner(ctx context.Context, prev, next owner, item any, checks ...func(*txBuilder)) error {
	b := s.newTx()
	b.place(marshal(item), prev.slots(), next.slots(), prev.version)
	if prev.name != next.name || prev.private != next.private {
		b.update(s.table.Update("pk", campaignPK(next.cid)).Range("sk", recordSK(entityPrefix, next.entityID)).
			Set("name", next.name).Set("is_private", next.private).If("attribute_exists(pk)"))
	}
	for _, c := range checks {
		c(b)
	}
	return b.run(ctx)
}

// tombstone stands for an owner whose delete has begun: its record and entity are gone (so no
// read finds it and no child write, which checks them, can start), what hung from it is being
// removed. The delete that wrote it, a retry of it, or `lorekeep migrate` finishes it.
type tombstone struct {
	PK       string `dynamo:"pk"`
	SK       string `dynamo:"sk"`
	Kind     string `dynamo:"kind"`
	ID       int64  `dynamo:"id"`
	CID      int64  `dynamo:"campaign_id"`
	EntityID int64  `dynamo:"entity_id"`
}

const tombstonePrefix = "DELETING#"

func tombstoneSK(kind string, id int64) string { return tombstonePrefix + recordSK(kind, id) }

// deleteOwner deletes an owner in three steps. First one transaction, conditional on the
// version read, removes the record, its copies, its entity and its counts and leaves a
// tombstone: a failure here changes nothing. Then the cascade (idempotent, batched and
// concurrent) removes what hung from it, and finally the tombstone goes. A failure after the
// first step leaves the record invisible and the tombstone to finish it.
func (s *Store) deleteOwner(ctx context.Context, o owner) error {
	t := tombstone{PK: campaignPK(o.cid), SK: tombstoneSK(o.kind, o.id), Kind: o.kind, ID: o.id, CID: o.cid, EntityID: o.entityID}
	b := s.newTx()
	b.remove(o.slots(), o.version)
	b.del(s.table.Delete("pk", campaignPK(o.cid)).Range("sk", recordSK(entityPrefix, o.entityID)))
	b.put(s.table.Put(t))
	if err := b.run(ctx); err != nil {
		return err
	}
	return s.finishDelete(ctx, t)
}

// finishDelete runs the cascade of a tombstone, then removes it.
func (s *Store) finishDelete(ctx context.Context, t tombstone) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.deletePartition(gctx, entityPK(t.CID, t.EntityID)) })
	switch t.Kind {
	case locationPrefix:
		g.Go(func() error { return s.deletePartition(gctx, mapPointsPK(t.CID, t.ID)) })
		g.Go(func() error { return s.orphanChildren(gctx, t.CID, t.ID) })
	case calendarPrefix:
		g.Go(func() error { return s.deleteCalendarEvents(gctx, t.CID, t.ID, t.EntityID) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return wrap(s.table.Delete("pk", t.PK).Range("sk", t.SK).Run(ctx))
}

// resumeDelete finishes the pending delete of kind id, if there is one.
func (s *Store) resumeDelete(ctx context.Context, cid int64, kind string, id int64) (bool, error) {
	var t tombstone
	err := s.table.Get("pk", campaignPK(cid)).Range("sk", dynamo.Equal, tombstoneSK(kind, id)).Consistent(true).One(ctx, &t)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, wrap(err)
	}
	return true, s.finishDelete(ctx, t)
}

// writeConcurrency bounds the batched writes one request runs at once.
const writeConcurrency = 8

// deletePartition removes every item of a child partition (map points, events, notes, their
// copies and counters) in batches of 25, run concurrently.
func (s *Store) deletePartition(ctx context.Context, pk string) error {
	var keys []struct {
		PK string `dynamo:"pk"`
		SK string `dynamo:"sk"`
	}
	if err := s.table.Get("pk", pk).Project("pk", "sk").Consistent(true).All(ctx, &keys); err != nil {
		return wrap(err)
	}
	batch := make([]dynamo.Keyed, len(keys))
	for i, k := range keys {
		batch[i] = dynamo.Keys{k.PK, k.SK}
	}
	return s.batchDelete(ctx, batch)
}

// batchDelete deletes keys (idempotently) in BatchWriteItem calls of 25, at most
// writeConcurrency at once.
func (s *Store) batchDelete(ctx context.Context, keys []dynamo.Keyed) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writeConcurrency)
	for start := 0; start < len(keys); start += 25 {
		chunk := keys[start:min(start+25, len(keys))]
		g.Go(func() error {
			_, err := s.table.Batch("pk", "sk").Write().Delete(chunk...).Run(gctx)
			return wrap(err)
		})
	}
	return g.Wait()
}

// runTxs runs transactions concurrently, at most writeConcurrency at once.
func runTxs(ctx context.Context, txs []*txBuilder) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writeConcurrency)
	for _, b := range txs {
		if b.size() == 0 {
			continue
		}
		g.Go(func() error { return b.run(gctx) })
	}
	return g.Wait()
}
