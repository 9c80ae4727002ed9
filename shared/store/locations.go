package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

type locationItem struct {
	metaAttrs
	ownerAttrs
	ParentID     *int64 `dynamo:"parent_location_id,omitempty"`
	MapURL       string `dynamo:"map_url,omitempty"`
	IsMapPrivate bool   `dynamo:"is_map_private"`
}

var locationKind = ownerKind{prefix: locationPrefix, entityType: "location"}

func toLocationItem(l *domain.Location) locationItem {
	it := locationItem{metaAttrs: toMetaAttrs(campaignPK(l.CampaignID), recordSK(locationPrefix, l.ID), l.Meta),
		ownerAttrs: toOwnerAttrs(l.Owner), ParentID: l.ParentID, MapURL: l.MapURL, IsMapPrivate: l.IsMapPrivate}
	return it
}

func (it locationItem) location() domain.Location {
	return domain.Location{Meta: it.meta(), Owner: it.owner(), ParentID: it.ParentID, MapURL: it.MapURL, IsMapPrivate: it.IsMapPrivate}
}

// GetLocation reads one location of the campaign; ErrNotFound when there is none.
func (s *Store) GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error) {
	return getRecord(ctx, s, campaignPK(cid), recordSK(locationPrefix, id), locationItem.location)
}

// LocationAncestry reads the chain from location id upwards (id first), at most max links: the
// input of the parent and cycle checks, and of the conditions that make the write depend on it.
// A missing first location gives an empty chain.
func (s *Store) LocationAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error) {
	var chain []domain.AncestorLink
	for next := &id; next != nil && len(chain) < max; {
		var it struct {
			ID        int64  `dynamo:"id"`
			IsPrivate bool   `dynamo:"is_private"`
			ParentID  *int64 `dynamo:"parent_location_id"`
		}
		err := s.getItem(ctx, campaignPK(cid), recordSK(locationPrefix, *next), &it, "id", "is_private", "parent_location_id")
		if errors.Is(err, apperr.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		chain = append(chain, domain.AncestorLink{ID: it.ID, IsPrivate: it.IsPrivate, ParentID: it.ParentID})
		next = it.ParentID
	}
	return chain, nil
}

// ListLocations reads one page of the campaign's locations, ordered by id: an admin's range
// holds every location, everyone else's only the public ones.
func (s *Store) ListLocations(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Location], error) {
	if onlyName(f) { // the name shards answer it (names.go)
		return listByName(ctx, s, cid, locationKind, f.Name, !hidePrivate, p, locationItem.location)
	}
	l := listSpec{ranges: ownerRanges(locationPrefix, cid, !hidePrivate)}
	l.filter(f)
	return listPage(ctx, s, l, p, locationItem.location)
}

// parentChecks makes a location write depend on its parent chain as read: every link still
// exists and still has the parent it had, so two concurrent moves cannot close a cycle (one of
// them fails its check and is retried on fresh data) and no location lands under a deleted one.
func (s *Store) parentChecks(ctx context.Context, cid int64, parentID int64, chain []domain.AncestorLink, depth int) (func(*txBuilder), error) {
	if len(chain) == 0 || chain[0].ID != parentID {
		var err error
		if chain, err = s.LocationAncestry(ctx, cid, parentID, depth); err != nil {
			return nil, err
		}
		if len(chain) == 0 {
			return nil, apperr.ErrConflict // the parent went since it was checked
		}
	}
	chain = chain[:min(len(chain), depth)]
	return func(b *txBuilder) {
		for _, link := range chain {
			c := s.table.Check("pk", campaignPK(cid)).Range("sk", recordSK(locationPrefix, link.ID))
			if link.ParentID == nil {
				c = c.If("attribute_exists(pk) AND attribute_not_exists('parent_location_id')")
			} else {
				c = c.If("'parent_location_id' = ?", *link.ParentID)
			}
			b.check(c)
		}
	}, nil
}

// childLink is the item that lists a child location in its parent's partition (beside the
// parent's map points), written with the child: the parent's delete finds its children there,
// strongly consistent, where an index could lag behind a child written just before.
type childLink struct {
	PK string `dynamo:"pk"`
	SK string `dynamo:"sk"`
	ID int64  `dynamo:"id"`
}

// linkParent moves location id's link from parent prev to parent next (either may be nil).
func (s *Store) linkParent(cid, id int64, prev, next *int64) func(*txBuilder) {
	return func(b *txBuilder) {
		if prev != nil && (next == nil || *prev != *next) {
			k := childLinkKey(cid, *prev, id)
			b.del(s.table.Delete("pk", k.pk).Range("sk", k.sk))
		}
		if next != nil && (prev == nil || *prev != *next) {
			k := childLinkKey(cid, *next, id)
			b.put(s.table.Put(childLink{PK: k.pk, SK: k.sk, ID: id}))
		}
	}
}

// CreateLocation stores a new location, its entity and its link in its parent in one
// transaction, with ids from the campaign's sequences, on condition that its parent still
// exists: two round trips.
func (s *Store) CreateLocation(ctx context.Context, l *domain.Location) error {
	var checks []func(*txBuilder)
	if l.ParentID != nil {
		// A new location has no descendants: its parent existing is all that matters.
		checks = append(checks, s.exists(campaignPK(l.CampaignID), recordSK(locationPrefix, *l.ParentID),
			apperr.Invalid("parent_location_id", "The selected parent location id is invalid.")),
			func(b *txBuilder) { s.linkParent(l.CampaignID, l.ID, nil, l.ParentID)(b) })
	}
	return s.createOwner(ctx, locationKind, &l.Meta, &l.Owner, func() any { return toLocationItem(l) }, checks...)
}

// UpdateLocation writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise), and, when the parent changes, that the new parent chain is still the
// one read (next.Ancestry). The entity and the counts follow in the same transaction.
func (s *Store) UpdateLocation(ctx context.Context, prev, next *domain.Location) error {
	var checks []func(*txBuilder)
	if next.ParentID != nil && (prev.ParentID == nil || *prev.ParentID != *next.ParentID) {
		c, err := s.parentChecks(ctx, next.CampaignID, *next.ParentID, next.Ancestry, domain.MaxLocationDepth)
		if err != nil {
			return err
		}
		checks = append(checks, c)
	}
	checks = append(checks, s.linkParent(next.CampaignID, next.ID, prev.ParentID, next.ParentID))
	return s.updateOwner(ctx, locationKind, &prev.Meta, &next.Meta, &prev.Owner, &next.Owner, func() any { return toLocationItem(next) }, checks...)
}

// DeleteLocation deletes a location and what hangs from it: children become roots, map points
// and the entity's events and notes go (see deleteOwner for the steps and their failures).
func (s *Store) DeleteLocation(ctx context.Context, l *domain.Location) error {
	return s.deleteOwner(ctx, locationKind, &l.Meta, &l.Owner, s.linkParent(l.CampaignID, l.ID, l.ParentID, nil))
}

// ResumeLocationDelete finishes a delete of location id that failed after its first step; it
// reports whether there was one.
func (s *Store) ResumeLocationDelete(ctx context.Context, cid, id int64) (bool, error) {
	return s.resumeDelete(ctx, cid, locationPrefix, id)
}

// orphanChildren makes the children of location pid roots, as Kanka does: found by their links
// in its partition, read consistently, and rewritten (with their copies, their links removed)
// in transactions of 30, conditional on the version read. A child moved meanwhile is read again.
func (s *Store) orphanChildren(ctx context.Context, cid, pid int64) error {
	for attempt := 0; ; attempt++ {
		var links []childLink
		err := s.table.Get("pk", mapPointsPK(cid, pid)).Range("sk", dynamo.BeginsWith, childLinkPrefix).Consistent(true).All(ctx, &links)
		if err != nil || len(links) == 0 {
			return wrap(err)
		}
		keys := make([]itemKey, len(links))
		for i, k := range links {
			keys[i] = itemKey{campaignPK(cid), recordSK(locationPrefix, k.ID)}
		}
		items, err := s.getItems(ctx, keys...)
		if err != nil {
			return err
		}
		now := s.now()
		var txs []*txBuilder
		for _, link := range links {
			if len(txs) == 0 || txs[len(txs)-1].size()+3 > maxTx-10 {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			b.del(s.table.Delete("pk", link.PK).Range("sk", link.SK))
			raw, ok := items[itemKey{campaignPK(cid), recordSK(locationPrefix, link.ID)}]
			if !ok {
				continue // a stale link: the child is gone
			}
			var it locationItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return err
			}
			prev := it.location()
			if prev.ParentID == nil || *prev.ParentID != pid {
				continue
			}
			next := prev.Clone()
			next.ParentID, next.Version, next.UpdatedAt = nil, prev.Version+1, now
			b.place(marshal(toLocationItem(next)), locationKind.slots(&prev.Meta, &prev.Owner),
				locationKind.slots(&next.Meta, &next.Owner), prev.Version)
		}
		err = runTxs(ctx, txs)
		if !errors.Is(err, apperr.ErrConflict) || attempt >= domain.WriteAttempts {
			return err
		}
	}
}
