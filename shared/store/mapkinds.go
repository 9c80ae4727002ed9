package store

import (
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Maps and markers are nested owner and child kinds whose items the kernel's mechanisms
// rewrite: a location's privacy change re-places the maps that show it (locmaps.go), an
// entity's privacy change, trash and restore its markers (markerlinks.go), a marker's write
// its map's centre, and a map's purge queues its layers' pictures (sweep.go). Their item
// types and placement are therefore the kernel's; the maps family writes them through these.

// MapKind and MarkerKind are the maps' and their markers' rows.
var (
	MapKind    = layout.MapKind
	MarkerKind = layout.MustKind(layout.MarkerPrefix)
)

// MapItem and MarkerItem are a map's and a marker's items; PackItem a map's layers or groups.
type (
	MapItem    = layout.MapItem
	MarkerItem = layout.MarkerItem
	PackItem   = layout.PackItem
)

// MapItemOf is map m's item.
func MapItemOf(m *domain.Map) MapItem { return toMapItem(m) }

// MarkerItemOf is marker m's item.
func MarkerItemOf(m *domain.Marker) MarkerItem { return toMarkerItem(m) }

// The sort keys of a map's packs in its partition.
const (
	GroupsSK = layout.GroupsSK
	LayersSK = layout.LayersSK
)

// MapPackKey is the key of map mid's pack sk (GroupsSK, LayersSK).
func MapPackKey(cid, mid int64, sk string) Key { return Key{PK: layout.MapPK(cid, mid), SK: sk} }

// DecodePack reads a pack item (nil: none yet, an empty pack).
func DecodePack[T any](raw dynamo.Item) (*domain.MapPack[T], error) { return layout.DecodePack[T](raw) }

// LayerImages are the stored pictures the layers ls hold.
func LayerImages(ls []domain.MapLayer) map[string]bool { return layout.LayerImages(ls) }

// MapKeys are a map's home and public copy, as a read of the map reads them.
func MapKeys(cid, mid int64) []Key { return mapKeys(cid, mid) }

// MapOf is the map read at home and pub among items; ErrNotFound without its home.
func MapOf(items map[Key]dynamo.Item, home, pub Key) (*domain.Map, error) {
	return mapOf(items, home, pub)
}

// MapLocationLink is the step of map m's write that moves its location link from prev to next
// (nil: none); m's id is read when the transaction is built (a new map's is given then).
func MapLocationLink(m *domain.Map, prev, next *int64) TxStep {
	return func(b *txBuilder) { b.linkLocation(m.CampaignID, m.ID, prev, next) }
}

// MarkerLinks is the step of a marker write that moves its entity pointer from prev's to
// next's (either nil).
func MarkerLinks(prev, next *domain.Marker) TxStep {
	return func(b *txBuilder) { b.linkMarker(prev, next) }
}

// MarkerCentre is the step of a write of marker prev (read with its map) to next (nil: deleted)
// that keeps the map's centre.
func MarkerCentre(prev, next *domain.Marker) TxStep {
	return func(b *txBuilder) { b.centre(prev, next) }
}

// NeedIf makes the write conditional on item k existing under cond (with args); gone is the
// answer when it does not.
func (t Tx) NeedIf(k Key, gone error, cond string, args ...any) {
	t.b.needIf(k.PK, k.SK, gone, cond, args...)
}

// Images is the step of a record's write that changes its stored picture from prev to next
// (either ""): next claimed, prev queued for the sweeper.
func (t Tx) Images(cid int64, prev, next string) { t.b.images(cid, prev, next) }

// InvalidTarget is the answer for a record the body names (field) that is gone or changed its
// privacy under a write.
func InvalidTarget(field string) error { return invalidTarget(field) }

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
func packKeys(cid, mid int64) []layout.ItemKey {
	return []layout.ItemKey{{PK: layout.MapPK(cid, mid), SK: layout.GroupsSK}, {PK: layout.MapPK(cid, mid), SK: layout.LayersSK}}
}

// packImages adds to the layers' partition's end (a map's purge) the queueing of its layers'
// stored pictures, from the pack as read (raw nil: none).
func packImages(b *txBuilder, cid int64, raw dynamo.Item) error {
	p, err := layout.DecodePack[domain.MapLayer](raw)
	if err != nil {
		return err
	}
	for path := range layout.LayerImages(p.Items) {
		b.images(cid, path, "")
	}
	return nil
}

// locationCheck holds a map's location as read (it exists with the privacy that placed the
// public copy); a location gone or changed meanwhile is a 422 naming location_id.
func locationCheck(m *domain.Map) func(*txBuilder) {
	if m.LocationID == nil {
		return nil
	}
	return func(b *txBuilder) {
		b.needIf(layout.CampaignPK(m.CampaignID), layout.RecordSK(layout.LocationPrefix, *m.LocationID), invalidTarget("location_id"),
			"attribute_exists(pk) AND 'is_private' = ?", m.LocationPrivate)
	}
}

// MapLocationHeld is the step of a map write that holds its location as read (none without
// a location).
func MapLocationHeld(m *domain.Map) TxStep { return locationCheck(m) }
