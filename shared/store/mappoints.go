package store

import (
	"context"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

const mapPointPrefix = "MAPPOINT"

// Map points have one audience (whoever sees the location): their home range is their list.
func mapPointSlots(p *domain.MapPoint) []slot {
	pk := mapPointsPK(p.CampaignID, p.LocationID)
	return []slot{{pk: pk, sk: recordSK(mapPointPrefix, p.ID), home: true, counter: counterSK(mapPointPrefix), attr: classAdmin, id: p.ID}}
}

// Map points live in their location's partition, so a point can only ever be reached through
// the location in the path, and deleting the location deletes the partition.
type mapPointItem struct {
	PK             string  `dynamo:"pk"`
	SK             string  `dynamo:"sk"`
	ID             int64   `dynamo:"id"`
	CampaignID     int64   `dynamo:"campaign_id"`
	LocationID     int64   `dynamo:"location_id"`
	TargetEntityID *int64  `dynamo:"target_entity_id,omitempty"`
	Name           *string `dynamo:"name,omitempty"`
	AxisX          int64   `dynamo:"axis_x"`
	AxisY          int64   `dynamo:"axis_y"`
	Colour         string  `dynamo:"colour"`
	Size           string  `dynamo:"size"`
	Icon           string  `dynamo:"icon"`
	Shape          string  `dynamo:"shape"`
	CreatedAt      string  `dynamo:"created_at"`
	UpdatedAt      string  `dynamo:"updated_at"`
	CreatedBy      int64   `dynamo:"created_by"`
	UpdatedBy      int64   `dynamo:"updated_by"`
	Version        int64   `dynamo:"version"`
}

func mapPointsPK(cid, lid int64) string { return childPK(cid, locationPrefix, lid) }

func toMapPointItem(p *domain.MapPoint) mapPointItem {
	return mapPointItem{PK: mapPointsPK(p.CampaignID, p.LocationID), SK: recordSK(mapPointPrefix, p.ID),
		ID: p.ID, CampaignID: p.CampaignID, LocationID: p.LocationID, TargetEntityID: p.TargetEntityID, Name: p.Name,
		AxisX: p.AxisX, AxisY: p.AxisY, Colour: p.Colour, Size: p.Size, Icon: p.Icon, Shape: p.Shape,
		CreatedAt: formatTime(p.CreatedAt), UpdatedAt: formatTime(p.UpdatedAt), CreatedBy: p.CreatedBy,
		UpdatedBy: p.UpdatedBy, Version: p.Version}
}

func (it mapPointItem) mapPoint() domain.MapPoint {
	return domain.MapPoint{ID: it.ID, CampaignID: it.CampaignID, LocationID: it.LocationID,
		TargetEntityID: it.TargetEntityID, Name: it.Name, AxisX: it.AxisX, AxisY: it.AxisY, Colour: it.Colour,
		Size: it.Size, Icon: it.Icon, Shape: it.Shape, CreatedAt: parseTime(it.CreatedAt),
		UpdatedAt: parseTime(it.UpdatedAt), CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy, Version: it.Version}
}

// GetMapPoint reads one map point of one location; ErrNotFound when there is none.
func (s *Store) GetMapPoint(ctx context.Context, cid, lid, id int64) (*domain.MapPoint, error) {
	var it mapPointItem
	if err := s.getOne(ctx, itemKey{mapPointsPK(cid, lid), recordSK(mapPointPrefix, id)}, &it); err != nil {
		return nil, err
	}
	p := it.mapPoint()
	return &p, nil
}

// ListMapPoints reads one page of a location's map points, ordered by id.
func (s *Store) ListMapPoints(ctx context.Context, cid, lid int64, p domain.PageRequest) (domain.Page[domain.MapPoint], error) {
	pk := mapPointsPK(cid, lid)
	l := listSpec{ranges: []listRange{{pk, mapPointPrefix + "#", counterSK(mapPointPrefix), classAdmin}}}
	page, err := listPage[mapPointItem](ctx, s, l, p, nil)
	out := domain.Page[domain.MapPoint]{Total: page.Total, Next: page.Next, Items: make([]domain.MapPoint, len(page.Items))}
	for i, it := range page.Items {
		out.Items[i] = it.mapPoint()
	}
	return out, err
}

// checkLocation makes a write conditional on location lid existing: a location being deleted
// is gone from the first step, so no point lands in a partition being cleared.
func (s *Store) checkLocation(cid, lid int64) func(*txBuilder) {
	return func(b *txBuilder) {
		b.check(s.table.Check("pk", campaignPK(cid)).Range("sk", recordSK(locationPrefix, lid)).IfExists())
	}
}

// CreateMapPoint stores a new map point, on condition that its location still exists.
func (s *Store) CreateMapPoint(ctx context.Context, p *domain.MapPoint) error {
	ids, err := s.nextIDs(ctx, campaignPK(p.CampaignID), "mappoint")
	if err != nil {
		return err
	}
	now := s.now()
	p.ID, p.Version, p.CreatedAt, p.UpdatedAt, p.UpdatedBy = ids[0], 1, now, now, p.CreatedBy
	b := s.newTx()
	s.checkLocation(p.CampaignID, p.LocationID)(b)
	b.place(marshal(toMapPointItem(p)), nil, mapPointSlots(p), 0)
	return notFoundOnConflict(b.run(ctx))
}

// UpdateMapPoint writes next over prev if nobody wrote since prev was read and the location
// still exists.
func (s *Store) UpdateMapPoint(ctx context.Context, prev, next *domain.MapPoint) error {
	next.Version, next.UpdatedAt = prev.Version+1, s.now()
	b := s.newTx()
	s.checkLocation(next.CampaignID, next.LocationID)(b)
	b.place(marshal(toMapPointItem(next)), mapPointSlots(prev), mapPointSlots(next), prev.Version)
	return b.run(ctx)
}

// DeleteMapPoint deletes a map point and counts it out.
func (s *Store) DeleteMapPoint(ctx context.Context, p *domain.MapPoint) error {
	b := s.newTx()
	b.remove(mapPointSlots(p), p.Version)
	return b.run(ctx)
}

// GetMapPointAndLocation reads a map point and the location of the path in one BatchGetItem;
// ErrNotFound unless both exist (a point under another location is not found).
func (s *Store) GetMapPointAndLocation(ctx context.Context, cid, lid, id int64) (*domain.Location, *domain.MapPoint, error) {
	got, err := s.getItems(ctx, itemKey{campaignPK(cid), recordSK(locationPrefix, lid)}, itemKey{mapPointsPK(cid, lid), recordSK(mapPointPrefix, id)})
	if err != nil {
		return nil, nil, err
	}
	var l *domain.Location
	var p *domain.MapPoint
	for k, it := range got {
		if strings.HasPrefix(k.sk, locationPrefix+"#") {
			var li locationItem
			if err := dynamo.UnmarshalItem(it, &li); err != nil {
				return nil, nil, err
			}
			loc := li.location()
			l = &loc
		} else {
			var mi mapPointItem
			if err := dynamo.UnmarshalItem(it, &mi); err != nil {
				return nil, nil, err
			}
			mp := mi.mapPoint()
			p = &mp
		}
	}
	if l == nil || p == nil {
		return nil, nil, domain.ErrNotFound
	}
	return l, p, nil
}
