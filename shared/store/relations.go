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
)

// Relations live in their owner entity's partition, placed like notes (childSlots: the
// admins' home, member and public copies, the creator's own ranges), with copies in the
// campaign partition for the campaign-wide list (REL#), one in the owner's related=1 bucket,
// and a pointer (RELIN#) in the target's partition, so that deleting an entity finds the
// relations pointing at it. A relation whose owner or target is private is placed for admins
// only, so no list ever shows a relation to an entity its reader may not see, and totals stay
// exact. All of one relation's items (and its mirror's) are written in one transaction.
type relationItem struct {
	metaAttrs
	EntityID      int64  `dynamo:"entity_id"` // the owner: the partition's entity
	OwnerID       int64  `dynamo:"owner_id"`
	TargetID      int64  `dynamo:"target_id"`
	Relation      string `dynamo:"relation"`
	NameLC        string `dynamo:"name_lc"` // the relation text, for ?name=
	Attitude      int64  `dynamo:"attitude"`
	Colour        string `dynamo:"colour,omitempty"`
	Visibility    string `dynamo:"visibility"`
	IsPinned      bool   `dynamo:"is_pinned"`
	MirrorID      *int64 `dynamo:"mirror_id,omitempty"`
	OwnerPrivate  bool   `dynamo:"owner_private"`
	TargetPrivate bool   `dynamo:"target_private"`
}

func toRelationItem(r *domain.Relation) relationItem {
	return relationItem{metaAttrs: toMetaAttrs(entityPK(r.CampaignID, r.OwnerID), recordSK(relationPrefix, r.ID), r.Meta),
		EntityID: r.OwnerID, OwnerID: r.OwnerID, TargetID: r.TargetID, Relation: r.Relation, NameLC: strings.ToLower(r.Relation),
		Attitude: r.Attitude, Colour: r.Colour, Visibility: string(r.Visibility), IsPinned: r.IsPinned, MirrorID: r.MirrorID,
		OwnerPrivate: r.OwnerPrivate, TargetPrivate: r.TargetPrivate}
}

func (it relationItem) relation() domain.Relation {
	return domain.Relation{Meta: it.meta(), OwnerID: it.OwnerID, TargetID: it.TargetID, Relation: it.Relation,
		Attitude: it.Attitude, Colour: it.Colour, Visibility: domain.Visibility(it.Visibility), IsPinned: it.IsPinned,
		MirrorID: it.MirrorID, OwnerPrivate: it.OwnerPrivate, TargetPrivate: it.TargetPrivate}
}

// incomingItem points from a relation's target to the relation.
type incomingItem struct {
	PK      string `dynamo:"pk"`
	SK      string `dynamo:"sk"`
	ID      int64  `dynamo:"id"`
	OwnerID int64  `dynamo:"owner_id"`
}

// relationSlots are every item of relation r but its incoming pointer: its home and copies in
// the owner's partition, its copies in the campaign-wide list (no SELF# home there: the index
// is only read as lists) and its related=1 bucket copy.
func relationSlots(r *domain.Relation) []slot {
	out := childSlots(relationPrefix, entityPK(r.CampaignID, r.OwnerID), r.ID, r.CreatedBy, r.Visibility, r.Private())
	out = append(out, relationIndexSlots(campaignPK(r.CampaignID), r.ID, r.CreatedBy, r.Visibility, r.Private())...)
	return append(out, slot{pk: relatedPK(r.CampaignID, r.OwnerID), sk: relatedSK(r.OwnerID, relationPrefix, r.ID), id: r.ID})
}

// relationIndexSlots are a relation's copies in the campaign-wide list (pk: the campaign's).
func relationIndexSlots(pk string, id, createdBy int64, vis domain.Visibility, private bool) []slot {
	var out []slot
	for _, sl := range childSlots(relationIndexPrefix, pk, id, createdBy, vis, private) {
		if sl.counter != "" {
			sl.home = false
			out = append(out, sl)
		}
	}
	return out
}

// relationRefs are a relation's two sync pointers: in its owner's list and in the campaign's.
func relationRefs(r *domain.Relation) []*syncRef {
	ptr := syncPointer{ID: r.ID, IsPrivate: r.Private(), Visibility: string(r.Visibility), CreatedBy: r.CreatedBy}
	own, all := ptr, ptr
	own.PK, all.PK = entityPK(r.CampaignID, r.OwnerID), campaignPK(r.CampaignID)
	return []*syncRef{{kind: relationPrefix, ptr: own, updated: r.UpdatedAt}, {kind: relationIndexPrefix, ptr: all, updated: r.UpdatedAt}}
}

// placeRelation writes r over prev (nil for a new one) with its incoming pointer.
func (b *txBuilder) placeRelation(prev, r *domain.Relation) {
	var prevSlots []slot
	var prevVersion int64
	if prev != nil {
		prevSlots, prevVersion = relationSlots(prev), prev.Version
		if prev.TargetID != r.TargetID {
			k := incomingKey(prev.CampaignID, prev.TargetID, prev.ID)
			b.del(b.s.table.Delete("pk", k.pk).Range("sk", k.sk))
		}
	}
	b.place(marshal(toRelationItem(r)), prevSlots, relationSlots(r), prevVersion)
	next := relationRefs(r)
	for i := range next {
		if prev != nil {
			b.syncMove(relationRefs(prev)[i], next[i])
		} else {
			b.syncMove(nil, next[i])
		}
	}
	if prev == nil || prev.TargetID != r.TargetID {
		k := incomingKey(r.CampaignID, r.TargetID, r.ID)
		b.put(b.s.table.Put(incomingItem{PK: k.pk, SK: k.sk, ID: r.ID, OwnerID: r.OwnerID}))
	}
}

// removeRelation deletes every item of r, on condition of the version read.
// Its sync pointers leave tombstones, but in the partition of entity gone (being deleted:
// nothing would read them, and its partition is already read for removal; 0 for none).
func (b *txBuilder) removeRelation(r *domain.Relation, gone int64) {
	b.remove(relationSlots(r), r.Version)
	for _, ref := range relationRefs(r) {
		if ref.kind == relationPrefix && r.OwnerID == gone {
			k := syncSK(ref.kind, formatTime(ref.updated), r.ID)
			b.del(b.s.table.Delete("pk", ref.ptr.PK).Range("sk", k))
			continue
		}
		b.syncMove(ref, nil) // its tombstone
	}
	k := incomingKey(r.CampaignID, r.TargetID, r.ID)
	b.del(b.s.table.Delete("pk", k.pk).Range("sk", k.sk))
}

// needEntity makes the transaction conditional on entity eid existing with the links privacy
// read (its relations are placed by links_private, which a privacy change of the entity sets
// before it re-places them: relink.go); gone is the answer when it does not.
func (b *txBuilder) needEntity(cid, eid int64, private bool, gone error) {
	if b.needs == nil {
		b.needs = map[int]error{}
	}
	b.needs[b.n] = gone
	b.check(b.s.table.Check("pk", campaignPK(cid)).Range("sk", recordSK(entityPrefix, eid)).
		If("attribute_exists(pk) AND 'links_private' = ?", private))
}

// invalidTarget is the answer for a target that is gone or changed its privacy under a write.
func invalidTarget(field string) error {
	return apperr.Invalid(field, "The selected "+domain.Label(field)+" is invalid.")
}

// GetRelationAndEntity reads a relation and its owner entity in one round trip.
func (s *Store) GetRelationAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Relation, error) {
	return getWithEntity(ctx, s, cid, eid, relationPrefix, id, relationItem.relation)
}

// getRelation reads relation id of owner eid (strongly consistent).
func (s *Store) getRelation(ctx context.Context, cid, eid, id int64) (*domain.Relation, error) {
	var keys []itemKey
	for _, sk := range childHomeSKs(relationPrefix, id) {
		keys = append(keys, itemKey{entityPK(cid, eid), sk})
	}
	items, err := s.fetch(ctx, false, keys)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if it, ok := items[k]; ok {
			var ri relationItem
			if err := dynamo.UnmarshalItem(it, &ri); err != nil {
				return nil, err
			}
			r := ri.relation()
			return &r, nil
		}
	}
	return nil, apperr.ErrNotFound
}

// ListRelations reads one page of the relations of entity eid that the caller may see.
func (s *Store) ListRelations(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Relation], error) {
	l := listSpec{ranges: childRanges(relationPrefix, entityPK(cid, eid), a)}
	l.filter(f)
	return listPage(ctx, s, l, p, relationItem.relation)
}

// ListCampaignRelations reads one page of the campaign's relations that the caller may see.
func (s *Store) ListCampaignRelations(ctx context.Context, cid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Relation], error) {
	l := listSpec{ranges: childRanges(relationIndexPrefix, campaignPK(cid), a)}
	l.filter(f)
	return listPage(ctx, s, l, p, relationItem.relation)
}

// reserveIDs takes n consecutive ids of sequence name in one update; the first is returned.
func (s *Store) reserveIDs(ctx context.Context, pk, name string, n int) (int64, error) {
	var raw dynamo.Item
	if err := s.table.Update("pk", pk).Range("sk", seqSK).Add(name, n).Value(ctx, &raw); err != nil {
		return 0, wrap(err)
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
	first, err := s.reserveIDs(ctx, campaignPK(r.CampaignID), "relation", n)
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
		case r.SK == recordSK(relationPrefix, r.ID) || r.SK == selfHome+recordSK(relationPrefix, r.ID):
			refs = append(refs, ref{eid, r.ID})
		case r.SK == incomingPrefix+pad(r.ID):
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
