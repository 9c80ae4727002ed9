package locations

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// A location's map points are as visible as its map: hidden with the location, and hidden from
// non-admins when the map is private (is_map_private).
func mapVisible(l *domain.Location, a domain.Access) bool {
	return a.CanSee(l.IsPrivate) && (!l.IsMapPrivate || a.IsAdmin())
}

func (h handlers) visibleMap(r *httpapi.Request) (*domain.Location, error) {
	l, err := h.visibleLocation(r)
	if err != nil {
		return nil, err
	}
	if !mapVisible(l, r.Access) {
		return nil, domain.ErrNotFound
	}
	return l, nil
}

// visibleMapPoint reads a point and its location in one round trip; the point must belong to
// the location of the path.
func (h handlers) visibleMapPoint(r *httpapi.Request) (*domain.MapPoint, error) {
	lid, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	pid, err := r.PathID("point_id")
	if err != nil {
		return nil, err
	}
	l, p, err := h.st.GetMapPointAndLocation(r.Context(), r.Access.CampaignID, lid, pid)
	if err != nil {
		return nil, err
	}
	if !mapVisible(l, r.Access) {
		return nil, domain.ErrNotFound
	}
	return p, nil
}

func (h handlers) listMapPoints(r *httpapi.Request) (httpapi.Reply, error) {
	l, err := h.visibleMap(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	f, err := r.Filter(domain.FilterName | domain.FilterAuthors | domain.FilterSync)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListMapPoints(r.Context(), l.CampaignID, l.ID, f, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := make([]mapPointJSON, len(res.Items))
	for i := range res.Items {
		out[i] = renderMapPoint(&res.Items[i])
	}
	return httpapi.Many(out, res.Total, res.Next, page), nil
}

func (h handlers) showMapPoint(r *httpapi.Request) (httpapi.Reply, error) {
	p, err := h.visibleMapPoint(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(renderMapPoint(p)), nil
}

// checkTarget requires a target entity of this campaign that the caller may see; a hidden one
// is refused like a missing one.
func (h handlers) checkTarget(r *httpapi.Request, p *domain.MapPoint, prev *domain.MapPoint) error {
	if p.TargetEntityID == nil || (prev != nil && prev.TargetEntityID != nil && *prev.TargetEntityID == *p.TargetEntityID) {
		return nil
	}
	e, err := h.st.GetEntity(r.Context(), r.Access.CampaignID, *p.TargetEntityID)
	if err == domain.ErrNotFound || (err == nil && !r.Access.CanSee(e.IsPrivate)) {
		return domain.Invalid("target_entity_id", "The selected target entity id is invalid.")
	}
	return err
}

func (h handlers) createMapPoint(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	l, err := h.visibleMap(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	p := &domain.MapPoint{CampaignID: l.CampaignID, LocationID: l.ID, CreatedBy: r.Access.UserID}
	if err := p.Apply(in); err != nil {
		return httpapi.Reply{}, err
	}
	if err := h.checkTarget(r, p, nil); err != nil {
		return httpapi.Reply{}, err
	}
	if err := h.st.CreateMapPoint(r.Context(), p); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(renderMapPoint(p)), nil
}

func (h handlers) updateMapPoint(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	var next *domain.MapPoint
	err = domain.RetryConflicts(func() error {
		prev, err := h.visibleMapPoint(r)
		if err != nil {
			return err
		}
		next = prev.Clone()
		next.UpdatedBy = r.Access.UserID
		if err := next.Apply(in); err != nil {
			return err
		}
		if err := h.checkTarget(r, next, prev); err != nil {
			return err
		}
		return h.st.UpdateMapPoint(r.Context(), prev, next)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(renderMapPoint(next)), nil
}

func (h handlers) deleteMapPoint(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	var id int64
	err := domain.RetryConflicts(func() error {
		p, err := h.visibleMapPoint(r)
		if err != nil {
			return err
		}
		id = p.ID
		return h.st.DeleteMapPoint(r.Context(), p)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Deleted(id), nil
}
