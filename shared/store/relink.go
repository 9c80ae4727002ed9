package store

import (
	"context"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// References placed by an entity's privacy besides its events' calendar links (issue 19): the
// relations it owns or is the target of (placed for admins only while either end is private)
// and, for a tag, the tag's id on its members' public copies (private_tags). A privacy change
// re-places them in the same steps as the links (updateOwnerPrivacy: hidden before the record
// turns private, shown after it turns public, reconciled at the end, by the sweeper when a
// step fails), so they are never more visible than the entity.

// relinkRefs re-places the relations, map markers (markerlinks.go), tag members and a
// location's maps (locmaps.go) of entity eid (of type typ, its record
// childID) as private says.
func (s *Store) relinkRefs(ctx context.Context, cid, eid int64, typ string, childID int64, private bool) error {
	if err := s.relinkRelations(ctx, cid, eid, private); err != nil {
		return err
	}
	if err := s.relinkMarkers(ctx, cid, eid, private); err != nil {
		return err
	}
	if err := s.placeReferences(ctx, cid, eid, private); err != nil {
		return err
	}
	if err := s.placeOwnLinks(ctx, &layout.EntityItem{CampaignID: cid, ID: eid, Type: typ, ChildID: childID}, private); err != nil {
		return err
	}
	if typ == layout.TagKind.EntityType {
		return s.relinkTagMembers(ctx, cid, childID, private)
	}
	if typ == layout.LocationKind.EntityType {
		return s.placeLocationMaps(ctx, cid, childID, private, false)
	}
	return nil
}

// relinkRelations re-places every relation owned by entity eid or pointing at it whose end eid
// is placed otherwise than private: found through eid's partition (its relations' homes and
// the RELIN# pointers of the others: three concurrent Queries), the others' homes read in
// batches of 100; each rewritten (version bumped, updated_at kept: the relation itself did not
// change) with its copies and counts, at most maxTx items a transaction, conditional on the
// version read (a lost race re-reads).
func (s *Store) relinkRelations(ctx context.Context, cid, eid int64, private bool) error {
	return apperr.RetryConflicts(ctx, func() error {
		rels, err := s.entityRelations(ctx, cid, eid)
		if err != nil {
			return err
		}
		var txs []*txBuilder
		for _, r := range rels {
			next := r.Clone()
			if r.OwnerID == eid {
				next.OwnerPrivate = private
			}
			if r.TargetID == eid {
				next.TargetPrivate = private
			}
			if next.OwnerPrivate == r.OwnerPrivate && next.TargetPrivate == r.TargetPrivate {
				continue
			}
			if len(txs) == 0 || txs[len(txs)-1].size()+relationItems > maxTx {
				txs = append(txs, s.newTx())
			}
			next.Version = r.Version + 1
			txs[len(txs)-1].placeRelation(r, next)
		}
		return runTxs(ctx, txs)
	})
}

// relationItems bounds the items one relation's re-placing writes (home, copies, campaign
// copies, bucket copy, counters, sync pointers).
const relationItems = 28

// entityRelations reads every relation owned by entity eid or pointing at it, consistently.
func (s *Store) entityRelations(ctx context.Context, cid, eid int64) ([]*domain.Relation, error) {
	pk := layout.EntityPK(cid, eid)
	var homes, selfHomes []layout.RelationItem
	var incoming []incomingItem
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return layout.Wrap(s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, layout.RelationPrefix+"#").Consistent(true).All(gctx, &homes))
	})
	g.Go(func() error {
		return layout.Wrap(s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, layout.SelfHome+layout.RelationPrefix+"#").Consistent(true).All(gctx, &selfHomes))
	})
	g.Go(func() error {
		return layout.Wrap(s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, layout.IncomingPrefix).Consistent(true).All(gctx, &incoming))
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []*domain.Relation
	for _, it := range append(homes, selfHomes...) {
		r := it.AsRelation()
		out = append(out, &r)
	}
	var keys []layout.ItemKey
	for _, in := range incoming {
		for _, sk := range childHomeSKs(layout.RelationPrefix, in.ID) {
			keys = append(keys, layout.ItemKey{PK: layout.EntityPK(cid, in.OwnerID), SK: sk})
		}
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if raw, ok := got[k]; ok {
			var it layout.RelationItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return nil, err
			}
			r := it.AsRelation()
			out = append(out, &r)
		}
	}
	return out, nil
}
