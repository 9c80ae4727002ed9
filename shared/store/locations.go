package store

import (
	"context"
	"errors"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

const (
	locationPrefix = "LOCATION"
	entityPrefix   = "ENTITY"
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
		name: l.Name, private: l.IsPrivate, version: l.Version}
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
	if err := s.getOne(ctx, itemKey{campaignPK(cid), recordSK(locationPrefix, id)}, &it); err != nil {
		return nil, err
	}
	l := it.location()
	return &l, nil
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
		err := s.table.Get("pk", campaignPK(cid)).Range("sk", dynamo.Equal, recordSK(locationPrefix, *next)).
			Project("id", "is_private", "parent_location_id").Consistent(true).One(ctx, &it)
		if errors.Is(err, dynamo.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, wrap(err)
		}
		chain = append(chain, domain.AncestorLink{ID: it.ID, IsPrivate: it.IsPrivate, ParentID: it.ParentID})
		next = it.ParentID
	}
	return chain, nil
}

// ListLocations reads one page of the campaign's locations, ordered by id: an admin's range
// holds every location, everyone else's only the public ones.
func (s *Store) ListLocations(ctx context.Context, cid int64, f domain.LocationFilter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Location], error) {
	l := listSpec{ranges: ownerRanges(locationPrefix, cid, !hidePrivate)}
	l.recordFilter(f.RecordFilter)
	if f.ParentID != nil {
		l.where("'parent_location_id' = ?", *f.ParentID)
	}
	page, err := listPage[locationItem](ctx, s, l, p, nil)
	out := domain.Page[domain.Location]{Total: page.Total, Next: page.Next, Items: make([]domain.Location, len(page.Items))}
	for i, it := range page.Items {
		out.Items[i] = it.location()
	}
	return out, err
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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
			return nil, domain.ErrConflict // the parent went since it was checked
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

// CreateLocation stores a new location and its entity in one transaction, with ids from the
// campaign's sequences, on condition that its parent still exists: two round trips.
func (s *Store) CreateLocation(ctx context.Context, l *domain.Location) error {
	var checks []func(*txBuilder)
	if l.ParentID != nil {
		// A new location has no descendants: its parent existing is all that matters.
		pid := *l.ParentID
		checks = append(checks, func(b *txBuilder) {
			b.check(s.table.Check("pk", campaignPK(l.CampaignID)).Range("sk", recordSK(locationPrefix, pid)).IfExists())
		})
	}
	id, entityID, err := s.ownerIDs(ctx, l.CampaignID, "location")
	if err != nil {
		return err
	}
	now := s.now()
	l.ID, l.EntityID, l.Version = id, entityID, 1
	l.CreatedAt, l.UpdatedAt, l.UpdatedBy = now, now, l.CreatedBy
	err = s.createOwner(ctx, locationOwner(l), toLocationItem(l), checks...)
	if err == domain.ErrConflict && l.ParentID != nil {
		return domain.Invalid(parentFieldName, "The selected parent location id is invalid.")
	}
	return err
}

const parentFieldName = "parent_location_id"

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
	next.Version = prev.Version + 1
	next.UpdatedAt = s.now()
	return s.updateOwner(ctx, locationOwner(prev), locationOwner(next), toLocationItem(next), checks...)
}

// DeleteLocation deletes a location and what hangs from it: children become roots, map points
// and the entity's events and notes go (see deleteOwner for the steps and their failures).
func (s *Store) DeleteLocation(ctx context.Context, l *domain.Location) error {
	return s.deleteOwner(ctx, locationOwner(l))
}

// ResumeLocationDelete finishes a delete of location id that failed after its first step; it
// reports whether there was one.
func (s *Store) ResumeLocationDelete(ctx context.Context, cid, id int64) (bool, error) {
	return s.resumeDelete(ctx, cid, locationPrefix, id)
}

// orphanChildren makes the children of location pid roots, as Kanka does: found through the
// parent index, read again consistently, and rewritten (with their copies) in transactions of
// 40, conditional on the version read. A child moved meanwhile is read again.
func (s *Store) orphanChildren(ctx context.Context, cid, pid int64) error {
	for attempt := 0; ; attempt++ {
		var kids []struct {
			SK string `dynamo:"sk"`
		}
		err := s.table.Get("gsi1pk", parentGSI(cid, pid)).Index(GSI1).Project("sk").All(ctx, &kids)
		if err != nil || len(kids) == 0 {
			return wrap(err)
		}
		keys := make([]dynamo.Keyed, len(kids))
		for i, k := range kids {
			keys[i] = dynamo.Keys{campaignPK(cid), k.SK}
		}
		var items []locationItem
		err = s.table.Batch("pk", "sk").Get(keys...).Consistent(true).All(ctx, &items)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return wrap(err)
		}
		now := s.now()
		var txs []*txBuilder
		n := 0
		for _, it := range items {
			prev := it.location()
			if prev.ParentID == nil || *prev.ParentID != pid {
				continue
			}
			if n++; n%40 == 1 {
				txs = append(txs, s.newTx())
			}
			next := prev.Clone()
			next.ParentID, next.Version, next.UpdatedAt = nil, prev.Version+1, now
			txs[len(txs)-1].place(marshal(toLocationItem(next)), locationOwner(&prev).slots(), locationOwner(next).slots(), prev.Version)
		}
		err = runTxs(ctx, txs)
		if err != domain.ErrConflict || attempt >= domain.WriteAttempts {
			return err
		}
	}
}
