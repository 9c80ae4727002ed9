package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// createOwner stores a new record (item builds it once the ids are set), its copies, its entity
// and its counts in one transaction, with ids from the campaign's sequences (one round trip);
// checks add the conditions the record depends on (its parent).
func (s *Store) createOwner(ctx context.Context, k layout.KindSpec, m *domain.Meta, o *domain.Owner, item func() any, checks ...func(*txBuilder)) error {
	ids, err := s.nextIDs(ctx, layout.CampaignPK(m.CampaignID), k.EntityType, "entity")
	if err != nil {
		return err
	}
	s.stampNew(m, ids[0])
	o.EntityID = ids[1]
	mentions, err := s.mentionPlan(ctx, "", o.Entry, mentionSource{}, entryOf(m, o), false)
	if err != nil {
		return err
	}
	// A tag's pack changed by a concurrent member's write (packPlan), or a referenced record
	// changed since read, is read again.
	tagged := false
	refs := o.Refs
	err = apperr.Retry(ctx, func(err error) bool { return tagged && apperr.IsConflict(err) || errors.Is(err, errRefChanged) }, func() error {
		tags, err := s.tagPlan(ctx, k, m, nil, o)
		if err != nil {
			return err
		}
		o.Refs = refs
		links, err := s.refPlan(ctx, k, m, nil, o)
		if err != nil {
			return err
		}
		b := s.newTx()
		b.place(layout.Marshal(item()), nil, k.Slots(m, o), 0)
		b.place(layout.Marshal(layout.EntityItemOf(k, m, o)), nil, layout.EntitySlots(m, o), 0)
		b.syncMove(nil, ownerRef(k.Prefix, m, o))
		b.syncMove(nil, layout.EntityRef(m, o))
		b.setName(m.CampaignID, o.EntityID, k.EntityType, m.ID, o.IsPrivate, o.Name)
		for _, c := range append(checks, mentions, tags, links, imageChange(m.CampaignID, "", o.ImagePath)) {
			if c != nil {
				c(b)
			}
		}
		tagged = tags != nil
		return tagsChanged(b.run(ctx))
	})
	return refsChanged(err)
}

// tagsChanged is a write's error: a linked tag deleted or made private since it was read
// answers as an unknown tag would.
func tagsChanged(err error) error {
	if errors.Is(err, errTagGone) {
		return apperr.Invalid("tags", "The selected tags are invalid.")
	}
	return err
}

// updateOwner writes next's item over the record read as prev, on condition that nobody wrote
// since (ErrConflict otherwise) and of checks. The entity mirrors the record, its update time
// included, so it is rewritten in the same transaction.
func (s *Store) updateOwner(ctx context.Context, k layout.KindSpec, prevM, nextM *domain.Meta, prev, next *domain.Owner, item func() any, checks ...func(*txBuilder)) error {
	mentions, err := s.mentionPlan(ctx, prev.Entry, next.Entry, entryOf(prevM, prev), entryOf(nextM, next), false)
	if err != nil {
		return err
	}
	tags, err := s.tagPlan(ctx, k, nextM, prev, next)
	if err != nil {
		return err
	}
	links, err := s.refPlan(ctx, k, nextM, prev, next)
	if err != nil {
		return refsChanged(err)
	}
	s.stampUpdate(prevM, nextM)
	write := func() error {
		b := s.newTx()
		b.place(layout.Marshal(item()), k.Slots(prevM, prev), k.Slots(nextM, next), prevM.Version)
		b.mirror(layout.Marshal(layout.EntityItemOf(k, nextM, next)), layout.EntitySlots(prevM, prev), layout.EntitySlots(nextM, next))
		b.syncMove(ownerRef(k.Prefix, prevM, prev), ownerRef(k.Prefix, nextM, next))
		b.syncMove(layout.EntityRef(prevM, prev), layout.EntityRef(nextM, next))
		if prev.Name != next.Name || prev.IsPrivate != next.IsPrivate {
			b.setName(nextM.CampaignID, next.EntityID, k.EntityType, nextM.ID, next.IsPrivate, next.Name)
		}
		for _, c := range append(checks, mentions, tags, links, imageChange(nextM.CampaignID, prev.ImagePath, next.ImagePath)) {
			if c != nil {
				c(b)
			}
		}
		return refsChanged(tagsChanged(b.run(ctx)))
	}
	if prev.IsPrivate != next.IsPrivate { // the entity's links move too (calendarlinks.go)
		return s.updateOwnerPrivacy(ctx, k, prevM, prev, next, write)
	}
	return write()
}

// deleteOwner deletes an owner in three steps. First one transaction, conditional on the
// version read, removes the record, its copies, its entity and its counts and leaves a
// tombstone and its sweeper marker: a failure here changes nothing. Then the cascade
// (idempotent, batched and concurrent) removes what hung from it, and finally tombstone and
// marker go. Once the first step is written the delete has happened (the record is gone for
// every reader and writer) and the answer says so: a failure of the cascade leaves it pending,
// logged, for the sweeper to finish within PendingDeleteAge and a minute (or a retry of the
// DELETE, sooner).
func (s *Store) deleteOwner(ctx context.Context, k layout.KindSpec, m *domain.Meta, o *domain.Owner, also ...func(*txBuilder)) error {
	cid := m.CampaignID
	marker := layout.PendingMarker{PK: layout.PendingPK(cid), SK: layout.PendingSK(s.now(), cid, k.Prefix, m.ID), CID: cid, Kind: k.Prefix, ID: m.ID}
	t := layout.Tombstone{PK: layout.CampaignPK(cid), SK: layout.TombstoneSK(k.Prefix, m.ID), Kind: k.Prefix, ID: m.ID, CID: cid,
		EntityID: o.EntityID, Marker: marker.SK, Mentions: layout.TargetsOf(o.Entry, o.EntityID), Refs: layout.RefTargetsOf(layout.RefAttrs(o.Refs))}
	tags, err := s.tagLinksGone(ctx, k, m, o)
	if err != nil {
		return err
	}
	b := s.newTx()
	b.remove(k.Slots(m, o), m.Version)
	b.remove(layout.EntitySlots(m, o), 0)
	b.syncMove(ownerRef(k.Prefix, m, o), nil) // and their tombstones, for ?deleted=1
	b.syncMove(layout.EntityRef(m, o), nil)
	b.removeName(cid, o.EntityID)
	b.put(s.table.Put(t))
	b.put(s.table.Put(marker))
	for _, f := range append(also, tags, imageChange(cid, o.ImagePath, "")) {
		if f != nil {
			f(b)
		}
	}
	if err := tagsChanged(b.run(ctx)); err != nil {
		return err
	}
	if err := s.finishDelete(ctx, t); err != nil {
		logPendingDelete(ctx, t, err)
	}
	return nil
}

// finishDelete runs the cascade of a tombstone, then removes it.
func (s *Store) finishDelete(ctx context.Context, t layout.Tombstone) error {
	g, gctx := errgroup.WithContext(ctx)
	c, hasCascade := kindCascades[t.Kind]
	if !c.purgesEntity {
		g.Go(func() error { return s.deleteEntityPartition(gctx, t.CID, t.EntityID) })
	}
	g.Go(func() error { return s.ownLinksGone(gctx, t) }) // its references' links (in the targets' partitions)
	if len(t.Mentions) > 0 {                              // its entry's reverse items (in the targets' partitions)
		keys := make([]dynamo.Keyed, len(t.Mentions))
		for i, target := range t.Mentions {
			k := layout.MentionKey(t.CID, target, t.EntityID, 0)
			keys[i] = dynamo.Keys{k.PK, k.SK}
		}
		g.Go(func() error { return s.batchDelete(gctx, keys) })
	}
	k, nested := layout.KindOf(t.Kind)
	nested = nested && k.Owner && k.ParentAttr != ""
	if nested || hasCascade && c.purge != nil {
		g.Go(func() error { // the children first: their links live in the partition, as may the kind's own
			if nested {
				if err := s.orphanChildren(gctx, k, t.CID, t.ID, false); err != nil {
					return err
				}
			}
			if hasCascade && c.purge != nil {
				if err := c.purge(gctx, s, t); err != nil {
					return err
				}
			}
			if !nested {
				return nil
			}
			return s.deletePartition(gctx, layout.ChildPK(t.CID, k.Prefix, t.ID))
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	b := s.newTx()
	b.del(s.table.Delete("pk", t.PK).Range("sk", t.SK))
	if t.Marker != "" {
		b.del(s.table.Delete("pk", layout.PendingPK(t.CID)).Range("sk", t.Marker))
	}
	return b.run(ctx)
}

// resumeDelete finishes what a DELETE of kind id left pending, if anything: the cascade of its
// trash (while its marker is there, a retried DELETE answers as the first did) or a purge. Like
// the delete itself, it has happened whether or not the cascade finishes now.
func (s *Store) resumeDelete(ctx context.Context, cid int64, kind string, id int64) (bool, error) {
	trashed := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(kind, id)}
	purging := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TombstoneSK(kind, id)}
	got, err := s.getItems(ctx, trashed, purging)
	if err != nil {
		return false, err
	}
	if raw, ok := got[trashed]; ok { // its cascade is pending while its marker is there
		var th struct {
			EntityID  int64  `dynamo:"entity_id"`
			DeletedAt string `dynamo:"deleted_at"`
		}
		if err := dynamo.UnmarshalItem(raw, &th); err != nil {
			return false, err
		}
		marker := layout.PendingSK(layout.ParseTime(th.DeletedAt), cid, layout.CascadeKind, th.EntityID)
		var m layout.PendingMarker
		err := s.getItem(ctx, layout.PendingPK(cid), marker, &m)
		if errors.Is(err, apperr.ErrNotFound) {
			return false, nil // deleted already: a second DELETE is a 404
		}
		if err != nil {
			return false, err
		}
		s.finishCascade(ctx, cid, th.EntityID, marker)
		return true, nil
	}
	raw, ok := got[purging]
	if !ok {
		return false, nil
	}
	var t layout.Tombstone
	if err := dynamo.UnmarshalItem(raw, &t); err != nil {
		return false, err
	}
	if err := s.finishDelete(ctx, t); err != nil {
		logPendingDelete(ctx, t, err)
	}
	return true, nil
}

// writeConcurrency bounds the batched writes one request runs at once.
const writeConcurrency = 8

// partitionRow is what deletePartition reads of each item of a partition.
type partitionRow struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	CampaignID int64  `dynamo:"campaign_id"`
	EntityID   int64  `dynamo:"entity_id"`
	ID         int64  `dynamo:"id"`
	CalendarID int64  `dynamo:"calendar_id"`
	OwnerID    int64  `dynamo:"owner_id"`
}

// deletePartition removes every item of a child partition (map points, a calendar's links and
// their counters, their copies) in batches of 25, run concurrently. An entity's partition is
// deleteEntityPartition's: its events' links live in their calendars, its relations' copies and
// pointers in other partitions.
func (s *Store) deletePartition(ctx context.Context, pk string) error {
	var keys []partitionRow
	if err := s.table.Get("pk", pk).Project("pk", "sk").Consistent(true).All(ctx, &keys); err != nil {
		return layout.Wrap(err)
	}
	batch := make([]dynamo.Keyed, 0, len(keys))
	for _, k := range keys {
		batch = append(batch, dynamo.Keys{k.PK, k.SK})
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
			return layout.Wrap(err)
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

// entryOf is the mention source of an owner's own entry.
func entryOf(m *domain.Meta, o *domain.Owner) mentionSource {
	return mentionSource{cid: m.CampaignID, src: o.EntityID, post: func() int64 { return 0 }}
}
