package store

import (
	"context"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

const (
	locationPrefix = "LOCATION"
	entityPrefix   = "ENTITY"
)

type locationItem struct {
	metaAttrs
	ownerAttrs
	GSI1PK       string `dynamo:"gsi1pk,omitempty"`
	GSI1SK       string `dynamo:"gsi1sk,omitempty"`
	ParentID     *int64 `dynamo:"parent_location_id,omitempty"`
	MapURL       string `dynamo:"map_url,omitempty"`
	IsMapPrivate bool   `dynamo:"is_map_private"`
}

func parentGSI(cid, parentID int64) string { return campaignPK(cid) + "#PARENT#" + pad(parentID) }

var locationKind = ownerKind{prefix: locationPrefix, entityType: "location"}

func toLocationItem(l *domain.Location) locationItem {
	it := locationItem{metaAttrs: toMetaAttrs(campaignPK(l.CampaignID), recordSK(locationPrefix, l.ID), l.Meta),
		ownerAttrs: toOwnerAttrs(l.Owner), ParentID: l.ParentID, MapURL: l.MapURL, IsMapPrivate: l.IsMapPrivate}
	if l.ParentID != nil {
		it.GSI1PK, it.GSI1SK = parentGSI(l.CampaignID, *l.ParentID), it.SK
	}
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
// input of the parent and cycle checks. A missing first location gives an empty chain.
func (s *Store) LocationAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error) {
	var chain []domain.AncestorLink
	for next := &id; next != nil && len(chain) < max; {
		var it struct {
			ID        int64  `dynamo:"id"`
			IsPrivate bool   `dynamo:"is_private"`
			ParentID  *int64 `dynamo:"parent_location_id"`
		}
		err := s.getItem(ctx, campaignPK(cid), recordSK(locationPrefix, *next), &it, "id", "is_private", "parent_location_id")
		if err == domain.ErrNotFound {
			break
		}
		if err != nil {
			return nil, err
		}
		chain = append(chain, domain.AncestorLink{ID: it.ID, IsPrivate: it.IsPrivate})
		next = it.ParentID
	}
	return chain, nil
}

// ListLocations reads one page of the campaign's locations, ordered by id.
func (s *Store) ListLocations(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Location], error) {
	l := listSpec{pk: campaignPK(cid), prefix: locationPrefix + "#", counters: []string{locationKind.counterSK()}, hidePrivate: hidePrivate}
	l.filter(f)
	return listPage(ctx, s, l, p, locationItem.location)
}

// counterUpdate adjusts a list's exact totals inside a write transaction.
func (s *Store) counterUpdate(pk, sk string, n, private int) *dynamo.Update {
	return s.table.Update("pk", pk).Range("sk", sk).Add("n", n).Add("private", private)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CreateLocation stores a new location and its entity in one transaction, with ids from the
// campaign's sequences: two round trips.
func (s *Store) CreateLocation(ctx context.Context, l *domain.Location) error {
	return s.createOwner(ctx, locationKind, &l.Meta, &l.Owner, func() any { return toLocationItem(l) })
}

// UpdateLocation writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise). The entity and the totals follow in the same transaction.
func (s *Store) UpdateLocation(ctx context.Context, prev, next *domain.Location) error {
	return s.updateOwner(ctx, locationKind, &prev.Meta, &next.Meta, &prev.Owner, &next.Owner, func() any { return toLocationItem(next) })
}

// DeleteLocation deletes a location and what hangs from it. Cascades run first and are
// idempotent (children become roots, map points and the entity's events and notes go), so a
// delete that fails half-way is finished by retrying it; the location, its entity and the total
// then go in one transaction conditional on the version read.
func (s *Store) DeleteLocation(ctx context.Context, l *domain.Location) error {
	return s.deleteOwner(ctx, locationKind, &l.Meta, &l.Owner,
		func() error { return s.orphanChildren(ctx, l) },
		func() error { return s.deletePartition(ctx, mapPointsPK(l.CampaignID, l.ID)) },
		func() error { return s.deletePartition(ctx, entityPK(l.CampaignID, l.EntityID)) })
}

// orphanChildren makes the children of l roots, as Kanka does, found through the parent index.
func (s *Store) orphanChildren(ctx context.Context, l *domain.Location) error {
	var kids []struct {
		SK string `dynamo:"sk"`
	}
	err := s.table.Get("gsi1pk", parentGSI(l.CampaignID, l.ID)).Index(GSI1).Project("sk").All(ctx, &kids)
	if err != nil {
		return wrap(err)
	}
	now := formatTime(s.now())
	for _, k := range kids {
		err := s.table.Update("pk", campaignPK(l.CampaignID)).Range("sk", k.SK).
			Remove("parent_location_id", "gsi1pk", "gsi1sk").Set("updated_at", now).Add("version", 1).
			If("'parent_location_id' = ?", l.ID).Run(ctx)
		if err != nil && !dynamo.IsCondCheckFailed(err) { // already moved elsewhere: leave it
			return wrap(err)
		}
	}
	return nil
}

// deletePartition removes every item of a child partition (map points, events, notes and their
// counters) in batches of 25.
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
	return s.deleteKeys(ctx, batch)
}
