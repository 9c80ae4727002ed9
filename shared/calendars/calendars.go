// Package calendars is the calendars family's HTTP surface: calendars under
// /api/1.0/campaigns/{campaign_id}/calendars, plus Lorekeep's advance, retreat and day view.
// Rules live in domain (calendar.go), date maths in the calendar engine, storage in store
// (calendars.go).
package calendars

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes.
func Register(api *httpapi.API, st *store.Store) {
	h := handlers{st: st}
	api.Handle("GET", "/calendars", h.list)
	api.Handle("POST", "/calendars", h.create)
	api.Handle("GET", "/calendars/{id}", h.show)
	api.Handle("PUT", "/calendars/{id}", h.update)
	api.Handle("PATCH", "/calendars/{id}", h.update)
	api.Handle("DELETE", "/calendars/{id}", h.delete)

	api.Handle("POST", "/calendars/{id}/advance", h.advance)
	api.Handle("POST", "/calendars/{id}/retreat", h.retreat)
	api.Handle("GET", "/calendars/{id}/days", h.days)
}

type handlers struct{ st *store.Store }

func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	f, err := parseFilter(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListCalendars(r.Context(), r.Access.CampaignID, f, !r.Access.IsAdmin(), page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := make([]calendarJSON, len(res.Items))
	for i := range res.Items {
		out[i] = render(&res.Items[i])
	}
	if err := withRelated(r, h.st, res.Items, out); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Many(out, res.Total, res.Next, page), nil
}

func parseFilter(r *httpapi.Request) (domain.Filter, error) {
	return r.Filter(domain.FilterRecords)
}

// visibleCalendar reads a calendar the caller may see; a hidden one is a 404 like a missing one.
func (h handlers) visibleCalendar(r *httpapi.Request) (*domain.Calendar, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	c, err := h.st.GetCalendar(r.Context(), r.Access.CampaignID, id)
	if err != nil {
		return nil, err
	}
	if !r.Access.CanSee(c.IsPrivate) {
		return nil, domain.ErrNotFound
	}
	return c, nil
}

func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	c, err := h.visibleCalendar(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := []calendarJSON{render(c)}
	if err := withRelated(r, h.st, []domain.Calendar{*c}, out); err != nil {
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
	c := &domain.Calendar{CampaignID: r.Access.CampaignID, CreatedBy: r.Access.UserID}
	if err := apply(r, in, nil, c); err != nil {
		return httpapi.Reply{}, err
	}
	if err := h.st.CreateCalendar(r.Context(), c); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(render(c)), nil
}

// apply merges the body into next (a copy of prev, or a new calendar) and checks who may make
// a calendar private.
func apply(r *httpapi.Request, in domain.Input, prev, next *domain.Calendar) error {
	if err := next.Apply(in, r.Access); err != nil {
		return err
	}
	if next.IsPrivate && (prev == nil || !prev.IsPrivate) {
		return r.Access.CanSetPrivate(true)
	}
	return nil
}

func (h handlers) update(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	return h.write(r, func(prev, next *domain.Calendar) error { return apply(r, in, prev, next) })
}

// write reads the visible calendar, changes a copy with change and writes it on condition of
// the version read; a lost race re-reads and re-applies the change.
func (h handlers) write(r *httpapi.Request, change func(prev, next *domain.Calendar) error) (httpapi.Reply, error) {
	var next *domain.Calendar
	err := domain.RetryConflicts(func() error {
		prev, err := h.visibleCalendar(r)
		if err != nil {
			return err
		}
		next = prev.Clone()
		next.UpdatedBy = r.Access.UserID
		if err := change(prev, next); err != nil {
			return err
		}
		return h.st.UpdateCalendar(r.Context(), prev, next)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(render(next)), nil
}

func (h handlers) delete(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	var id int64
	err := domain.RetryConflicts(func() error {
		c, err := h.visibleCalendar(r)
		if err != nil {
			return err
		}
		id = c.ID
		return h.st.DeleteCalendar(r.Context(), c)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Deleted(id), nil
}
