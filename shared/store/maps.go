package store

import (
	"context"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Maps are an owner kind nested like locations (kinds.go, nesting.go): home MAP#id, public copy
// PUB#MAP#id (no map_id when the parent map is private, no location_id when the location was
// private when the map was written), entity of type map, child links CHILD#id in
// CAMPAIGN#c#MAP#parent. Zooms and the centre are fixed-point integers (domain.Map).

func toMapItem(m *domain.Map) layout.MapItem {
	it := layout.MapItem{MetaAttrs: layout.ToMetaAttrs(layout.CampaignPK(m.CampaignID), layout.RecordSK(layout.MapPrefix, m.ID), m.Meta),
		OwnerAttrs: toOwnerAttrs(m.Owner), ParentID: m.ParentID, LocationID: m.LocationID, Grid: m.Grid, IsReal: m.IsReal,
		MinZoom: m.MinZoom, MaxZoom: m.MaxZoom, InitialZoom: m.InitialZoom, CenterX: m.CenterX, CenterY: m.CenterY,
		Config: m.Config, ParentHidden: m.ParentID != nil && m.ParentPrivate,
		LocationHidden: m.LocationID != nil && m.LocationPrivate}
	if c := m.Centre; c != nil {
		id := c.ID
		it.CenterMarker, it.CenterVis, it.CenterBy, it.CenterPrivate = &id, string(c.Visibility), c.CreatedBy, c.Private
	}
	return it
}

// GetMap reads one map and its public copy (read ahead on map routes: one round trip);
// ErrNotFound when there is none. ParentPrivate comes from what the public copy leaves out, so
// it is known for public maps, the only ones a non-admin sees.
func (s *Store) GetMap(ctx context.Context, cid, id int64) (*domain.Map, error) {
	keys := mapKeys(cid, id)
	items, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	return mapOf(items, keys[0], keys[1])
}

// mapOf is the map of home and pub among items; ErrNotFound without its home.
func mapOf(items map[layout.ItemKey]dynamo.Item, home, pub layout.ItemKey) (*domain.Map, error) {
	raw, ok := items[home]
	if !ok {
		return nil, apperr.ErrNotFound
	}
	var it layout.MapItem
	if err := dynamo.UnmarshalItem(raw, &it); err != nil {
		return nil, err
	}
	m := it.Record()
	if c, ok := items[pub]; ok {
		m.ParentPrivate = m.ParentID != nil && c[layout.MapParentAttr] == nil
	}
	return &m, nil
}

// MapAncestry reads the chain from map id upwards (id first), at most max links (ancestry).
func (s *Store) MapAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error) {
	return s.ancestry(ctx, layout.MapKind, cid, id, max)
}

// ListMaps reads one page of the campaign's maps, ordered by id, as ListLocations.
func (s *Store) ListMaps(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Map], error) {
	return listNested(ctx, s, layout.MapKind, cid, f, hidePrivate, p, layout.MapItem.Record)
}

// locationCheck holds a map's location as read (it exists with the privacy that placed the
// public copy); a location gone or changed meanwhile is a 422 naming location_id.
func (s *Store) locationCheck(m *domain.Map) func(*txBuilder) {
	if m.LocationID == nil {
		return nil
	}
	return func(b *txBuilder) {
		b.needIf(layout.CampaignPK(m.CampaignID), layout.RecordSK(layout.LocationPrefix, *m.LocationID), invalidTarget("location_id"),
			"attribute_exists(pk) AND 'is_private' = ?", m.LocationPrivate)
	}
}

// CreateMap stores a new map, its entity and its link in its parent map in one transaction,
// as CreateLocation, on condition that its location still exists with the privacy read.
func (s *Store) CreateMap(ctx context.Context, m *domain.Map) error {
	return s.createNested(ctx, layout.MapKind, &m.Meta, &m.Owner, m.ParentID, &m.Ancestry, &m.ParentPrivate, func() any { return toMapItem(m) },
		s.locationCheck(m), func(b *txBuilder) { b.linkLocation(m.CampaignID, m.ID, nil, m.LocationID) })
}

// UpdateMap writes next over prev, as UpdateLocation, with its location's check.
func (s *Store) UpdateMap(ctx context.Context, prev, next *domain.Map) error {
	checks, parentPrivate, placed, err := s.nestedUpdate(ctx, layout.MapKind, next.CampaignID, next.ID, prev.ParentID, next.ParentID, next.Ancestry, prev.IsPrivate, next.IsPrivate)
	if err != nil {
		return err
	}
	if placed {
		next.ParentPrivate = parentPrivate
	}
	if c := s.locationCheck(next); c != nil {
		checks = append(checks, c)
	}
	checks = append(checks, func(b *txBuilder) { b.linkLocation(next.CampaignID, next.ID, prev.LocationID, next.LocationID) })
	if c := next.Centre; c != nil && c.Version != 0 {
		// A centre named anew is held as read: a marker of this map with that placement.
		home := markerSlots(&domain.Marker{Meta: domain.Meta{CampaignID: next.CampaignID, ID: c.ID, CreatedBy: c.CreatedBy},
			MapID: next.ID, Visibility: c.Visibility, EntityPrivate: c.Private})[0]
		checks = append(checks, func(b *txBuilder) {
			b.needIf(home.PK, home.SK, invalidTarget("center_marker_id"), ifVersion, c.Version)
		})
	}
	return s.updateOwner(ctx, layout.MapKind, &prev.Meta, &next.Meta, &prev.Owner, &next.Owner, func() any { return toMapItem(next) }, checks...)
}

// DeleteMap moves a map to the trash (trash.go), as DeleteLocation: its child maps become
// roots (put back by a restore); everything in its partition stays, unreachable (every child
// route reads the map first), until the purge deletes the partition.
func (s *Store) DeleteMap(ctx context.Context, m *domain.Map) error {
	return s.trashOwner(ctx, layout.MapKind, &m.Meta, &m.Owner, toMapItem(m), s.linkParent(layout.MapKind, m.CampaignID, m.ID, m.ParentID, nil, m.IsPrivate, m.IsPrivate),
		func(b *txBuilder) { b.linkLocation(m.CampaignID, m.ID, m.LocationID, nil) })
}

// ResumeMapDelete finishes a delete of map id that failed after its first step.
func (s *Store) ResumeMapDelete(ctx context.Context, cid, id int64) (bool, error) {
	return s.resumeDelete(ctx, cid, layout.MapPrefix, id)
}
