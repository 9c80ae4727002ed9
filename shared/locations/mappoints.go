package locations

import (
	"errors"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// A location's map points are as visible as its map: hidden with the location, and hidden from
// non-admins when the map is private (is_map_private).
func mapVisible(l *domain.Location, a domain.Access) bool {
	return a.CanSee(l.IsPrivate) && (!l.IsMapPrivate || a.IsAdmin())
}

func (h handlers) visibleMap(r *httpapi.Request) (*domain.Location, error) {
	_, l, err := h.visibleLocation(r)
	if err == nil && !mapVisible(l, r.Access) {
		err = apperr.ErrNotFound
	}
	return l, err
}

// visibleMapPoint reads a point and its location in one round trip; the point must belong to
// the location of the path.
func (h handlers) visibleMapPoint(r *httpapi.Request) (*domain.Location, *domain.MapPoint, error) {
	lid, err := r.PathID("id")
	if err != nil {
		return nil, nil, err
	}
	pid, err := r.PathID("point_id")
	if err != nil {
		return nil, nil, err
	}
	l, p, err := h.st.GetMapPointAndLocation(r.Context(), r.Access.CampaignID, lid, pid)
	if err == nil && !mapVisible(l, r.Access) {
		err = apperr.ErrNotFound
	}
	return l, p, err
}

// applyMapPoint merges the body into next and checks a new target entity: one of this campaign
// that the caller may see.
func (h handlers) applyMapPoint(r *httpapi.Request, in domain.Input, _ *domain.Location, prev, next *domain.MapPoint) error {
	if err := next.Apply(in); err != nil {
		return err
	}
	id, ok := next.NewTarget(prev)
	if !ok {
		return nil
	}
	e, err := h.st.GetEntity(r.Context(), r.Access.CampaignID, id)
	if err != nil && !errors.Is(err, apperr.ErrNotFound) {
		return err
	}
	return domain.CheckTarget(e, r.Access)
}
