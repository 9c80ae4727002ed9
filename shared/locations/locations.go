// Package locations is the locations family's HTTP surface: locations and their (deprecated) map
// points under /api/1.0/campaigns/{campaign_id}/locations. Rules live in domain (location.go,
// mappoint.go), storage in store (locations.go, mappoints.go).
package locations

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes.
func Register(api *httpapi.API, st *store.Store) {
	h := handlers{st: st}
	api.Handle("GET", "/locations", h.list)
	httpapi.Mount(api, "/locations", "/locations/{id}", httpapi.Kind[domain.Location, *domain.Location, httpapi.None]{
		Visible: h.visibleLocation, Apply: h.apply,
		Create: st.CreateLocation, Update: st.UpdateLocation, Delete: st.DeleteLocation,
		Render: func(r *httpapi.Request, l *domain.Location) (any, error) {
			return httpapi.OwnerRender(r, st, render(l, r.Access), ownerOf)
		},
	})
	api.Handle("GET", "/locations/{id}/map_points", h.listMapPoints)
	httpapi.Mount(api, "/locations/{id}/map_points", "/locations/{id}/map_points/{point_id}", httpapi.Kind[domain.MapPoint, *domain.MapPoint, *domain.Location]{
		Parent: h.visibleMap, Visible: h.visibleMapPoint, Apply: h.applyMapPoint,
		New: func(_ *httpapi.Request, l *domain.Location) *domain.MapPoint {
			return &domain.MapPoint{LocationID: l.ID}
		},
		Create: st.CreateMapPoint, Update: st.UpdateMapPoint, Delete: st.DeleteMapPoint,
		Render: func(_ *httpapi.Request, p *domain.MapPoint) (any, error) { return renderMapPoint(p), nil },
	})
}

type handlers struct{ st *store.Store }

func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	var parent *int64
	rf, err := r.RecordFilter(func(rd *domain.Reader, in domain.Input) {
		if v := rd.ID(domain.ParentField(in)); v.Present() {
			parent = &v.Value
		}
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListLocations(r.Context(), r.Access.CampaignID, domain.LocationFilter{RecordFilter: rf, ParentID: parent}, !r.Access.IsAdmin(), page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.OwnerPage(r, h.st, res, page, func(l *domain.Location) locationJSON { return render(l, r.Access) }, ownerOf)
}

// visibleLocation reads a location the caller may see; a hidden one is a 404 like a missing one.
func (h handlers) visibleLocation(r *httpapi.Request) (httpapi.None, *domain.Location, error) {
	id, err := r.PathID("id")
	if err != nil {
		return httpapi.None{}, nil, err
	}
	l, err := h.st.GetLocation(r.Context(), r.Access.CampaignID, id)
	if err == nil && !r.Access.CanSee(l.IsPrivate) {
		err = domain.ErrNotFound
	}
	return httpapi.None{}, l, err
}

// apply merges the body into next and checks what needs the store: the parent, which must be
// visible and not make a cycle.
func (h handlers) apply(r *httpapi.Request, in domain.Input, _ httpapi.None, prev, next *domain.Location) error {
	if err := next.Apply(in, r.Access); err != nil {
		return err
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
	return domain.CheckParent(domain.ParentField(in), next.ID, chain, r.Access)
}
