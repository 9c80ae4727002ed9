package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Stored images (the bucket holds them; package imagestore) are never orphaned: every object
// path is listed in an image queue item of the table from before its objects are put until
// a record holds it, and again from when no record holds it until the sweeper has deleted its
// objects:
//
//	pk  IMAGEGC#<campaign id mod 16, two digits>
//	sk  <due: UTC, six fraction digits>#<path>
//
// ReserveImage writes the item of a new path, due ImageClaimWindow after the path's upload
// time (in the path itself, so that the record's write can name the item); the record's
// transaction that first holds the path deletes it (conditional on it still being there: a
// path the sweeper took is refused), and the transaction that drops a path (a new image, the
// record's delete) writes its item due at once. The sweeper (SweepImages) deletes the objects
// of each due item, then the item.
const (

	// ImageClaimWindow is how long an uploaded image waits for its record's write: far longer
	// than a request; the sweeper deletes the objects of a path never claimed.
	ImageClaimWindow = 15 * time.Minute
)

// errImageExpired: the path was reserved too long ago and may already be swept.
var errImageExpired = apperr.Invalid("image", "The image upload took too long; send it again.")

// ReserveImage makes a new object path for an image of campaign cid, ending in ext (its pixel
// size and file extension: domain.ImageSizedExt), and lists it in the image queue, before its
// objects are put.
func (s *Store) ReserveImage(ctx context.Context, cid int64, ext string) (string, error) {
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	now := s.now().UTC()
	path := fmt.Sprintf("%s%d/%s-%s.%s", layout.ImagePathRoot, cid, now.Format(layout.ImageTimeFmt), hex.EncodeToString(rnd[:]), ext)
	k := layout.ImageGCKey(cid, now.Truncate(time.Second).Add(ImageClaimWindow), path)
	return path, layout.Wrap(s.table.Put(layout.ImageGCItem{PK: k.PK, SK: k.SK, CID: cid, Path: path}).Run(ctx))
}

// DiscardImage makes a reserved path due now, so that the sweeper deletes its objects, if no
// record holds it yet (its reservation is still queued): for a write that failed after its
// image was put. A path a record did claim (a write that answered an error but committed) is
// left alone.
func (s *Store) DiscardImage(ctx context.Context, cid int64, path string) error {
	up, ok := layout.ImagePathTime(cid, path)
	if !ok {
		return nil
	}
	now := layout.ImageGCKey(cid, s.now(), path)
	b := s.newTx()
	b.put(s.table.Put(layout.ImageGCItem{PK: now.PK, SK: now.SK, CID: cid, Path: path}))
	k := layout.ImageGCKey(cid, up.Add(ImageClaimWindow), path)
	b.del(s.table.Delete("pk", k.PK).Range("sk", k.SK).If("attribute_exists('pk')"))
	if err := b.run(ctx); err != nil && !errors.Is(err, apperr.ErrConflict) {
		return err
	}
	return nil
}

// images adds to a record's transaction the change of its image path from prev to next: next
// is claimed (its queue item removed, on condition that it is still there), prev is queued for
// the sweeper.
func (b *txBuilder) images(cid int64, prev, next string) {
	if prev == next {
		return
	}
	if next != "" {
		up, ok := layout.ImagePathTime(cid, next)
		k := layout.ImageGCKey(cid, up.Add(ImageClaimWindow), next)
		if !ok {
			k = layout.ItemKey{PK: layout.ImageGCPK(cid), SK: "!"} // never there: the write is refused
		}
		if b.needs == nil {
			b.needs = map[int]error{}
		}
		b.needs[b.n] = errImageExpired
		b.del(b.s.table.Delete("pk", k.PK).Range("sk", k.SK).If("attribute_exists('pk')"))
	}
	if prev != "" {
		k := layout.ImageGCKey(cid, b.s.now(), prev)
		b.put(b.s.table.Put(layout.ImageGCItem{PK: k.PK, SK: k.SK, CID: cid, Path: prev}))
	}
}

// imageChange is images as a check of the owner writes.
func imageChange(cid int64, prev, next string) func(*txBuilder) {
	return func(b *txBuilder) { b.images(cid, prev, next) }
}

// SweepImages deletes the objects of every path due in the image queue (remove deletes a
// path's objects, idempotently), then its item; at most sweepBatch per shard. It answers how
// many paths it deleted and whether more are due.
func (s *Store) SweepImages(ctx context.Context, remove func(ctx context.Context, paths []string) error) (int, bool, error) {
	var res struct {
		Deleted   int
		Remaining bool
	}
	cutoff := s.now().UTC().Format(layout.PendingTimeFmt)
	for shard := 0; shard < layout.PendingShards; shard++ {
		var due []layout.ImageGCItem
		err := s.table.Get("pk", layout.ImageGCPK(int64(shard))).Range("sk", dynamo.Less, cutoff).
			Consistent(true).Limit(sweepBatch).All(ctx, &due)
		if err != nil {
			return res.Deleted, res.Remaining, layout.Wrap(err)
		}
		if len(due) == 0 {
			continue
		}
		res.Remaining = res.Remaining || len(due) == sweepBatch
		paths := make([]string, len(due))
		keys := make([]dynamo.Keyed, len(due))
		for i, it := range due {
			paths[i], keys[i] = it.Path, dynamo.Keys{it.PK, it.SK}
		}
		if err := remove(ctx, paths); err != nil {
			return res.Deleted, res.Remaining, fmt.Errorf("delete images: %w", err)
		}
		if err := s.batchDelete(ctx, keys); err != nil {
			return res.Deleted, res.Remaining, err
		}
		res.Deleted += len(due)
	}
	return res.Deleted, res.Remaining, nil
}

// SetEntityImage makes path (a reserved one; "" for none) the image of entity eid's record
// (Kanka's entities/{id}/image), written by user by, as a record update that changes its image:
// the record's home, public copy and entity get the new path (an image address stored before
// images were fetched goes), a new version and updated_at/updated_by, conditional on the
// version read; the record's and the entity's sync pointers move (a lastSync reader sees the
// change), the path is claimed and the one it replaces queued for the sweeper, all in the same
// transaction; a lost race re-reads. It answers the entity as written. Every owner kind holds
// an image (domain.Owner), so a new owner kind has this too.
func (s *Store) SetEntityImage(ctx context.Context, cid, eid, by int64, path string) (*domain.Entity, error) {
	return s.entityImage(ctx, cid, eid, by, path, "")
}

func (s *Store) entityImage(ctx context.Context, cid, eid, by int64, path, legacy string) (*domain.Entity, error) {
	var e *domain.Entity
	err := apperr.RetryConflicts(ctx, func() (err error) {
		e, err = s.setEntityImage(ctx, cid, eid, by, path, legacy)
		return err
	})
	return e, err
}

// setEntityImage is one attempt. legacy, when set, is the image_url the record must still hold
// (and no stored image): the migration's conversion, which keeps updated_by.
func (s *Store) setEntityImage(ctx context.Context, cid, eid, by int64, path, legacy string) (*domain.Entity, error) {
	e, err := s.GetEntity(ctx, cid, eid)
	if err != nil {
		return nil, err
	}
	k, ok := layout.OwnerKindOf(e.Type)
	if !ok {
		return nil, apperr.ErrNotFound
	}
	home := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Prefix, e.ChildID)}
	got, err := s.getItems(ctx, home)
	if err != nil {
		return nil, err
	}
	raw, ok := got[home]
	if !ok {
		return nil, apperr.ErrNotFound
	}
	var rec struct {
		layout.MetaAttrs
		layout.OwnerAttrs
	}
	if err := dynamo.UnmarshalItem(raw, &rec); err != nil {
		return nil, err
	}
	m, prev := rec.Meta(), rec.Owner()
	if legacy != "" {
		if prev.ImageURL != legacy || prev.ImagePath != "" {
			return nil, ErrLegacyImageChanged
		}
		by = m.UpdatedBy
	}
	if prev.ImagePath == path && prev.ImageURL == "" {
		return e, nil
	}
	nextM, next := m, prev
	s.stampUpdate(&m, &nextM)
	nextM.UpdatedBy, next.ImagePath, next.ImageURL = by, path, ""
	b := s.newTx()
	set := func(u *dynamo.Update) *dynamo.Update {
		if path == "" {
			u = u.Remove("image_path")
		} else {
			u = u.Set("image_path", path)
		}
		return u.Remove("image_url").Set("updated_at", layout.FormatTime(nextM.UpdatedAt)).Set("updated_by", by)
	}
	for _, sl := range k.Slots(&m, &prev) {
		b.update(set(s.table.Update("pk", sl.PK).Range("sk", sl.SK)).Set("version", nextM.Version).If("'version' = ?", m.Version))
	}
	for _, sl := range layout.EntitySlots(&m, &prev) {
		b.update(set(s.table.Update("pk", sl.PK).Range("sk", sl.SK)).If("attribute_exists(pk)"))
	}
	b.syncMove(ownerRef(k.Prefix, &m, &prev), ownerRef(k.Prefix, &nextM, &next))
	b.syncMove(layout.EntityRef(&m, &prev), layout.EntityRef(&nextM, &next))
	b.images(cid, prev.ImagePath, path)
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	e.ImagePath, e.ImageURL, e.UpdatedAt, e.UpdatedBy = path, "", nextM.UpdatedAt, by
	return e, nil
}

// ErrLegacyImageChanged: the record's image is no longer the address the migration fetched (a
// write changed it meanwhile); its fetched picture is let go.
var ErrLegacyImageChanged = errors.New("the record's image changed since it was read")
