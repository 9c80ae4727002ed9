package store

import (
	"context"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Map points have one audience (whoever sees the location): their home range is their list.
func mapPointSlots(p *domain.MapPoint) []layout.Slot {
	pk := layout.MapPointsPK(p.CampaignID, p.LocationID)
	return []layout.Slot{{PK: pk, SK: layout.RecordSK(layout.MapPointPrefix, p.ID), Home: true, Counter: layout.CounterSK(layout.MapPointPrefix), Attr: layout.ClassAdmin, Id: p.ID}}
}

// Map points live in their location's partition, so a point can only ever be reached through
// the location in the path, and deleting the location deletes the partition.
type mapPointItem struct {
	layout.MetaAttrs
	LocationID     int64   `dynamo:"location_id"`
	TargetEntityID *int64  `dynamo:"target_entity_id,omitempty"`
	Name           *string `dynamo:"name,omitempty"`
	NameLC         string  `dynamo:"name_lc,omitempty"`
	AxisX          int64   `dynamo:"axis_x"`
	AxisY          int64   `dynamo:"axis_y"`
	Colour         string  `dynamo:"colour"`
	Size           string  `dynamo:"size"`
	Icon           string  `dynamo:"icon"`
	Shape          string  `dynamo:"shape"`
}

func toMapPointItem(p *domain.MapPoint) mapPointItem {
	it := mapPointItem{MetaAttrs: layout.ToMetaAttrs(layout.MapPointsPK(p.CampaignID, p.LocationID), layout.RecordSK(layout.MapPointPrefix, p.ID), p.Meta),
		LocationID: p.LocationID, TargetEntityID: p.TargetEntityID, Name: p.Name,
		AxisX: p.AxisX, AxisY: p.AxisY, Colour: p.Colour, Size: p.Size, Icon: p.Icon, Shape: p.Shape}
	if p.Name != nil {
		it.NameLC = strings.ToLower(*p.Name)
	}
	return it
}

func (it mapPointItem) mapPoint() domain.MapPoint {
	return domain.MapPoint{Meta: it.Meta(), LocationID: it.LocationID, TargetEntityID: it.TargetEntityID, Name: it.Name,
		AxisX: it.AxisX, AxisY: it.AxisY, Colour: it.Colour, Size: it.Size, Icon: it.Icon, Shape: it.Shape}
}

// GetMapPoint reads one map point of one location; ErrNotFound when there is none.
func (s *Store) GetMapPoint(ctx context.Context, cid, lid, id int64) (*domain.MapPoint, error) {
	return getRecord(ctx, s, layout.MapPointsPK(cid, lid), layout.RecordSK(layout.MapPointPrefix, id), mapPointItem.mapPoint)
}

// ListMapPoints reads one page of a location's map points, ordered by id.
func (s *Store) ListMapPoints(ctx context.Context, cid, lid int64, f domain.Filter, p domain.PageRequest) (domain.Page[domain.MapPoint], error) {
	pk := layout.MapPointsPK(cid, lid)
	l := listSpec{ranges: []layout.ListRange{{PK: pk, Prefix: layout.MapPointPrefix + "#", Counter: layout.CounterSK(layout.MapPointPrefix), Attr: layout.ClassAdmin}}}
	l.filter(f)
	return listPage(ctx, s, l, p, mapPointItem.mapPoint)
}

// CreateMapPoint stores a new map point, on condition that its location still exists.
func (s *Store) CreateMapPoint(ctx context.Context, p *domain.MapPoint) error {
	return s.createChild(ctx, &p.Meta, "mappoint", func() any { return toMapPointItem(p) }, func() []layout.Slot { return mapPointSlots(p) },
		s.exists(layout.CampaignPK(p.CampaignID), layout.RecordSK(layout.LocationPrefix, p.LocationID), apperr.ErrNotFound),
		synced(nil, func() *layout.SyncRef { return mapPointRef(p) }))
}

// UpdateMapPoint writes next over prev if nobody wrote since prev was read and the location
// still exists.
func (s *Store) UpdateMapPoint(ctx context.Context, prev, next *domain.MapPoint) error {
	return s.updateChild(ctx, &prev.Meta, &next.Meta, func() any { return toMapPointItem(next) },
		func() []layout.Slot { return mapPointSlots(prev) }, func() []layout.Slot { return mapPointSlots(next) },
		s.exists(layout.CampaignPK(next.CampaignID), layout.RecordSK(layout.LocationPrefix, next.LocationID), apperr.ErrNotFound),
		synced(func() *layout.SyncRef { return mapPointRef(prev) }, func() *layout.SyncRef { return mapPointRef(next) }))
}

// DeleteMapPoint deletes a map point and counts it out.
func (s *Store) DeleteMapPoint(ctx context.Context, p *domain.MapPoint) error {
	return s.deleteChild(ctx, &p.Meta, mapPointSlots(p), synced(func() *layout.SyncRef { return mapPointRef(p) }, nil))
}

// GetMapPointAndLocation reads a map point and the location of the path in one BatchGetItem;
// ErrNotFound unless both exist (a point under another location is not found).
func (s *Store) GetMapPointAndLocation(ctx context.Context, cid, lid, id int64) (*domain.Location, *domain.MapPoint, error) {
	var li locationItem
	var mi mapPointItem
	err := s.getPair(ctx, layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.LocationPrefix, lid)},
		[]layout.ItemKey{{PK: layout.MapPointsPK(cid, lid), SK: layout.RecordSK(layout.MapPointPrefix, id)}}, &li, &mi)
	if err != nil {
		return nil, nil, err
	}
	l, p := li.location(), mi.mapPoint()
	return &l, &p, nil
}
