package store

import (
	"context"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Markers live in their map's partition CAMPAIGN#c#MAP#mid, placed by their visibility as notes
// are (layout.ChildSlots) and, when their entity is private, for admins only (is_private on the item:
// the placement, answered false as Kanka does). Every marker route reads the map with the
// access, so a trashed or hidden map hides them all; the map's purge deletes the partition.

func toMarkerItem(m *domain.Marker) layout.MarkerItem {
	return layout.MarkerItem{MetaAttrs: layout.ToMetaAttrs(layout.MapPK(m.CampaignID, m.MapID), layout.RecordSK(layout.MarkerPrefix, m.ID), m.Meta),
		MapID: m.MapID, Name: m.Name, NameLC: strings.ToLower(m.Name), EntityID: m.EntityID, GroupID: m.GroupID, IsPrivate: m.EntityPrivate,
		Latitude: m.Latitude, Longitude: m.Longitude, ShapeID: m.ShapeID, Icon: m.Icon, CustomShape: m.CustomShape,
		PolygonStyle: m.PolygonStyle, Colour: m.Colour, FontColour: m.FontColour, Opacity: m.Opacity, SizeID: m.SizeID,
		CircleRadius: m.CircleRadius, PinSize: m.PinSize, CustomIcon: m.CustomIcon, Entry: m.Entry,
		IsDraggable: m.IsDraggable, IsPopupless: m.IsPopupless, Visibility: string(m.Visibility)}
}

func markerSlots(m *domain.Marker) []layout.Slot {
	return layout.ChildSlots(layout.MarkerPrefix, layout.MapPK(m.CampaignID, m.MapID), m.ID, m.CreatedBy, m.Visibility, m.EntityPrivate)
}

func markerRef(m *domain.Marker) *layout.SyncRef {
	return &layout.SyncRef{Kind: layout.MarkerPrefix, Ptr: layout.SyncPointer{PK: layout.MapPK(m.CampaignID, m.MapID), ID: m.ID, IsPrivate: m.EntityPrivate,
		Visibility: string(m.Visibility), CreatedBy: m.CreatedBy}, Updated: m.UpdatedAt}
}

// mapKeys are a map's home and public copy (what GetMap reads).
func mapKeys(cid, mid int64) []layout.ItemKey {
	return []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.MapPrefix, mid)}, {PK: layout.CampaignPK(cid), SK: layout.PublicCopy + layout.RecordSK(layout.MapPrefix, mid)}}
}

// GetMapAndMarker reads a map and one of its markers in one round trip (read ahead on the
// marker routes); ErrNotFound unless both exist.
func (s *Store) GetMapAndMarker(ctx context.Context, cid, mid, id int64) (*domain.Map, *domain.Marker, error) {
	keys := mapKeys(cid, mid)
	for _, sk := range childHomeSKs(layout.MarkerPrefix, id) {
		keys = append(keys, layout.ItemKey{PK: layout.MapPK(cid, mid), SK: sk})
	}
	items, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, nil, err
	}
	m, err := mapOf(items, keys[0], keys[1])
	if err != nil {
		return nil, nil, err
	}
	for _, k := range keys[2:] {
		if raw, ok := items[k]; ok {
			var it layout.MarkerItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return nil, nil, err
			}
			mk := it.Marker()
			mk.OnMap = domain.MarkerMap{Version: m.Version, Private: m.IsPrivate, Centre: m.Centre != nil && m.Centre.ID == mk.ID}
			return m, &mk, nil
		}
	}
	return nil, nil, apperr.ErrNotFound
}

// ListMarkers reads one page of a map's markers that reader a may see: its audience range and
// its own range (notes' placement).
func (s *Store) ListMarkers(ctx context.Context, cid, mid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Marker], error) {
	l := listSpec{ranges: childRanges(layout.MarkerPrefix, layout.MapPK(cid, mid), a)}
	l.filter(f)
	return listPage(ctx, s, l, p, layout.MarkerItem.Marker)
}

// markerChecks hold what a marker write depends on: its map (ErrNotFound when gone; for an
// existing marker, the map's centre: centre) and its entity with the privacy read, which placed
// it (422 entity_id when gone or changed).
func (s *Store) markerChecks(prev, m *domain.Marker) []func(*txBuilder) {
	out := []func(*txBuilder){s.exists(layout.CampaignPK(m.CampaignID), layout.RecordSK(layout.MapPrefix, m.MapID), apperr.ErrNotFound)}
	if prev != nil {
		out[0] = func(b *txBuilder) { b.centre(prev, m) }
	}
	if m.EntityID != nil {
		eid, private := *m.EntityID, m.EntityPrivate
		out = append(out, func(b *txBuilder) { b.needEntity(m.CampaignID, eid, private, invalidTarget("entity_id")) })
	}
	return out
}

// CreateMarker stores a new marker in one transaction, on condition that its map and entity
// still exist.
func (s *Store) CreateMarker(ctx context.Context, m *domain.Marker) error {
	checks := append(s.markerChecks(nil, m), synced(nil, func() *layout.SyncRef { return markerRef(m) }),
		func(b *txBuilder) { b.linkMarker(nil, m) })
	return s.createChild(ctx, &m.Meta, "map_marker", func() any { return toMarkerItem(m) }, func() []layout.Slot { return markerSlots(m) }, checks...)
}

// UpdateMarker writes next over prev if nobody wrote since prev was read, its copies re-placed
// by its visibility and its entity's privacy.
func (s *Store) UpdateMarker(ctx context.Context, prev, next *domain.Marker) error {
	checks := append(s.markerChecks(prev, next), synced(func() *layout.SyncRef { return markerRef(prev) }, func() *layout.SyncRef { return markerRef(next) }),
		func(b *txBuilder) { b.linkMarker(prev, next) })
	return s.updateChild(ctx, &prev.Meta, &next.Meta, func() any { return toMarkerItem(next) },
		func() []layout.Slot { return markerSlots(prev) }, func() []layout.Slot { return markerSlots(next) }, checks...)
}

// DeleteMarker deletes a marker (its copies and counts, a tombstone left) if nobody wrote since
// it was read.
func (s *Store) DeleteMarker(ctx context.Context, m *domain.Marker) error {
	return s.deleteChild(ctx, &m.Meta, markerSlots(m), synced(func() *layout.SyncRef { return markerRef(m) }, nil),
		func(b *txBuilder) { b.centre(m, nil); b.linkMarker(m, nil) })
}

// centre adds to b what a write of marker prev (read with its map: prev.OnMap) to next (nil:
// deleted) does to the map's centre. A map centred on it gets next's placement, or no centre,
// on condition of the map's version read (its public copy, when it has one, on existing); the
// map's version moves, its updated_at does not (maps.md Q7). Any other map is checked not to
// be centred on it, so that a centre set meanwhile makes this write re-read (a conflict).
func (b *txBuilder) centre(prev, next *domain.Marker) {
	pk, sk := layout.CampaignPK(prev.CampaignID), layout.RecordSK(layout.MapPrefix, prev.MapID)
	if !prev.OnMap.Centre {
		b.check(b.s.table.Check("pk", pk).Range("sk", sk).
			If("attribute_exists(pk) AND (attribute_not_exists(center_marker_id) OR center_marker_id <> ?)", prev.ID))
		return
	}
	if next != nil && next.Visibility == prev.Visibility && next.EntityPrivate == prev.EntityPrivate && next.CreatedBy == prev.CreatedBy {
		b.check(b.s.table.Check("pk", pk).Range("sk", sk).If("center_marker_id = ?", prev.ID))
		return
	}
	keys := []string{sk}
	if !prev.OnMap.Private {
		keys = append(keys, layout.PublicCopy+sk)
	}
	for i, k := range keys {
		u := b.s.table.Update("pk", pk).Range("sk", k).Set("version", prev.OnMap.Version+1)
		if next == nil {
			u = u.Remove("center_marker_id", "center_visibility", "center_by", "center_private")
		} else {
			u = u.Set("center_visibility", string(next.Visibility)).Set("center_by", next.CreatedBy).Set("center_private", next.EntityPrivate)
		}
		if i == 0 {
			u = u.If("'version' = ? AND center_marker_id = ?", prev.OnMap.Version, prev.ID)
		} else {
			u = u.If("attribute_exists(pk)")
		}
		b.update(u)
	}
}
