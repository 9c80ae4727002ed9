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
	api.Handle("POST", "/locations", h.create)
	api.Handle("GET", "/locations/{id}", h.show)
	api.Handle("PUT", "/locations/{id}", h.update)
	api.Handle("PATCH", "/locations/{id}", h.update)
	api.Handle("DELETE", "/locations/{id}", h.delete)

	api.Handle("GET", "/locations/{id}/map_points", h.listMapPoints)
	api.Handle("POST", "/locations/{id}/map_points", h.createMapPoint)
	api.Handle("GET", "/locations/{id}/map_points/{point_id}", h.showMapPoint)
	api.Handle("PUT", "/locations/{id}/map_points/{point_id}", h.updateMapPoint)
	api.Handle("PATCH", "/locations/{id}/map_points/{point_id}", h.updateMapPoint)
	api.Handle("DELETE", "/locations/{id}/map_points/{point_id}", h.deleteMapPoint)
}

type handlers struct{ st *store.Store }

func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	f, err := h.parseFilter(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListLocations(r.Context(), r.Access.CampaignID, f, !r.Access.IsAdmin(), page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := make([]locationJSON, len(res.Items))
	for i := range res.Items {
		out[i] = render(&res.Items[i], r.Access)
	}
	if err := withRelated(r, h.st, res.Items, out); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Many(out, res.Total, res.Next, page), nil
}

func (h handlers) parseFilter(r *httpapi.Request) (domain.Filter, error) {
	f, err := r.Filter(domain.FilterRecords | domain.FilterParent)
	if err != nil || f.ParentEntityID == nil {
		return f, err
	}
	// parent_id names the parent by its entity: one that is not a location the caller may see
	// matches nothing, like a missing one.
	e, err := h.st.GetEntity(r.Context(), r.Access.CampaignID, *f.ParentEntityID)
	switch {
	case err == domain.ErrNotFound || (err == nil && (e.Type != "location" || !r.Access.CanSee(e.IsPrivate))):
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

// visibleLocation reads a location the caller may see; a hidden one is a 404 like a missing one.
func (h handlers) visibleLocation(r *httpapi.Request) (*domain.Location, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	l, err := h.st.GetLocation(r.Context(), r.Access.CampaignID, id)
	if err != nil {
		return nil, err
	}
	if !r.Access.CanSee(l.IsPrivate) {
		return nil, domain.ErrNotFound
	}
	return l, nil
}

func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	l, err := h.visibleLocation(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := []locationJSON{render(l, r.Access)}
	if err := withRelated(r, h.st, []domain.Location{*l}, out); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(out[0]), nil
}

func (h handlers) create(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	l := &domain.Location{CampaignID: r.Access.CampaignID, CreatedBy: r.Access.UserID}
	if err := h.apply(r, in, nil, l); err != nil {
		return httpapi.Reply{}, err
	}
	if err := h.st.CreateLocation(r.Context(), l); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(render(l, r.Access)), nil
}

// parentByEntity resolves parent_id, Kanka's current parent field, which names the parent's
// entity: one read.
func (h handlers) parentByEntity(r *httpapi.Request, in domain.Input) (domain.Input, error) {
	eid, err := domain.ParentEntityID(in)
	if err != nil || eid == nil {
		return in, err
	}
	e, err := h.st.GetEntity(r.Context(), r.Access.CampaignID, *eid)
	if err != nil && err != domain.ErrNotFound {
		return nil, err
	}
	return domain.ParentByEntity(in, e, r.Access)
}

// apply merges the body into next (a copy of prev, or a new location) and checks what needs
// the store or the caller's role: the parent, and who may make a location private.
func (h handlers) apply(r *httpapi.Request, in domain.Input, prev, next *domain.Location) error {
	in, err := h.parentByEntity(r, in)
	if err != nil {
		return err
	}
	if err := next.Apply(in, r.Access); err != nil {
		return err
	}
	if next.IsPrivate && (prev == nil || !prev.IsPrivate) {
		if err := r.Access.CanSetPrivate(true); err != nil {
			return err
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
	return domain.CheckParent(domain.ParentField(in), next.ID, chain, r.Access)
}

func (h handlers) update(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	var next *domain.Location
	err = domain.RetryConflicts(func() error {
		prev, err := h.visibleLocation(r)
		if err != nil {
			return err
		}
		next = prev.Clone()
		next.UpdatedBy = r.Access.UserID
		if err := h.apply(r, in, prev, next); err != nil {
			return err
		}
		return h.st.UpdateLocation(r.Context(), prev, next)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(render(next, r.Access)), nil
}

func (h handlers) delete(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	var id int64
	err := domain.RetryConflicts(func() error {
		l, err := h.visibleLocation(r)
		if err != nil {
			return err
		}
		id = l.ID
		return h.st.DeleteLocation(r.Context(), l)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Deleted(id), nil
}
