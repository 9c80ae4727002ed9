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
	"github.com/lorekeep/lorekeep/shared/ownerkind"
	"github.com/lorekeep/lorekeep/shared/related"
)

type kind = httpapi.Kind[timeline.Calendar, *timeline.Calendar, httpapi.None]

// Register mounts the family's routes.
func Register(api *httpapi.API, st Store) {
	h := handlers{st: st}
	cal := httpapi.ReadAhead(domain.ReadCalendar, "id", "")
	api.HandleShadowing("GET", "/calendars/presets", h.presets)
	api.HandleShadowing("POST", "/calendars/import", h.importCalendar)
	h.kind = ownerkind.Mount(api, st, ownerkind.Kind[timeline.Calendar, *timeline.Calendar, calendarJSON]{
		Type: "calendar", Collection: "/calendars", Gone: domain.GoneCalendars,
		List: st.ListCalendars, ListAhead: httpapi.ReadAhead(domain.ReadCalendarList, "", ""),
		Subjects: related.Calendars,
		Row: func(r *httpapi.Request, _ []timeline.Calendar) (func(*timeline.Calendar) calendarJSON, error) {
			return func(c *timeline.Calendar) calendarJSON {
				j := render(c)
				hideMoons(r, &j)
				return j
			}, nil
		},
		Arrays: func(j *calendarJSON) **related.Arrays { return &j.Arrays }, Owner: ownerOf,
		CRUD: kind{
			Visible: h.visibleCalendar,
			Apply: func(r *httpapi.Request, in domain.Input, _ httpapi.None, _, next *timeline.Calendar) error {
				return next.Apply(in, r.Access)
			},
			Create: st.CreateCalendar, Update: st.UpdateCalendar, Delete: st.DeleteCalendar,
			Item: cal, Resume: st.ResumeCalendarDelete,
		},
	})
	api.Handle("POST", "/calendars/{id}/advance", h.advance, cal)
	api.Handle("POST", "/calendars/{id}/retreat", h.retreat, cal)
	api.Handle("GET", "/calendars/{id}/days", h.days, cal)
	api.Handle("GET", "/calendars/{id}/export", h.exportCalendar, cal)
}

type handlers struct {
	st   Store
	kind kind
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
