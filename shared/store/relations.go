package store

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

func toRelationItem(r *domain.Relation) layout.RelationItem {
	return layout.RelationItem{MetaAttrs: layout.ToMetaAttrs(layout.EntityPK(r.CampaignID, r.OwnerID), layout.RecordSK(layout.RelationPrefix, r.ID), r.Meta),
		EntityID: r.OwnerID, OwnerID: r.OwnerID, TargetID: r.TargetID, Relation: r.Relation, NameLC: strings.ToLower(r.Relation),
		Attitude: r.Attitude, Colour: r.Colour, Visibility: string(r.Visibility), IsPinned: r.IsPinned, MirrorID: r.MirrorID,
		OwnerPrivate: r.OwnerPrivate, TargetPrivate: r.TargetPrivate}
}

// incomingItem points from a relation's target to the relation.
type incomingItem struct {
	PK      string `dynamo:"pk"`
	SK      string `dynamo:"sk"`
	ID      int64  `dynamo:"id"`
	OwnerID int64  `dynamo:"owner_id"`
}

// placeRelation writes r over prev (nil for a new one) with its incoming pointer.
func (b *txBuilder) placeRelation(prev, r *domain.Relation) {
	var prevSlots []layout.Slot
	var prevVersion int64
	if prev != nil {
		prevSlots, prevVersion = layout.RelationSlots(prev), prev.Version
		if prev.TargetID != r.TargetID {
			k := layout.IncomingKey(prev.CampaignID, prev.TargetID, prev.ID)
			b.del(b.s.table.Delete("pk", k.PK).Range("sk", k.SK))
		}
	}
	b.place(layout.Marshal(toRelationItem(r)), prevSlots, layout.RelationSlots(r), prevVersion)
	next := layout.RelationRefs(r)
	for i := range next {
		if prev != nil {
			b.syncMove(layout.RelationRefs(prev)[i], next[i])
		} else {
			b.syncMove(nil, next[i])
		}
	}
	if prev == nil || prev.TargetID != r.TargetID {
		k := layout.IncomingKey(r.CampaignID, r.TargetID, r.ID)
		b.put(b.s.table.Put(incomingItem{PK: k.PK, SK: k.SK, ID: r.ID, OwnerID: r.OwnerID}))
	}
}

// removeRelation deletes every item of r, on condition of the version read.
// Its sync pointers leave tombstones, but in the partition of entity gone (being deleted:
// nothing would read them, and its partition is already read for removal; 0 for none).
func (b *txBuilder) removeRelation(r *domain.Relation, gone int64) {
	b.remove(layout.RelationSlots(r), r.Version)
	for _, ref := range layout.RelationRefs(r) {
		if ref.Kind == layout.RelationPrefix && r.OwnerID == gone {
			k := layout.SyncSK(ref.Kind, layout.FormatTime(ref.Updated), r.ID)
			b.del(b.s.table.Delete("pk", ref.Ptr.PK).Range("sk", k))
			continue
		}
		b.syncMove(ref, nil) // its tombstone
	}
	k := layout.IncomingKey(r.CampaignID, r.TargetID, r.ID)
	b.del(b.s.table.Delete("pk", k.PK).Range("sk", k.SK))
}

// needEntity makes the transaction conditional on entity eid existing with the links privacy
// read (its relations are placed by links_private, which a privacy change of the entity sets
// before it re-places them: relink.go); gone is the answer when it does not.
func (b *txBuilder) needEntity(cid, eid int64, private bool, gone error) {
	if b.needs == nil {
		b.needs = map[int]error{}
	}
	b.needs[b.n] = gone
	b.check(b.s.table.Check("pk", layout.CampaignPK(cid)).Range("sk", layout.RecordSK(layout.EntityPrefix, eid)).
		If("attribute_exists(pk) AND 'links_private' = ?", private))
}

// invalidTarget is the answer for a target that is gone or changed its privacy under a write.
func invalidTarget(field string) error {
	return apperr.Invalid(field, "The selected "+domain.Label(field)+" is invalid.")
}

// GetRelationAndEntity reads a relation and its owner entity in one round trip.
func (s *Store) GetRelationAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Relation, error) {
	return getWithEntity(ctx, s, cid, eid, layout.RelationPrefix, id, layout.RelationItem.AsRelation)
}

// getRelation reads relation id of owner eid (strongly consistent).
func (s *Store) getRelation(ctx context.Context, cid, eid, id int64) (*domain.Relation, error) {
	var keys []layout.ItemKey
	for _, sk := range childHomeSKs(layout.RelationPrefix, id) {
		keys = append(keys, layout.ItemKey{PK: layout.EntityPK(cid, eid), SK: sk})
	}
	items, err := s.fetch(ctx, false, keys)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if it, ok := items[k]; ok {
			var ri layout.RelationItem
			if err := dynamo.UnmarshalItem(it, &ri); err != nil {
				return nil, err
			}
			r := ri.AsRelation()
			return &r, nil
		}
	}
	return nil, apperr.ErrNotFound
}

// ListRelations reads one page of the relations of entity eid that the caller may see.
func (s *Store) ListRelations(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Relation], error) {
	l := listSpec{ranges: childRanges(layout.RelationPrefix, layout.EntityPK(cid, eid), a)}
	l.filter(f)
	return listPage(ctx, s, l, p, layout.RelationItem.AsRelation)
}

// ListCampaignRelations reads one page of the campaign's relations that the caller may see.
func (s *Store) ListCampaignRelations(ctx context.Context, cid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Relation], error) {
	l := listSpec{ranges: childRanges(layout.RelationIndexPrefix, layout.CampaignPK(cid), a)}
	l.filter(f)
	return listPage(ctx, s, l, p, layout.RelationItem.AsRelation)
}

// reserveIDs takes n consecutive ids of sequence name in one update; the first is returned.
func (s *Store) reserveIDs(ctx context.Context, pk, name string, n int) (int64, error) {
	var raw dynamo.Item
	if err := s.table.Update("pk", pk).Range("sk", layout.SeqSK).Add(name, n).Value(ctx, &raw); err != nil {
		return 0, layout.Wrap(err)
	}
	var last int64
	if err := dynamo.Unmarshal(raw[name], &last); err != nil {
		return 0, err
	}
	if last-int64(n)+1 <= 0 || last > domain.MaxID {
		return 0, errors.New("store: id sequence " + name + " exhausted")
	}
	return last - int64(n) + 1, nil
}

// CreateRelation stores r to each of its targets (r.AllTargets, their privacy read in
// r.TargetPrivacy) and,
// with two_way, each one's mirror, all in one transaction conditional on the owner and every
// target existing with the privacy read. r becomes the first relation; r.Created holds all.
// A create too large for one transaction is a 422 naming targets.
func (s *Store) CreateRelation(ctx context.Context, r *domain.Relation) error {
	targetPrivate := r.TargetPrivacy
	targets := r.AllTargets()
	n := len(targets)
	if r.TwoWay {
		n *= 2
	}
	first, err := s.reserveIDs(ctx, layout.CampaignPK(r.CampaignID), "relation", n)
	if err != nil {
		return err
	}
	b := s.newTx()
	b.needEntity(r.CampaignID, r.OwnerID, r.OwnerPrivate, apperr.ErrNotFound)
	base := *r
	created := make([]domain.Relation, 0, n)
	next := first
	for i, t := range targets {
		field := "target_id"
		if r.ListAnswer {
			field = "targets." + strconv.Itoa(i)
		}
		b.needEntity(r.CampaignID, t, targetPrivate[t], invalidTarget(field))
		rel := base.Clone()
		rel.TargetID, rel.TargetPrivate = t, targetPrivate[t]
		s.stampNew(&rel.Meta, next)
		next++
		if r.TwoWay {
			m := rel.Mirror()
			m.TargetRelation = ""
			s.stampNew(&m.Meta, next)
			next++
			rel.MirrorID, m.MirrorID = &m.ID, &rel.ID
			b.placeRelation(nil, rel)
			b.placeRelation(nil, &m)
			created = append(created, *rel, m)
			continue
		}
		b.placeRelation(nil, rel)
		created = append(created, *rel)
	}
	if size := b.size(); size > maxTx {
		per := size / len(targets)
		return apperr.Invalid("targets", "This write may create relations to at most "+strconv.Itoa(max(1, (maxTx-1)/per))+" targets at once.")
	}
	if err := conflictIsNotFound(b.run(ctx)); err != nil {
		return err
	}
	list := r.ListAnswer
	*r = created[0]
	r.Created, r.ListAnswer = created, list
	return nil
}

// UpdateRelation writes next over prev (read at its version), on condition that its owner and
// target exist with the privacy read. Kanka leaves the mirror as it is; a new target unlinks
// both (the mirror no longer mirrors it), the mirror conditional on its version too.
func (s *Store) UpdateRelation(ctx context.Context, prev, next *domain.Relation) error {
	var mirror *domain.Relation
	if prev.MirrorID != nil && prev.TargetID != next.TargetID {
		m, err := s.linkedMirror(ctx, prev)
		if err != nil {
			return err
		}
		mirror, next.MirrorID = m, nil
	}
	s.stampUpdate(&prev.Meta, &next.Meta)
	b := s.newTx()
	b.needEntity(next.CampaignID, next.OwnerID, next.OwnerPrivate, apperr.ErrNotFound)
	b.needEntity(next.CampaignID, next.TargetID, next.TargetPrivate, invalidTarget("target_id"))
	b.placeRelation(prev, next)
	if mirror != nil {
		s.unlink(b, mirror)
	}
	return b.run(ctx)
}

// DeleteRelation deletes r and, with r.DeleteMirrored, its mirror; otherwise the mirror stays
// and forgets r (mirror_id null), in the same transaction.
func (s *Store) DeleteRelation(ctx context.Context, r *domain.Relation) error {
	mirror, err := s.linkedMirror(ctx, r)
	if err != nil {
		return err
	}
	b := s.newTx()
	b.removeRelation(r, 0)
	switch {
	case mirror != nil && r.DeleteMirrored:
		b.removeRelation(mirror, 0)
	case mirror != nil:
		s.unlink(b, mirror)
	}
	return b.run(ctx)
}

// linkedMirror reads r's mirror when it still names r back; nil when there is none.
func (s *Store) linkedMirror(ctx context.Context, r *domain.Relation) (*domain.Relation, error) {
	if r.MirrorID == nil {
		return nil, nil
	}
	m, err := s.getRelation(ctx, r.CampaignID, r.TargetID, *r.MirrorID)
	if errors.Is(err, apperr.ErrNotFound) || (err == nil && (m.MirrorID == nil || *m.MirrorID != r.ID)) {
		return nil, nil
	}
	return m, err
}

// unlink rewrites mirror without its mirror_id, on condition of its version.
func (s *Store) unlink(b *txBuilder, mirror *domain.Relation) {
	next := mirror.Clone()
	next.MirrorID = nil
	s.stampUpdate(&mirror.Meta, &next.Meta)
	b.placeRelation(mirror, next)
}

// deleteEntityRelations removes every relation owned by entity eid or pointing at it (rows:
// the items of its partition, where its relations' homes and the RELIN# pointers of the others
// are), each with its copies, pointer and counts in its own transaction, conditional on its
// version (re-read on conflict): idempotent, so a retried delete cascade finishes it. Mirrors
// need no unlinking: a mirror of a relation touching eid touches eid too. The entity is
// already gone, so no new relation to or from it can start, nor can one be updated.
func (s *Store) deleteEntityRelations(ctx context.Context, cid, eid int64, rows []partitionRow) error {
	type ref struct{ owner, id int64 }
	var refs []ref
	for _, r := range rows {
		switch {
		case r.SK == layout.RecordSK(layout.RelationPrefix, r.ID) || r.SK == layout.SelfHome+layout.RecordSK(layout.RelationPrefix, r.ID):
			refs = append(refs, ref{eid, r.ID})
		case r.SK == layout.IncomingPrefix+layout.Pad(r.ID):
			refs = append(refs, ref{r.OwnerID, r.ID})
		}
	}
	w, wctx := errgroup.WithContext(ctx)
	w.SetLimit(writeConcurrency)
	for _, rf := range refs {
		w.Go(func() error {
			return apperr.RetryConflicts(wctx, func() error {
				r, err := s.getRelation(wctx, cid, rf.owner, rf.id)
				if errors.Is(err, apperr.ErrNotFound) {
					return nil // deleted already (its pointer goes with the partition)
				}
				if err != nil {
					return err
				}
				b := s.newTx()
				b.removeRelation(r, eid)
				return b.run(wctx)
			})
		})
	}
	return w.Wait()
}

func init() {
	DeclareRelated(layout.MustKind(layout.RelationPrefix), func(item dynamo.Item, owner int64, out *timeline.Related) error {
		var it layout.RelationItem
		if err := unmarshalItem(item, &it); err != nil {
			return err
		}
		out.Relations[owner] = append(out.Relations[owner], it.AsRelation())
		return nil
	})
}
