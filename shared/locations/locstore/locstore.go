// Package locstore is the locations family's storage: the location and map point items and
// their kinds on the kernel (package store). Locations are a nested owner kind: home
// LOCATION#id, public copy PUB#LOCATION#id (no parent_location_id when the parent is private),
// entity of type location, child links CHILD#id in CAMPAIGN#c#LOCATION#parent; a delete moves
// the location to the trash. Map points live in their location's partition (one audience:
// whoever sees the location), so a point can only ever be reached through the location in the
// path, and deleting the location deletes the partition.
package locstore

import (
	"context"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store"
)

type locationItem struct {
	store.MetaAttrs
	store.OwnerAttrs
	ParentID     *int64 `dynamo:"parent_location_id,omitempty"`
	MapURL       string `dynamo:"map_url,omitempty"`
	IsMapPrivate bool   `dynamo:"is_map_private"`
	// ParentHidden: the parent is private, so the public copy leaves it out.
	ParentHidden bool `dynamo:"parent_hidden,omitempty"`
}

func toLocationItem(l *domain.Location) locationItem {
	meta, owner := store.OwnerHome(store.LocationKind, l.Meta, l.Owner)
	return locationItem{MetaAttrs: meta, OwnerAttrs: owner, ParentID: l.ParentID, MapURL: l.MapURL, IsMapPrivate: l.IsMapPrivate,
		ParentHidden: l.ParentID != nil && l.ParentPrivate}
}

func (it locationItem) location() domain.Location {
	return domain.Location{Meta: it.Meta(), Owner: it.Owner(), ParentID: it.ParentID, MapURL: it.MapURL, IsMapPrivate: it.IsMapPrivate}
}

type reflectedLocation locationItem

// DecodeItem decodes a location item by hand (a locations page decodes one per row).
func (it *locationItem) DecodeItem(item dynamo.Item) error {
	return store.DecodeBy(item, func(a store.Attrs) bool {
		it.MetaAttrs.Read(&a)
		it.OwnerAttrs.Read(&a)
		it.ParentID, it.MapURL = a.OptInt("parent_location_id"), a.Str("map_url")
		it.IsMapPrivate, it.ParentHidden = a.Boolean("is_map_private"), a.Boolean("parent_hidden")
		return a.Bad
	}, (*reflectedLocation)(it))
}

var locations = store.NestedKind[domain.Location, locationItem]{
	Kind: store.LocationKind, Item: toLocationItem, Record: locationItem.location, Trashed: true,
	Of: func(l *domain.Location) store.Nested {
		return store.Nested{Meta: &l.Meta, Owner: &l.Owner, ParentID: l.ParentID, Ancestry: &l.Ancestry, ParentPrivate: &l.ParentPrivate}
	},
}

type mapPointItem struct {
	store.MetaAttrs
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
	it := mapPointItem{MetaAttrs: store.ChildHome(store.MapPointKind, p.LocationID, p.Meta),
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

var mapPoints = store.ChildKind[domain.MapPoint, mapPointItem]{
	Kind: store.MapPointKind, Sequence: "mappoint", Item: toMapPointItem, Record: mapPointItem.mapPoint,
	Of: func(p *domain.MapPoint) store.Child { return store.Child{Meta: &p.Meta, ParentID: p.LocationID} },
}

// Locations is the family's storage over the kernel, whose reads and writes the family also
// uses (entities, related arrays).
type Locations struct{ *store.Store }

// New wraps the kernel.
func New(st *store.Store) *Locations { return &Locations{st} }

// GetLocation reads one location of the campaign and its public copy (both read ahead on
// location routes: one round trip, no counter); ErrNotFound when there is none.
func (s *Locations) GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error) {
	return locations.Get(ctx, s.Store, cid, id)
}

// ListLocations reads one page of the campaign's locations, ordered by id: an admin's range
// holds every location, everyone else's only the public ones.
func (s *Locations) ListLocations(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Location], error) {
	return locations.List(ctx, s.Store, cid, f, hidePrivate, p)
}

// CreateLocation stores a new location, its entity and its link in its parent in one
// transaction, on condition that its parent still exists with the privacy read.
func (s *Locations) CreateLocation(ctx context.Context, l *domain.Location) error {
	return locations.Create(ctx, s.Store, l)
}

// UpdateLocation writes next over prev, on condition that nobody wrote since prev was read and,
// when the parent changes, that the new parent chain is still the one read.
func (s *Locations) UpdateLocation(ctx context.Context, prev, next *domain.Location) error {
	return locations.Update(ctx, s.Store, prev, next)
}

// DeleteLocation moves a location to the trash: its children become roots (put back by a
// restore), its map points, events and notes stay, unreachable, until the purge.
func (s *Locations) DeleteLocation(ctx context.Context, l *domain.Location) error {
	return locations.Delete(ctx, s.Store, l)
}

// ResumeLocationDelete finishes a delete of location id that failed after its first step; it
// reports whether there was one.
func (s *Locations) ResumeLocationDelete(ctx context.Context, cid, id int64) (bool, error) {
	return locations.ResumeDelete(ctx, s.Store, cid, id)
}

// LocationAncestry reads the chain from location id upwards (id first), at most max links.
func (s *Locations) LocationAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error) {
	return locations.Ancestry(ctx, s.Store, cid, id, max)
}

// GetMapPoint reads one map point of one location; ErrNotFound when there is none.
func (s *Locations) GetMapPoint(ctx context.Context, cid, lid, id int64) (*domain.MapPoint, error) {
	return mapPoints.Get(ctx, s.Store, cid, lid, id)
}

// ListMapPoints reads one page of a location's map points, ordered by id.
func (s *Locations) ListMapPoints(ctx context.Context, cid, lid int64, f domain.Filter, p domain.PageRequest) (domain.Page[domain.MapPoint], error) {
	return mapPoints.List(ctx, s.Store, cid, lid, f, p)
}

// CreateMapPoint stores a new map point, on condition that its location still exists.
func (s *Locations) CreateMapPoint(ctx context.Context, p *domain.MapPoint) error {
	return mapPoints.Create(ctx, s.Store, p)
}

// UpdateMapPoint writes next over prev if nobody wrote since prev was read and the location
// still exists.
func (s *Locations) UpdateMapPoint(ctx context.Context, prev, next *domain.MapPoint) error {
	return mapPoints.Update(ctx, s.Store, prev, next)
}

// DeleteMapPoint deletes a map point and counts it out.
func (s *Locations) DeleteMapPoint(ctx context.Context, p *domain.MapPoint) error {
	return mapPoints.Delete(ctx, s.Store, p)
}

// GetMapPointAndLocation reads a map point and the location of the path in one BatchGetItem;
// ErrNotFound unless both exist (a point under another location is not found).
func (s *Locations) GetMapPointAndLocation(ctx context.Context, cid, lid, id int64) (*domain.Location, *domain.MapPoint, error) {
	var li locationItem
	p, err := mapPoints.GetWithParent(ctx, s.Store, cid, lid, id, &li)
	if err != nil {
		return nil, nil, err
	}
	l := li.location()
	return &l, p, nil
}

// The reads ahead of the family's routes.
var (
	ReadLocation     = store.RecordRead(store.LocationKind) // and its public copy, which says whether its parent is public
	ReadLocationList = store.ListRead(store.LocationKind)
	ReadMapPoint     = store.ChildRead(store.MapPointKind) // and its location
	ReadMapPointList = store.ChildListRead(store.MapPointKind)
)
