// Package calendars is the calendars family's HTTP surface: calendars under
// /api/1.0/campaigns/{campaign_id}/calendars, plus Lorekeep's advance, retreat and day view.
// Rules live in domain/timeline, date maths in the calendar engine (calengine), storage in
// calstore, the wire shape in calwire. The Fantasy-Calendar import and export are
// package transfer's, a Lambda of their own, so this function does not link them.
package calendars

import (
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/module"
	"github.com/lorekeep/lorekeep/shared/store"
)

type kind = httpapi.Resource[timeline.Calendar, *timeline.Calendar, httpapi.None]

// Register mounts the family's routes.
func Register(api *httpapi.API, kernel *store.Store) {
	st := calstore.New(kernel)
	h := handlers{st: st}
	cal := httpapi.ReadAhead(calstore.ReadCalendar, "id", "")
	api.HandleShadowing("GET", "/calendars/presets", h.presets)
	h.kind = module.Mount(api, st, module.Routes[timeline.Calendar, *timeline.Calendar, calendarJSON]{
		Type: "calendar", Collection: "/calendars", Gone: domain.GoneCalendars,
		List: st.ListCalendars, ListAhead: httpapi.ReadAhead(calstore.ReadCalendarList, "", ""),
		Subjects: embeds.Calendars,
		Row: func(r *httpapi.Request, _ []timeline.Calendar) (func(*timeline.Calendar) calendarJSON, error) {
			return func(c *timeline.Calendar) calendarJSON {
				j := calendarJSON{Calendar: calwire.Render(r, c)}
				calwire.HideMoons(r, &j.Calendar)
				return j
			}, nil
		},
		Arrays: func(j *calendarJSON) **embeds.Arrays { return &j.Arrays }, Owner: ownerOf,
		CRUD: kind{
			Visible: h.visibleCalendar,
			Apply: func(r *httpapi.Request, in domain.Input, _ httpapi.None, _, next *timeline.Calendar) error {
				calwire.SinceTheBeginning(in)
				if err := next.Apply(in, r.Access); err != nil {
					return err
				}
				return httpapi.ApplyImage(r, in, &next.Owner)
			},
			Create: st.CreateCalendar, Update: st.UpdateCalendar, Delete: st.DeleteCalendar,
			Item: cal, Resume: st.ResumeCalendarDelete,
		},
	})
	api.Handle("POST", "/calendars/{id}/advance", h.advance, cal)
	api.Handle("POST", "/calendars/{id}/retreat", h.retreat, cal)
	api.Handle("GET", "/calendars/{id}/clock", h.worldClock, cal)
}

// calendarJSON is a calendar as the family answers it: the wire shape, with ?related=1's arrays.
type calendarJSON struct {
	calwire.Calendar
	*embeds.Arrays
}

func ownerOf(j *calendarJSON) *httpapi.OwnerJSON { return &j.OwnerJSON }

type handlers struct {
	st   Store
	kind kind
}

// visibleCalendar reads a calendar the caller may see; a hidden one is a 404 like a missing one.
func (h handlers) visibleCalendar(r *httpapi.Request) (httpapi.None, *timeline.Calendar, error) {
	c, err := calwire.Visible(r, h.st)
	return httpapi.None{}, c, err
}
