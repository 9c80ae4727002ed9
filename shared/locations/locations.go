// Package locations is the locations family's HTTP surface: locations and their (deprecated) map
// points under /api/1.0/campaigns/{campaign_id}/locations. Rules live in domain (location.go,
// mappoint.go), storage in locstore.
package locations

import (
	"errors"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/module"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes.
func Register(api *httpapi.API, kernel *store.Store) {
	st := locstore.New(kernel)
	h := handlers{st: st}
	module.Mount(api, st, module.Routes[domain.Location, *domain.Location, locationJSON]{
		Type: "location", Collection: "/locations", Gone: domain.GoneLocations,
		// A non-admin lists public copies, which show a parent only when it is public:
		// filtering by a parent the caller may not see matches nothing, as by a missing one.
		Filter: h.parseFilter, List: st.ListLocations, ListAhead: httpapi.ReadAhead(locstore.ReadLocationList, "", ""),
		Subjects: embeds.Locations,
		Row: func(r *httpapi.Request, ls []domain.Location) (func(*domain.Location) locationJSON, error) {
			hidden := hiddenParents(r, ls)
			return func(l *domain.Location) locationJSON { return render(r, l, r.Access, hidden) }, nil
		},
		Arrays: func(j *locationJSON) **embeds.Arrays { return &j.Arrays }, Owner: ownerOf,
		CRUD: httpapi.Resource[domain.Location, *domain.Location, httpapi.None]{
			Visible: h.visibleLocation, Apply: h.apply,
			Create: st.CreateLocation, Update: st.UpdateLocation, Delete: st.DeleteLocation,
			Item: httpapi.ReadAhead(locstore.ReadLocation, "id", ""), Resume: st.ResumeLocationDelete,
		},
	})
	httpapi.MountList(api, "/locations/{id}/map_points", httpapi.List[domain.MapPoint, *domain.Location, mapPointJSON]{
		Parent: h.visibleMap, ParentID: func(l *domain.Location) int64 { return l.ID },
		Gone: domain.GoneMapPoints, Tombstones: st, Filters: domain.FilterName | domain.FilterAuthors | domain.FilterSync,
		Read: func(r *httpapi.Request, l *domain.Location, f domain.Filter, page domain.PageRequest) (domain.Page[domain.MapPoint], error) {
			return st.ListMapPoints(r.Context(), l.CampaignID, l.ID, f, page)
		},
		Render: renderMapPoint,
		Ahead:  httpapi.ReadAhead(locstore.ReadMapPointList, "", "id"),
	})
	httpapi.Mount(api, "/locations/{id}/map_points", "/locations/{id}/map_points/{point_id}", httpapi.Resource[domain.MapPoint, *domain.MapPoint, *domain.Location]{
		Parent: h.visibleMap, Visible: h.visibleMapPoint, Apply: h.applyMapPoint,
		New: func(_ *httpapi.Request, l *domain.Location) *domain.MapPoint {
			return &domain.MapPoint{LocationID: l.ID}
		},
		Create: st.CreateMapPoint, Update: st.UpdateMapPoint, Delete: st.DeleteMapPoint,
		Item: httpapi.ReadAhead(locstore.ReadMapPoint, "point_id", "id"), Collection: httpapi.ReadAhead(locstore.ReadLocation, "id", ""),
		Render: func(_ *httpapi.Request, p *domain.MapPoint) (any, error) { return renderMapPoint(p), nil },
	})
}

type handlers struct{ st Store }

// parseFilter reads the list's filters. parent_id names the parent by its entity: one that is
// not a location the caller may see matches nothing, like a missing one (one read).
func (h handlers) parseFilter(r *httpapi.Request) (domain.Filter, error) {
	f, err := r.Filter(domain.FilterRecords | domain.FilterParent)
	if err != nil || f.ParentEntityID == nil {
		return f, err
	}
	e, err := h.st.GetEntity(r.Context(), r.Access.CampaignID, *f.ParentEntityID)
	switch {
	case errors.Is(err, apperr.ErrNotFound) || (err == nil && (e.Type != "location" || !r.Access.CanSee(e.IsPrivate))):
		f.None = true
	case err != nil:
		return f, err
	case f.ParentLocationID != nil && *f.ParentLocationID != e.ChildID:
		f.None = true
	default:
		f.ParentLocationID = &e.ChildID
	}
	return f, nil
}

// hiddenParents returns the parents of ls that the caller may not see: a location shows such
// a parent as none, as a root does, so that it reveals nothing. No read: the store says which
// parents are private (ParentPrivate, from the location's public copy); a non-admin's list
// rows are public copies, which carry no private parent at all.
func hiddenParents(r *httpapi.Request, ls []domain.Location) map[int64]bool {
	hidden := map[int64]bool{}
	for _, l := range ls {
		if l.ParentID != nil && l.ParentPrivate && !r.Access.CanSee(true) {
			hidden[*l.ParentID] = true
		}
	}
	return hidden
}

// visibleLocation reads a location the caller may see; a hidden one is a 404 like a missing one.
func (h handlers) visibleLocation(r *httpapi.Request) (httpapi.None, *domain.Location, error) {
	id, err := r.PathID("id")
	if err != nil {
		return httpapi.None{}, nil, err
	}
	l, err := h.st.GetLocation(r.Context(), r.Access.CampaignID, id)
	if err == nil && !r.Access.CanSee(l.IsPrivate) {
		err = apperr.ErrNotFound
	}
	return httpapi.None{}, l, err
}

// parentByEntity resolves parent_id, Kanka's current parent field, which names the parent's
// entity: one read.
func (h handlers) parentByEntity(r *httpapi.Request, in domain.Input) (domain.Input, error) {
	eid, err := domain.ParentEntityID(in)
	if err != nil || eid == nil {
		return in, err
	}
	e, err := h.st.GetEntity(r.Context(), r.Access.CampaignID, *eid)
	if err != nil && !errors.Is(err, apperr.ErrNotFound) {
		return nil, err
	}
	return domain.ParentByEntity(in, e, r.Access)
}

// apply merges the body into next and checks what needs the store: the parent, which must be
// visible and not make a cycle (parent_id is resolved to its location first); then the image,
// stored once every rule passed.
func (h handlers) apply(r *httpapi.Request, in domain.Input, p httpapi.None, prev, next *domain.Location) error {
	if err := h.applyFields(r, in, p, prev, next); err != nil {
		return err
	}
	return httpapi.ApplyImage(r, in, &next.Owner)
}

func (h handlers) applyFields(r *httpapi.Request, in domain.Input, _ httpapi.None, prev, next *domain.Location) error {
	in, err := h.parentByEntity(r, in)
	if err != nil {
		return err
	}
	if err := next.Apply(in, r.Access); err != nil {
		return err
	}
	if prev != nil && prev.ParentID != nil && next.ParentID == nil {
		// A caller shown no parent (a hidden one) who sends none back, as a client writing back
		// what it read does, changes nothing it could see: the parent stays.
		if hiddenParents(r, []domain.Location{*prev})[*prev.ParentID] {
			next.ParentID = prev.ParentID
		}
	}
	if next.ParentID == nil || (prev != nil && prev.ParentID != nil && *prev.ParentID == *next.ParentID) {
		return nil
	}
	depth := domain.MaxLocationDepth
	if prev == nil { // a new location has no descendants: only the parent itself matters
		depth = 1
	}
	chain, err := h.st.LocationAncestry(r.Context(), next.CampaignID, *next.ParentID, depth)
	if err != nil {
		return err
	}
	next.Ancestry = chain
	return domain.CheckParent(domain.ParentField(in), next.ID, chain, r.Access)
}
