package store

import (
	"context"
	"errors"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

const (
	mapPointPrefix    = "MAPPOINT"
	mapPointCounterSK = "COUNT#MAPPOINT"
)

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
	NameLC         string  `dynamo:"name_lc,omitempty"`
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
	it := mapPointItem{PK: mapPointsPK(p.CampaignID, p.LocationID), SK: recordSK(mapPointPrefix, p.ID),
		ID: p.ID, CampaignID: p.CampaignID, LocationID: p.LocationID, TargetEntityID: p.TargetEntityID, Name: p.Name,
		AxisX: p.AxisX, AxisY: p.AxisY, Colour: p.Colour, Size: p.Size, Icon: p.Icon, Shape: p.Shape,
		CreatedAt: formatTime(p.CreatedAt), UpdatedAt: formatTime(p.UpdatedAt), CreatedBy: p.CreatedBy,
		UpdatedBy: p.UpdatedBy, Version: p.Version}
	if p.Name != nil {
		it.NameLC = strings.ToLower(*p.Name)
	}
	return it
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
	err := s.table.Get("pk", mapPointsPK(cid, lid)).Range("sk", dynamo.Equal, recordSK(mapPointPrefix, id)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, domain.ErrNotFound
	}
	if err != nil {
		return nil, wrap(err)
	}
	p := it.mapPoint()
	return &p, nil
}

// ListMapPoints reads one page of a location's map points, ordered by id.
func (s *Store) ListMapPoints(ctx context.Context, cid, lid int64, f domain.Filter, p domain.PageRequest) (domain.Page[domain.MapPoint], error) {
	l := listSpec{pk: mapPointsPK(cid, lid), prefix: mapPointPrefix + "#", counterSK: mapPointCounterSK}
	l.filter(f)
	page, err := listPage[mapPointItem](ctx, s, l, p)
	out := domain.Page[domain.MapPoint]{Total: page.Total, Next: page.Next, Items: make([]domain.MapPoint, len(page.Items))}
	for i, it := range page.Items {
		out.Items[i] = it.mapPoint()
	}
	return out, err
}

// CreateMapPoint stores a new map point. The transaction also requires the location to still
// exist, so a point is never left behind by a concurrent delete.
func (s *Store) CreateMapPoint(ctx context.Context, p *domain.MapPoint) error {
	ids, err := s.nextIDs(ctx, campaignPK(p.CampaignID), "mappoint")
	if err != nil {
		return err
	}
	now := s.now()
	p.ID, p.Version, p.CreatedAt, p.UpdatedAt, p.UpdatedBy = ids[0], 1, now, now, p.CreatedBy
	err = s.db.WriteTx().
		Check(s.table.Check("pk", campaignPK(p.CampaignID)).Range("sk", recordSK(locationPrefix, p.LocationID)).IfExists()).
		Put(s.table.Put(toMapPointItem(p)).If("attribute_not_exists(pk)")).
		Update(s.counterUpdate(mapPointsPK(p.CampaignID, p.LocationID), mapPointCounterSK, 1, 0)).
		Run(ctx)
	if wrap(err) == domain.ErrConflict {
		return domain.ErrNotFound
	}
	return wrap(err)
}

// UpdateMapPoint writes next over prev if nobody wrote since prev was read.
func (s *Store) UpdateMapPoint(ctx context.Context, prev, next *domain.MapPoint) error {
	next.Version, next.UpdatedAt = prev.Version+1, s.now()
	return wrap(s.table.Put(toMapPointItem(next)).If("'version' = ?", prev.Version).Run(ctx))
}

// DeleteMapPoint deletes a map point and counts it out.
func (s *Store) DeleteMapPoint(ctx context.Context, p *domain.MapPoint) error {
	err := s.db.WriteTx().
		Delete(s.table.Delete("pk", mapPointsPK(p.CampaignID, p.LocationID)).Range("sk", recordSK(mapPointPrefix, p.ID)).If("'version' = ?", p.Version)).
		Update(s.counterUpdate(mapPointsPK(p.CampaignID, p.LocationID), mapPointCounterSK, -1, 0)).
		Run(ctx)
	return wrap(err)
}

// GetMapPointAndLocation reads a map point and the location of the path in one BatchGetItem;
// ErrNotFound unless both exist (a point under another location is not found).
func (s *Store) GetMapPointAndLocation(ctx context.Context, cid, lid, id int64) (*domain.Location, *domain.MapPoint, error) {
	var items []dynamo.Item
	err := s.table.Batch("pk", "sk").Get(
		dynamo.Keys{campaignPK(cid), recordSK(locationPrefix, lid)},
		dynamo.Keys{mapPointsPK(cid, lid), recordSK(mapPointPrefix, id)},
	).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, nil, wrap(err)
	}
	var l *domain.Location
	var p *domain.MapPoint
	for _, it := range items {
		var sk string
		_ = dynamo.Unmarshal(it["sk"], &sk)
		if strings.HasPrefix(sk, locationPrefix+"#") {
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
