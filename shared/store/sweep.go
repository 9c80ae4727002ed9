package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Pending deletes are found without scanning the table. The first step of an owner's delete
// writes, in the same transaction as its tombstone, a marker into one of layout.PendingShards small
// partitions, sorted by the time the delete began:
//
//	pk  PENDING#<campaign id mod 16, two digits>
//	sk  <began: UTC, six fraction digits>#<campaign id>#<KIND>#<id>
//
// The cascade's last step removes tombstone and marker in one transaction, so a marker lives
// only as long as its delete is pending. The sweeper asks each shard for the markers older
// than a cutoff (a key condition: it reads what it finishes and nothing else). Sixteen shards
// keep the markers of a busy table off one partition's write limit.
const (
	sweepBatch = 25 // markers one shard gives one sweep; the next sweep takes the rest

)

// PendingDeleteAge is how long a delete may stay pending before the sweeper finishes it: far
// longer than any request (a delete's own cascade finishes it unless it failed).
const PendingDeleteAge = time.Minute

// SweepResult says what one sweep did.
type SweepResult struct {
	Finished  int  `json:"finished"`  // pending deletes finished
	Stale     int  `json:"stale"`     // markers whose delete had already finished, removed
	Failed    int  `json:"failed"`    // deletes that failed again (the next sweep retries them)
	Expired   int  `json:"expired"`   // sync tombstones past their 30 days, removed (SweepGone)
	Purged    int  `json:"purged"`    // trashed records past their 30 days, purged (SweepPurges)
	Images    int  `json:"images"`    // stored images deleted from the bucket (SweepImages)
	Remaining bool `json:"remaining"` // more deletes were pending than one sweep takes
}

// SweepDeletes finishes every delete pending for longer than olderThan, at most sweepBatch per
// shard (Remaining says when more are left). Finishing is idempotent, so sweeps may overlap
// each other and a client's retried DELETE. A delete that fails again is counted and left
// for the next sweep; the first such error is returned once the others are done.
func (s *Store) SweepDeletes(ctx context.Context, olderThan time.Duration) (SweepResult, error) {
	var res SweepResult
	var firstErr error
	cutoff := s.now().Add(-olderThan).UTC().Format(layout.PendingTimeFmt)
	for shard := 0; shard < layout.PendingShards; shard++ {
		var markers []layout.PendingMarker
		err := s.table.Get("pk", layout.PendingPK(int64(shard))).Range("sk", dynamo.Less, cutoff).
			Consistent(true).Limit(sweepBatch).All(ctx, &markers)
		if err != nil {
			return res, layout.Wrap(err)
		}
		if len(markers) == sweepBatch {
			res.Remaining = true
		}
		for _, m := range markers {
			if err := ctx.Err(); err != nil {
				return res, layout.Wrap(err)
			}
			finished, err := s.sweepOne(ctx, m)
			switch {
			case err != nil:
				res.Failed++
				if firstErr == nil {
					firstErr = fmt.Errorf("finish the delete of %s %d in campaign %d: %w", m.Kind, m.ID, m.CID, err)
				}
			case finished:
				res.Finished++
			default:
				res.Stale++
			}
		}
	}
	return res, firstErr
}

// sweepOne finishes the delete a marker stands for (or the re-placing of an entity's links);
// false when it had already finished (the marker alone is removed).
func (s *Store) sweepOne(ctx context.Context, m layout.PendingMarker) (bool, error) {
	switch m.Kind {
	case layout.RelinkKind: // a privacy change whose links were left half re-placed
		return true, s.reconcileLinks(ctx, m.CID, m.ID, m.SK)
	case layout.CascadeKind: // a trash's or restore's reference cascade (trash.go)
		return true, s.reconcileCascade(ctx, m.CID, m.ID, m.SK)
	}
	var t layout.Tombstone
	err := s.getOne(ctx, layout.ItemKey{PK: layout.CampaignPK(m.CID), SK: layout.TombstoneSK(m.Kind, m.ID)}, &t)
	if errors.Is(err, apperr.ErrNotFound) {
		return false, layout.Wrap(s.table.Delete("pk", m.PK).Range("sk", m.SK).Run(ctx))
	}
	if err != nil {
		return false, err
	}
	return true, s.finishDelete(ctx, t)
}

// logPendingDelete reports a delete whose cascade failed after its first step: the record is
// gone, and the sweeper finishes what hung from it.
func logPendingDelete(ctx context.Context, t layout.Tombstone, err error) {
	slog.WarnContext(ctx, "delete pending: its cascade failed, the sweeper finishes it",
		"campaign_id", t.CID, "kind", t.Kind, "id", t.ID, "err", err.Error())
}

// purgeBatch bounds the trashes one sweep purges per shard; the next sweep takes the rest.
const purgeBatch = 25

// SweepPurges purges the trashes whose time is over (at most purgeBatch per shard; more says
// whether some are left): for each, one transaction, conditional on the trash being expired (or
// gone with DynamoDB's TTL) and the entity not live, deletes the trashed items and the queue
// item and writes the purge's tombstone and marker; then v2's delete cascade (finishDelete)
// erases its partitions and what the trash hid. A restore and a purge of one trash exclude each
// other: each is conditional on the trashed entity item the other deletes.
func (s *Store) SweepPurges(ctx context.Context) (int, bool, error) {
	now := s.now().UTC()
	cutoff := now.Format(layout.PendingTimeFmt)
	n, more := 0, false
	var firstErr error
	for shard := 0; shard < layout.PendingShards; shard++ {
		var due []layout.PurgeItem
		err := s.table.Get("pk", layout.PurgePK(shard)).Range("sk", dynamo.Less, cutoff).Consistent(true).Limit(purgeBatch).All(ctx, &due)
		if err != nil {
			return n, more, layout.Wrap(err)
		}
		more = more || len(due) == purgeBatch
		for _, q := range due {
			if err := ctx.Err(); err != nil {
				return n, more, layout.Wrap(err)
			}
			purged, err := s.purge(ctx, q, now)
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("purge entity %d of campaign %d: %w", q.EntityID, q.CID, err)
				}
				continue
			}
			if purged {
				n++
			}
		}
	}
	return n, more, firstErr
}

// purge purges one trash (see SweepPurges); false when it was restored (the queue item goes).
func (s *Store) purge(ctx context.Context, q layout.PurgeItem, now time.Time) (bool, error) {
	cid := q.CID
	trashed := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(layout.EntityPrefix, q.EntityID)}
	live := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, q.EntityID)}
	home := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(q.Kind, q.ID)}
	keys := []layout.ItemKey{trashed, live, home}
	layers := layout.ItemKey{PK: layout.MapPK(cid, q.ID), SK: layout.LayersSK} // a map's layers' pictures go with it
	if q.Kind == layout.MapPrefix {
		keys = append(keys, layers)
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return false, err
	}
	var image, entry string // the trash kept the record's stored image and its entry's mention items (for a restore)
	if raw := got[home]; raw != nil {
		_ = dynamo.Unmarshal(raw["image_path"], &image)
		_ = dynamo.Unmarshal(raw["entry"], &entry)
	}
	if got[live] != nil {
		return false, layout.Wrap(s.table.Delete("pk", q.PK).Range("sk", q.SK).Run(ctx))
	}
	marker := layout.PendingMarker{PK: layout.PendingPK(cid), SK: layout.PendingSK(now, cid, q.Kind, q.ID), CID: cid, Kind: q.Kind, ID: q.ID}
	t := layout.Tombstone{PK: layout.CampaignPK(cid), SK: layout.TombstoneSK(q.Kind, q.ID), Kind: q.Kind, ID: q.ID, CID: cid, EntityID: q.EntityID, Marker: marker.SK,
		Mentions: layout.TargetsOf(entry, q.EntityID), Refs: refTargetsOfItem(got[home])}
	b := s.newTx()
	b.del(s.table.Delete("pk", trashed.PK).Range("sk", trashed.SK).If("attribute_not_exists(pk) OR 'ttl' <= ?", now.Unix()))
	b.del(s.table.Delete("pk", home.PK).Range("sk", home.SK))
	imageChange(cid, image, "")(b)
	if q.Kind == layout.MapPrefix {
		if err := packImages(b, cid, got[layers]); err != nil {
			return false, err
		}
	}
	b.check(s.table.Check("pk", live.PK).Range("sk", live.SK).If("attribute_not_exists(pk)"))
	b.del(s.table.Delete("pk", q.PK).Range("sk", q.SK))
	b.put(s.table.Put(t))
	b.put(s.table.Put(marker))
	if err := b.run(ctx); err != nil {
		return false, err
	}
	if err := s.finishDelete(ctx, t); err != nil {
		logPendingDelete(ctx, t, err)
	}
	return true, nil
}
