package store

import (
	"context"
	"errors"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

const (
	locationPrefix    = "LOCATION"
	entityPrefix      = "ENTITY"
	locationCounterSK = "COUNT#" + locationPrefix
)

type locationItem struct {
	PK               string  `dynamo:"pk"`
	SK               string  `dynamo:"sk"`
	GSI1PK           string  `dynamo:"gsi1pk,omitempty"`
	GSI1SK           string  `dynamo:"gsi1sk,omitempty"`
	ID               int64   `dynamo:"id"`
	CampaignID       int64   `dynamo:"campaign_id"`
	EntityID         int64   `dynamo:"entity_id"`
	Name             string  `dynamo:"name"`
	NameLC           string  `dynamo:"name_lc"`
	Entry            string  `dynamo:"entry,omitempty"`
	Type             string  `dynamo:"type,omitempty"`
	ImageURL         string  `dynamo:"image_url,omitempty"`
	IsPrivate        bool    `dynamo:"is_private"`
	ParentID         *int64  `dynamo:"parent_location_id,omitempty"`
	Tags             []int64 `dynamo:"tags"`
	MapURL           string  `dynamo:"map_url,omitempty"`
	IsMapPrivate     bool    `dynamo:"is_map_private"`
	EntityImageUUID  string  `dynamo:"entity_image_uuid,omitempty"`
	EntityHeaderUUID string  `dynamo:"entity_header_uuid,omitempty"`
	CreatedAt        string  `dynamo:"created_at"`
	UpdatedAt        string  `dynamo:"updated_at"`
	CreatedBy        int64   `dynamo:"created_by"`
	UpdatedBy        int64   `dynamo:"updated_by"`
	Version          int64   `dynamo:"version"`
}

func parentGSI(cid, parentID int64) string { return campaignPK(cid) + "#PARENT#" + pad(parentID) }

func locationOwner(l *domain.Location) owner {
	return owner{kind: locationPrefix, entityType: "location", cid: l.CampaignID, id: l.ID, entityID: l.EntityID,
		name: l.Name, private: l.IsPrivate, version: l.Version, tags: l.Tags, imageURL: l.ImageURL,
		createdAt: formatTime(l.CreatedAt), updatedAt: formatTime(l.UpdatedAt), createdBy: l.CreatedBy, updatedBy: l.UpdatedBy}
}

func toLocationItem(l *domain.Location) locationItem {
	it := locationItem{
		PK: campaignPK(l.CampaignID), SK: recordSK(locationPrefix, l.ID),
		ID: l.ID, CampaignID: l.CampaignID, EntityID: l.EntityID,
		Name: l.Name, NameLC: strings.ToLower(l.Name), Entry: l.Entry, Type: l.Type, ImageURL: l.ImageURL,
		IsPrivate: l.IsPrivate, ParentID: l.ParentID, Tags: l.Tags, MapURL: l.MapURL, IsMapPrivate: l.IsMapPrivate,
		EntityImageUUID: l.EntityImageUUID, EntityHeaderUUID: l.EntityHeaderUUID,
		CreatedAt: formatTime(l.CreatedAt), UpdatedAt: formatTime(l.UpdatedAt),
		CreatedBy: l.CreatedBy, UpdatedBy: l.UpdatedBy, Version: l.Version,
	}
	if it.Tags == nil {
		it.Tags = []int64{}
	}
	if l.ParentID != nil {
		it.GSI1PK, it.GSI1SK = parentGSI(l.CampaignID, *l.ParentID), it.SK
	}
	return it
}

func (it locationItem) location() domain.Location {
	return domain.Location{
		ID: it.ID, CampaignID: it.CampaignID, EntityID: it.EntityID, Name: it.Name, Entry: it.Entry, Type: it.Type,
		ImageURL: it.ImageURL, IsPrivate: it.IsPrivate, ParentID: it.ParentID, Tags: it.Tags, MapURL: it.MapURL,
		IsMapPrivate: it.IsMapPrivate, EntityImageUUID: it.EntityImageUUID, EntityHeaderUUID: it.EntityHeaderUUID,
		CreatedAt: parseTime(it.CreatedAt), UpdatedAt: parseTime(it.UpdatedAt), CreatedBy: it.CreatedBy,
		UpdatedBy: it.UpdatedBy, Version: it.Version,
	}
}

// GetLocation reads one location of the campaign; ErrNotFound when there is none.
func (s *Store) GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error) {
	var it locationItem
	err := s.table.Get("pk", campaignPK(cid)).Range("sk", dynamo.Equal, recordSK(locationPrefix, id)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, domain.ErrNotFound
	}
	if err != nil {
		return nil, wrap(err)
	}
	l := it.location()
	return &l, nil
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
		err := s.table.Get("pk", campaignPK(cid)).Range("sk", dynamo.Equal, recordSK(locationPrefix, *next)).
			Project("id", "is_private", "parent_location_id").Consistent(true).One(ctx, &it)
		if errors.Is(err, dynamo.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, wrap(err)
		}
		chain = append(chain, domain.AncestorLink{ID: it.ID, IsPrivate: it.IsPrivate})
		next = it.ParentID
	}
	return chain, nil
}

// ListLocations reads one page of the campaign's locations, ordered by id.
func (s *Store) ListLocations(ctx context.Context, cid int64, f domain.LocationFilter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Location], error) {
	l := listSpec{pk: campaignPK(cid), prefix: locationPrefix + "#", counterSK: locationCounterSK, hidePrivate: hidePrivate}
	l.recordFilter(f.RecordFilter)
	if f.ParentID != nil {
		l.where("'parent_location_id' = ?", *f.ParentID)
	}
	page, err := listPage[locationItem](ctx, s, l, p)
	out := domain.Page[domain.Location]{Total: page.Total, Next: page.Next, Items: make([]domain.Location, len(page.Items))}
	for i, it := range page.Items {
		out.Items[i] = it.location()
	}
	return out, err
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
	id, entityID, err := s.ownerIDs(ctx, l.CampaignID, "location")
	if err != nil {
		return err
	}
	now := s.now()
	l.ID, l.EntityID, l.Version = id, entityID, 1
	l.CreatedAt, l.UpdatedAt, l.UpdatedBy = now, now, l.CreatedBy
	return s.createOwner(ctx, locationOwner(l), toLocationItem(l))
}

// UpdateLocation writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise). The entity and the totals follow in the same transaction.
func (s *Store) UpdateLocation(ctx context.Context, prev, next *domain.Location) error {
	next.Version = prev.Version + 1
	next.UpdatedAt = s.now()
	return s.updateOwner(ctx, locationOwner(prev), locationOwner(next), toLocationItem(next))
}

// DeleteLocation deletes a location and what hangs from it. Cascades run first and are
// idempotent (children become roots, map points and the entity's events and notes go), so a
// delete that fails half-way is finished by retrying it; the location, its entity and the total
// then go in one transaction conditional on the version read.
func (s *Store) DeleteLocation(ctx context.Context, l *domain.Location) error {
	err := concurrently(
		func() error { return s.orphanChildren(ctx, l) },
		func() error { return s.deletePartition(ctx, childPK(l.CampaignID, locationPrefix, l.ID)) },
		func() error { return s.deletePartition(ctx, childPK(l.CampaignID, entityPrefix, l.EntityID)) },
	)
	if err != nil {
		return err
	}
	return s.deleteOwner(ctx, locationOwner(l))
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
	for start := 0; start < len(keys); start += 25 {
		end := min(start+25, len(keys))
		batch := make([]dynamo.Keyed, 0, end-start)
		for _, k := range keys[start:end] {
			batch = append(batch, dynamo.Keys{k.PK, k.SK})
		}
		if _, err := s.table.Batch("pk", "sk").Write().Delete(batch...).Run(ctx); err != nil {
			return wrap(err)
		}
	}
	return nil
}
