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
	loc := httpapi.ReadAhead("location", "id", "")
	point := httpapi.ReadAhead("mappoint", "point_id", "id")
	api.Handle("GET", "/locations", h.list, httpapi.ReadAhead("list:location", "", ""))
	api.Handle("POST", "/locations", h.create)
	api.Handle("GET", "/locations/{id}", h.show, loc)
	api.Handle("PUT", "/locations/{id}", h.update, loc)
	api.Handle("PATCH", "/locations/{id}", h.update, loc)
	api.Handle("DELETE", "/locations/{id}", h.delete, loc)

	api.Handle("GET", "/locations/{id}/map_points", h.listMapPoints, httpapi.ReadAhead("list:mappoint", "", "id"))
	api.Handle("POST", "/locations/{id}/map_points", h.createMapPoint, loc)
	api.Handle("GET", "/locations/{id}/map_points/{point_id}", h.showMapPoint, point)
	api.Handle("PUT", "/locations/{id}/map_points/{point_id}", h.updateMapPoint, point)
	api.Handle("PATCH", "/locations/{id}/map_points/{point_id}", h.updateMapPoint, point)
	api.Handle("DELETE", "/locations/{id}/map_points/{point_id}", h.deleteMapPoint, point)
}

type handlers struct{ st *store.Store }

func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	f, err := parseFilter(r)
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
	return httpapi.Many(out, res.Total, res.Next, page), nil
}

func parseFilter(r *httpapi.Request) (domain.LocationFilter, error) {
	in := r.Query()
	rd := domain.NewReader(in)
	f := domain.LocationFilter{RecordFilter: domain.ReadRecordFilter(rd)}
	if v := rd.ID(domain.ParentField(in)); v.Present() {
		f.ParentID = &v.Value
	}
	if err := rd.Err(); err != nil {
		return f, err
	}
	t, err := r.LastSync()
	f.UpdatedAfter = t
	return f, err
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
	return httpapi.One(render(l, r.Access)), nil
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

// apply merges the body into next (a copy of prev, or a new location) and checks what needs
// the store or the caller's role: the parent, and who may make a location private.
func (h handlers) apply(r *httpapi.Request, in domain.Input, prev, next *domain.Location) error {
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
	next.Ancestry = chain
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
	if err == domain.ErrNotFound {
		// A delete that failed after its first step left the record invisible, its cascade
		// pending: a retry finishes it.
		if pid, perr := r.PathID("id"); perr == nil {
			done, rerr := h.st.ResumeLocationDelete(r.Context(), r.Access.CampaignID, pid)
			if done && rerr == nil {
				return httpapi.Deleted(pid), nil
			}
			if rerr != nil {
				err = rerr
			}
		}
	}
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Deleted(id), nil
}
