// Package mapstore is the maps family's storage: maps, their markers and their layers and
// groups on the kernel (package store).
package mapstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Maps are an owner kind nested like locations: home MAP#id, public copy
// PUB#MAP#id (no map_id when the parent map is private, no location_id when the location was
// private when the map was written), entity of type map, child links CHILD#id in
// CAMPAIGN#c#MAP#parent. Markers live in their map's partition CAMPAIGN#c#MAP#mid, placed by
// their visibility as notes are and, when their entity is private, for admins only. A map's
// layers and groups are one pack item each in its partition (LAYERS, GROUPS), its entries and
// recent deletions as JSON, written whole on condition of its version. The items are the
// kernel's (store.MapItem, MarkerItem, PackItem): its location, entity and centre links
// rewrite them.

var maps = store.NestedKind[domain.Map, store.MapItem]{
	Kind: store.MapKind, Item: store.MapItemOf, Record: store.MapItem.Record, Trashed: true,
	Of: func(m *domain.Map) store.Nested {
		return store.Nested{Meta: &m.Meta, Owner: &m.Owner, ParentID: m.ParentID, Ancestry: &m.Ancestry, ParentPrivate: &m.ParentPrivate}
	},
}

var markers = store.VisibleChildKind[domain.Marker, store.MarkerItem]{
	Kind: store.MarkerKind, Sequence: "map_marker", Item: store.MarkerItemOf, Record: store.MarkerItem.Marker,
	Of: func(m *domain.Marker) store.VisibleChild {
		return store.VisibleChild{Meta: &m.Meta, ParentID: m.MapID, Visibility: m.Visibility, IsPrivate: m.EntityPrivate}
	},
	// A rewritten marker holds its map's centre as read (and so the map).
	Updated: func(prev, next *domain.Marker) store.TxStep { return store.MarkerCentre(prev, next) },
}

// Maps is the family's storage over the kernel, and the locations family's reads of a map's
// location.
type Maps struct {
	*store.Store
	locations *locstore.Locations
}

// New wraps the kernel.
func New(st *store.Store) *Maps { return &Maps{Store: st, locations: locstore.New(st)} }

// GetLocation reads a map's location (locstore.Locations.GetLocation).
func (s *Maps) GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error) {
	return s.locations.GetLocation(ctx, cid, id)
}

// GetMap reads one map and its public copy (read ahead on map routes: one round trip);
// ErrNotFound when there is none. ParentPrivate comes from what the public copy leaves out, so
// it is known for public maps, the only ones a non-admin sees.
func (s *Maps) GetMap(ctx context.Context, cid, id int64) (*domain.Map, error) {
	return maps.Get(ctx, s.Store, cid, id)
}

// MapAncestry reads the chain from map id upwards (id first), at most max links.
func (s *Maps) MapAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error) {
	return maps.Ancestry(ctx, s.Store, cid, id, max)
}

// ListMaps reads one page of the campaign's maps, ordered by id, as ListLocations.
func (s *Maps) ListMaps(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Map], error) {
	return maps.List(ctx, s.Store, cid, f, hidePrivate, p)
}

// CreateMap stores a new map, its entity and its link in its parent map in one transaction,
// as CreateLocation, on condition that its location still exists with the privacy read.
func (s *Maps) CreateMap(ctx context.Context, m *domain.Map) error {
	return maps.Create(ctx, s.Store, m, store.MapLocationHeld(m), store.MapLocationLink(m, nil, m.LocationID))
}

// UpdateMap writes next over prev, as UpdateLocation, with its location's check; a centre
// named anew is held as read: a marker of this map with that placement.
func (s *Maps) UpdateMap(ctx context.Context, prev, next *domain.Map) error {
	steps := []store.TxStep{store.MapLocationHeld(next), store.MapLocationLink(next, prev.LocationID, next.LocationID)}
	if c := next.Centre; c != nil && c.Version != 0 {
		centre := &domain.Marker{Meta: domain.Meta{CampaignID: next.CampaignID, ID: c.ID, CreatedBy: c.CreatedBy},
			MapID: next.ID, Visibility: c.Visibility, EntityPrivate: c.Private}
		home := markers.Home(centre)
		steps = append(steps, store.Step(func(t store.Tx) {
			t.NeedIf(home, store.InvalidTarget("center_marker_id"), "'version' = ?", c.Version)
		}))
	}
	return maps.Update(ctx, s.Store, prev, next, steps...)
}

// DeleteMap moves a map to the trash, as DeleteLocation: its child maps become roots (put back
// by a restore); everything in its partition stays, unreachable (every child route reads the
// map first), until the purge deletes the partition.
func (s *Maps) DeleteMap(ctx context.Context, m *domain.Map) error {
	return maps.Delete(ctx, s.Store, m, store.MapLocationLink(m, m.LocationID, nil))
}

// ResumeMapDelete finishes a delete of map id that failed after its first step.
func (s *Maps) ResumeMapDelete(ctx context.Context, cid, id int64) (bool, error) {
	return maps.ResumeDelete(ctx, s.Store, cid, id)
}

// GetMapAndMarker reads a map and one of its markers in one round trip (read ahead on the
// marker routes); ErrNotFound unless both exist.
func (s *Maps) GetMapAndMarker(ctx context.Context, cid, mid, id int64) (*domain.Map, *domain.Marker, error) {
	keys := store.MapKeys(cid, mid)
	homes := markers.Homes(cid, mid, id)
	items, err := s.GetItems(ctx, append(keys, homes...)...)
	if err != nil {
		return nil, nil, err
	}
	m, err := store.MapOf(items, keys[0], keys[1])
	if err != nil {
		return nil, nil, err
	}
	for _, k := range homes {
		if raw, ok := items[k]; ok {
			var it store.MarkerItem
			if err := store.UnmarshalItem(raw, &it); err != nil {
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
func (s *Maps) ListMarkers(ctx context.Context, cid, mid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Marker], error) {
	return markers.List(ctx, s.Store, cid, mid, a, f, p)
}

// markerEntity holds a marker's entity with the privacy read, which placed it (422 entity_id
// when gone or changed).
func markerEntity(m *domain.Marker) store.TxStep {
	if m.EntityID == nil {
		return nil
	}
	eid, private := *m.EntityID, m.EntityPrivate
	return store.Step(func(t store.Tx) { t.NeedEntity(m.CampaignID, eid, private, store.InvalidTarget("entity_id")) })
}

// CreateMarker stores a new marker in one transaction, on condition that its map and entity
// still exist.
func (s *Maps) CreateMarker(ctx context.Context, m *domain.Marker) error {
	return markers.Create(ctx, s.Store, m, markerEntity(m), store.MarkerLinks(nil, m))
}

// UpdateMarker writes next over prev if nobody wrote since prev was read, its copies re-placed
// by its visibility and its entity's privacy.
func (s *Maps) UpdateMarker(ctx context.Context, prev, next *domain.Marker) error {
	return markers.Update(ctx, s.Store, prev, next, markerEntity(next), store.MarkerLinks(prev, next))
}

// DeleteMarker deletes a marker (its copies and counts, a tombstone left) if nobody wrote since
// it was read.
func (s *Maps) DeleteMarker(ctx context.Context, m *domain.Marker) error {
	return markers.Delete(ctx, s.Store, m, store.MarkerCentre(m, nil), store.MarkerLinks(m, nil))
}

func packKeys(cid, mid int64) []store.Key {
	return []store.Key{store.MapPackKey(cid, mid, store.GroupsSK), store.MapPackKey(cid, mid, store.LayersSK)}
}

// GetMapPacks reads a map's groups and layers (read ahead with the map on its routes).
func (s *Maps) GetMapPacks(ctx context.Context, cid, mid int64) (*domain.MapPack[domain.MapGroup], *domain.MapPack[domain.MapLayer], error) {
	keys := packKeys(cid, mid)
	items, err := s.GetItems(ctx, keys...)
	if err != nil {
		return nil, nil, err
	}
	g, err := store.DecodePack[domain.MapGroup](items[keys[0]])
	if err != nil {
		return nil, nil, err
	}
	l, err := store.DecodePack[domain.MapLayer](items[keys[1]])
	return g, l, err
}

// GetPacksOf reads the packs of a page of maps in one BatchGetItem (a page holds at most 50
// maps: 100 keys).
func (s *Maps) GetPacksOf(ctx context.Context, cid int64, mids []int64) (map[int64]domain.MapPacks, error) {
	out := make(map[int64]domain.MapPacks, len(mids))
	var keys []store.Key
	for _, mid := range mids {
		keys = append(keys, packKeys(cid, mid)...)
	}
	items := map[store.Key]dynamo.Item{}
	for len(keys) > 0 {
		n := min(len(keys), 100)
		got, err := s.GetItems(ctx, keys[:n]...)
		if err != nil {
			return nil, err
		}
		for k, v := range got {
			items[k] = v
		}
		keys = keys[n:]
	}
	for _, mid := range mids {
		k := packKeys(cid, mid)
		g, err := store.DecodePack[domain.MapGroup](items[k[0]])
		if err != nil {
			return nil, err
		}
		l, err := store.DecodePack[domain.MapLayer](items[k[1]])
		if err != nil {
			return nil, err
		}
		out[mid] = domain.MapPacks{Groups: g, Layers: l}
	}
	return out, nil
}

// WriteMapGroups changes a map's groups with change (given the pack as read consistently) and
// writes them on condition of the version read and of the map's existence (ErrNotFound when it
// is gone); a concurrent write re-reads and re-applies change.
func (s *Maps) WriteMapGroups(ctx context.Context, cid, mid int64, change func(*domain.MapPack[domain.MapGroup], time.Time) error) error {
	return writePack(ctx, s, cid, mid, store.GroupsSK, change, nil)
}

// WriteMapLayers is WriteMapGroups for layers, whose stored pictures change in the same
// transaction: a new one claimed, a replaced or deleted layer's queued for the sweeper.
func (s *Maps) WriteMapLayers(ctx context.Context, cid, mid int64, change func(*domain.MapPack[domain.MapLayer], time.Time) error) error {
	return writePack(ctx, s, cid, mid, store.LayersSK, change, store.LayerImages)
}

// writePack writes one pack; images, when set, names the entries' stored pictures, whose
// change (claimed, dropped) goes into the pack's transaction.
func writePack[T any](ctx context.Context, s *Maps, cid, mid int64, sk string, change func(*domain.MapPack[T], time.Time) error, images func([]T) map[string]bool) error {
	k := store.MapPackKey(cid, mid, sk)
	return apperr.RetryConflicts(ctx, func() error {
		raw, err := s.GetItems(ctx, k)
		if err != nil {
			return err
		}
		p, err := store.DecodePack[T](raw[k])
		if err != nil {
			return err
		}
		prev := p.Version
		var before map[string]bool
		if images != nil {
			before = images(p.Items)
		}
		if err := change(p, s.Now().UTC().Truncate(time.Microsecond)); err != nil {
			return err
		}
		items, _ := json.Marshal(p.Items)
		it := store.PackItem{PK: k.PK, SK: k.SK, Version: prev + 1, Seq: p.Seq, Items: string(items)}
		if len(p.Gone) > domain.MaxPackGone {
			p.Gone = p.Gone[len(p.Gone)-domain.MaxPackGone:]
		}
		if len(p.Gone) > 0 {
			gone, _ := json.Marshal(p.Gone)
			it.Gone = string(gone)
		}
		return s.Write(ctx, store.Step(func(t store.Tx) {
			t.Need(store.RecordKey(cid, store.MapKind.Prefix, mid), apperr.ErrNotFound)
			if prev == 0 {
				t.PutIf(it, "attribute_not_exists(pk)")
			} else {
				t.PutIf(it, "'v' = ?", prev)
			}
			if images == nil {
				return
			}
			after := images(p.Items) // a write changes one entry: at most one path claimed and one dropped
			for path := range after {
				if !before[path] {
					t.Images(cid, "", path)
				}
			}
			for path := range before {
				if !after[path] {
					t.Images(cid, path, "")
				}
			}
		}))
	})
}
