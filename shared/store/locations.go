package store

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

type locationItem struct {
	layout.MetaAttrs
	layout.OwnerAttrs
	ParentID     *int64 `dynamo:"parent_location_id,omitempty"`
	MapURL       string `dynamo:"map_url,omitempty"`
	IsMapPrivate bool   `dynamo:"is_map_private"`
	// ParentHidden: the parent is private, so the public copy leaves it out (layout.CopyItem).
	ParentHidden bool `dynamo:"parent_hidden,omitempty"`
}

func toLocationItem(l *domain.Location) locationItem {
	it := locationItem{MetaAttrs: layout.ToMetaAttrs(layout.CampaignPK(l.CampaignID), layout.RecordSK(layout.LocationPrefix, l.ID), l.Meta),
		OwnerAttrs: toOwnerAttrs(l.Owner), ParentID: l.ParentID, MapURL: l.MapURL, IsMapPrivate: l.IsMapPrivate,
		ParentHidden: l.ParentID != nil && l.ParentPrivate}
	return it
}

func (it locationItem) location() domain.Location {
	return domain.Location{Meta: it.Meta(), Owner: it.Owner(), ParentID: it.ParentID, MapURL: it.MapURL, IsMapPrivate: it.IsMapPrivate}
}

// GetLocation reads one location of the campaign and its public copy (both read ahead on
// location routes: one round trip, no counter); ErrNotFound when there is none. ParentPrivate
// comes from the public copy, which has no parent when the parent is private (layout 3), so
// it is known for public locations, the only ones a non-admin sees.
func (s *Store) GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error) {
	it, parentHidden, err := getNested[locationItem](ctx, s, layout.LocationKind, cid, id)
	if err != nil {
		return nil, err
	}
	l := it.location()
	l.ParentPrivate = l.ParentID != nil && parentHidden
	return &l, nil
}

// ListLocations reads one page of the campaign's locations, ordered by id: an admin's range
// holds every location, everyone else's only the public ones.
func (s *Store) ListLocations(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Location], error) {
	return listNested(ctx, s, layout.LocationKind, cid, f, hidePrivate, p, locationItem.location)
}

// CreateLocation stores a new location, its entity and its link in its parent in one
// transaction, with ids from the campaign's sequences, on condition that its parent still
// exists with the privacy read (which places the public copy): two round trips (three when the
// parent was not read before, by the parent checks).
func (s *Store) CreateLocation(ctx context.Context, l *domain.Location) error {
	return s.createNested(ctx, layout.LocationKind, &l.Meta, &l.Owner, l.ParentID, &l.Ancestry, &l.ParentPrivate, func() any { return toLocationItem(l) })
}

// UpdateLocation writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise), and, when the parent changes, that the new parent chain is still the
// one read (next.Ancestry). The entity, the counts and the link follow in the same transaction;
// the public copy is placed by its parent's privacy, checked in it; a change of privacy
// re-places the public copies of the children (childCopies).
func (s *Store) UpdateLocation(ctx context.Context, prev, next *domain.Location) error {
	checks, parentPrivate, placed, err := s.nestedUpdate(ctx, layout.LocationKind, next.CampaignID, next.ID, prev.ParentID, next.ParentID, next.Ancestry, prev.IsPrivate, next.IsPrivate)
	if err != nil {
		return err
	}
	if placed {
		next.ParentPrivate = parentPrivate
	}
	return s.updateOwner(ctx, layout.LocationKind, &prev.Meta, &next.Meta, &prev.Owner, &next.Owner, func() any { return toLocationItem(next) }, checks...)
}

// DeleteLocation moves a location to the trash (trash.go): its children become roots (put back
// by a restore), its map points, events and notes stay, unreachable, until the purge.
func (s *Store) DeleteLocation(ctx context.Context, l *domain.Location) error {
	return s.trashOwner(ctx, layout.LocationKind, &l.Meta, &l.Owner, toLocationItem(l), s.linkParent(layout.LocationKind, l.CampaignID, l.ID, l.ParentID, nil, l.IsPrivate, l.IsPrivate))
}

// ResumeLocationDelete finishes a delete of location id that failed after its first step; it
// reports whether there was one.
func (s *Store) ResumeLocationDelete(ctx context.Context, cid, id int64) (bool, error) {
	return s.resumeDelete(ctx, cid, layout.LocationPrefix, id)
}

// LocationAncestry reads the chain from location id upwards (id first), at most max links
// (see ancestry).
func (s *Store) LocationAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error) {
	return s.ancestry(ctx, layout.LocationKind, cid, id, max)
}
