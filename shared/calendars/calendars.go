// Package calendars is the calendars family's HTTP surface: calendars under
// /api/1.0/campaigns/{campaign_id}/calendars, plus Lorekeep's advance, retreat and day view.
// Rules live in domain (calendar.go), date maths in the calendar engine, storage in store
// (calendars.go).
package calendars

import (
	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/related"
)

type kind = httpapi.Kind[timeline.Calendar, *timeline.Calendar, httpapi.None]

// Register mounts the family's routes.
func Register(api *httpapi.API, st Store) {
	h := handlers{st: st}
	cal := httpapi.ReadAhead(domain.ReadCalendar, "id", "")
	h.kind = kind{
		Visible: h.visibleCalendar,
		Apply: func(r *httpapi.Request, in domain.Input, _ httpapi.None, _, next *timeline.Calendar) error {
			if err := next.Apply(in, r.Access); err != nil {
				return err
			}
			return httpapi.ApplyImage(r, in, &next.Owner)
		},
		Create: st.CreateCalendar, Update: st.UpdateCalendar, Delete: st.DeleteCalendar,
		Render: func(r *httpapi.Request, c *timeline.Calendar) (any, error) {
			arrays, err := related.ByID(r, st, related.Calendars([]timeline.Calendar{*c}))
			if err != nil {
				return nil, err
			}
			j := render(r, c)
			j.Arrays = arrays[c.ID]
			hideMoons(r, &j)
			return httpapi.OwnerRender(r, st, "calendar", j, ownerOf)
		},
		Item: cal, Resume: st.ResumeCalendarDelete,
	}
	api.Handle("GET", "/calendars", h.list, httpapi.ReadAhead(domain.ReadCalendarList, "", ""))
	api.HandleShadowing("GET", "/calendars/presets", h.presets)
	api.HandleShadowing("POST", "/calendars/import", h.importCalendar)
	httpapi.Mount(api, "/calendars", "/calendars/{id}", h.kind)
	api.Handle("POST", "/calendars/{id}/advance", h.advance, cal)
	api.Handle("POST", "/calendars/{id}/retreat", h.retreat, cal)
	api.Handle("GET", "/calendars/{id}/days", h.days, cal)
	api.Handle("GET", "/calendars/{id}/export", h.exportCalendar, cal)
}

type handlers struct {
	st   Store
	kind kind
}

func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	if reply, ok, err := r.Deletions(h.st, domain.GoneCalendars, 0); ok {
		return reply, err
	}
	f, err := r.Filter(domain.FilterRecords)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListCalendars(r.Context(), r.Access.CampaignID, f, !r.Access.IsAdmin(), page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	arrays, err := related.ByID(r, h.st, related.Calendars(res.Items))
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.OwnerPage(r, h.st, "calendar", res, page, func(c *timeline.Calendar) calendarJSON {
		j := render(r, c)
		j.Arrays = arrays[c.ID]
		hideMoons(r, &j)
		return j
	}, ownerOf)
}

// visibleCalendar reads a calendar the caller may see; a hidden one is a 404 like a missing one.
func (h handlers) visibleCalendar(r *httpapi.Request) (httpapi.None, *timeline.Calendar, error) {
	id, err := r.PathID("id")
	if err != nil {
		return httpapi.None{}, nil, err
	}
	c, err := h.st.GetCalendar(r.Context(), r.Access.CampaignID, id)
	if err == nil && !r.Access.CanSee(c.IsPrivate) {
		err = apperr.ErrNotFound
	}
	return httpapi.None{}, c, err
}
