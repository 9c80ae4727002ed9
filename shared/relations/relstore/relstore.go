// Package relstore is the relations family's storage: its writes of relations (targets, two-way
// mirrors, the mirror's unlinking) over the kernel (package store), which keeps the relation
// items themselves (home and audiences' copies in the owner's partition, the campaign-wide
// index, the target's incoming pointer), since an entity's trash, restore, privacy change and
// delete re-place them.
package relstore

import (
	"context"
	"errors"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Relations is the family's storage over the kernel.
type Relations struct{ *store.Store }

// New wraps the kernel.
func New(st *store.Store) *Relations { return &Relations{st} }

// invalidTarget is the answer for a target that is gone or changed its privacy under a write.
func invalidTarget(field string) error {
	return apperr.Invalid(field, "The selected "+domain.Label(field)+" is invalid.")
}

// GetRelationAndEntity reads a relation and its owner entity in one round trip.
func (s *Relations) GetRelationAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Relation, error) {
	var it store.RelationItem
	var homes []store.Key
	for _, sk := range store.ChildHomeSKs(store.RelationKind, id) {
		homes = append(homes, store.EntityPartition(cid, eid).Item(sk))
	}
	e, found, err := s.EntityWith(ctx, cid, eid, homes, &it)
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, nil, apperr.ErrNotFound
	}
	r := it.AsRelation()
	return e, &r, nil
}

// ListRelations reads one page of the relations of entity eid that the caller may see.
func (s *Relations) ListRelations(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Relation], error) {
	return store.ListVisible(ctx, s.Store, store.RelationKind, store.EntityPartition(cid, eid), a, f, p, store.RelationItem.AsRelation)
}

// ListCampaignRelations reads one page of the campaign's relations that the caller may see.
func (s *Relations) ListCampaignRelations(ctx context.Context, cid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Relation], error) {
	return store.ListVisible(ctx, s.Store, store.CampaignRelationKind, store.CampaignPartition(cid), a, f, p, store.RelationItem.AsRelation)
}

// CreateRelation stores r to each of its targets (r.AllTargets, their privacy read in
// r.TargetPrivacy) and, with two_way, each one's mirror, all in one transaction conditional on
// the owner and every target existing with the privacy read. r becomes the first relation;
// r.Created holds all. A create too large for one transaction is a 422 naming targets.
func (s *Relations) CreateRelation(ctx context.Context, r *domain.Relation) error {
	targetPrivate := r.TargetPrivacy
	targets := r.AllTargets()
	n := len(targets)
	if r.TwoWay {
		n *= 2
	}
	first, err := s.NextIDs(ctx, r.CampaignID, "relation", n)
	if err != nil {
		return err
	}
	base := *r
	created := make([]domain.Relation, 0, n)
	err = s.Write(ctx, store.Step(func(t store.Tx) {
		t.NeedEntity(r.CampaignID, r.OwnerID, r.OwnerPrivate, apperr.ErrNotFound)
		next := first
		for i, target := range targets {
			field := "target_id"
			if r.ListAnswer {
				field = "targets." + strconv.Itoa(i)
			}
			t.NeedEntity(r.CampaignID, target, targetPrivate[target], invalidTarget(field))
			rel := base.Clone()
			rel.TargetID, rel.TargetPrivate = target, targetPrivate[target]
			rel.Meta.StampNew(next, s.Now())
			next++
			if !r.TwoWay {
				t.Add(store.PlaceRelation(nil, rel))
				created = append(created, *rel)
				continue
			}
			m := rel.Mirror()
			m.TargetRelation = ""
			m.Meta.StampNew(next, s.Now())
			next++
			rel.MirrorID, m.MirrorID = &m.ID, &rel.ID
			t.Add(store.PlaceRelation(nil, rel))
			t.Add(store.PlaceRelation(nil, &m))
			created = append(created, *rel, m)
		}
		if size := t.Size(); size > store.MaxTxItems {
			per := size / len(targets)
			t.Refuse(apperr.Invalid("targets", "This write may create relations to at most "+strconv.Itoa(max(1, (store.MaxTxItems-1)/per))+" targets at once."))
		}
	}))
	if err := store.ConflictIsGone(err); err != nil {
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
func (s *Relations) UpdateRelation(ctx context.Context, prev, next *domain.Relation) error {
	var mirror *domain.Relation
	if prev.MirrorID != nil && prev.TargetID != next.TargetID {
		m, err := s.linkedMirror(ctx, prev)
		if err != nil {
			return err
		}
		mirror, next.MirrorID = m, nil
	}
	next.Meta.StampUpdate(&prev.Meta, s.Now())
	steps := []store.TxStep{store.Step(func(t store.Tx) {
		t.NeedEntity(next.CampaignID, next.OwnerID, next.OwnerPrivate, apperr.ErrNotFound)
		t.NeedEntity(next.CampaignID, next.TargetID, next.TargetPrivate, invalidTarget("target_id"))
	}), store.PlaceRelation(prev, next)}
	if mirror != nil {
		steps = append(steps, s.unlink(mirror))
	}
	return s.Write(ctx, steps...)
}

// DeleteRelation deletes r and, with r.DeleteMirrored, its mirror; otherwise the mirror stays
// and forgets r (mirror_id null), in the same transaction.
func (s *Relations) DeleteRelation(ctx context.Context, r *domain.Relation) error {
	mirror, err := s.linkedMirror(ctx, r)
	if err != nil {
		return err
	}
	steps := []store.TxStep{store.RemoveRelation(r)}
	switch {
	case mirror != nil && r.DeleteMirrored:
		steps = append(steps, store.RemoveRelation(mirror))
	case mirror != nil:
		steps = append(steps, s.unlink(mirror))
	}
	return s.Write(ctx, steps...)
}

// linkedMirror reads r's mirror when it still names r back; nil when there is none.
func (s *Relations) linkedMirror(ctx context.Context, r *domain.Relation) (*domain.Relation, error) {
	if r.MirrorID == nil {
		return nil, nil
	}
	m, err := s.getRelation(ctx, r.CampaignID, r.TargetID, *r.MirrorID)
	if errors.Is(err, apperr.ErrNotFound) || (err == nil && (m.MirrorID == nil || *m.MirrorID != r.ID)) {
		return nil, nil
	}
	return m, err
}

// getRelation reads relation id of owner eid (strongly consistent); ErrNotFound when there is
// none.
func (s *Relations) getRelation(ctx context.Context, cid, eid, id int64) (*domain.Relation, error) {
	var keys []store.Key
	for _, sk := range store.ChildHomeSKs(store.RelationKind, id) {
		keys = append(keys, store.EntityPartition(cid, eid).Item(sk))
	}
	items, err := s.GetItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if raw, ok := items[k]; ok {
			var it store.RelationItem
			if err := store.UnmarshalItem(raw, &it); err != nil {
				return nil, err
			}
			r := it.AsRelation()
			return &r, nil
		}
	}
	return nil, apperr.ErrNotFound
}

// unlink is the step that rewrites mirror without its mirror_id, on condition of its version.
func (s *Relations) unlink(mirror *domain.Relation) store.TxStep {
	next := mirror.Clone()
	next.MirrorID = nil
	next.Meta.StampUpdate(&mirror.Meta, s.Now())
	return store.PlaceRelation(mirror, next)
}
