// Package entityevents is the entity-events family's HTTP surface, under
// /api/1.0/campaigns/{campaign_id}/entities/{entity_id}/entity_events, and the ages of an
// entity (entities/{entity_id}/ages). Rules live in domain (event.go, access.go) and the
// calendar engine, storage in store (events.go).
package entityevents

import (
	"github.com/lorekeep/lorekeep/shared/calendar"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes: the spec's entity_events, and Kanka's current name for
// the same records, reminders (a body without name, answered in the reminder shape), with a
// calendar's reminders.
func Register(api *httpapi.API, st *store.Store) {
	events := handlers{st: st, era: era{read: (*domain.Event).Apply, render: func(ev *domain.Event) any { return render(ev) }}}
	reminders := handlers{st: st, era: era{read: (*domain.Event).ApplyReminder, render: func(ev *domain.Event) any { return renderReminder(ev) }}}
	mount(api, "/entities/{entity_id}/entity_events", events)
	mount(api, "/entities/{entity_id}/reminders", reminders)
	api.Handle("GET", "/calendars/{id}/reminders", reminders.onCalendar)
	api.Handle("GET", "/entities/{entity_id}/ages", events.ages)
}

func mount(api *httpapi.API, collection string, h handlers) {
	api.Handle("GET", collection, h.list)
	api.Handle("POST", collection, h.create)
	api.Handle("GET", collection+"/{id}", h.show)
	api.Handle("PUT", collection+"/{id}", h.update)
	api.Handle("PATCH", collection+"/{id}", h.update)
	api.Handle("DELETE", collection+"/{id}", h.delete)
}

// era is how one era of Kanka's API reads and answers the same events.
type era struct {
	read   func(ev *domain.Event, in domain.Input) error
	render func(ev *domain.Event) any
}

type handlers struct {
	st *store.Store
	era
}

// visibleEvent reads an event and its entity in one round trip; both must be visible.
func (h handlers) visibleEvent(r *httpapi.Request) (*domain.Entity, *domain.Event, error) {
	eid, err := r.PathID("entity_id")
	if err != nil {
		return nil, nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, nil, err
	}
	e, ev, err := h.st.GetEventAndEntity(r.Context(), r.Access.CampaignID, eid, id)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Access.SeeEntity(e); err != nil {
		return nil, nil, err
	}
	if !r.Access.CanSeeEvent(ev) {
		return nil, nil, domain.ErrNotFound
	}
	return e, ev, nil
}

func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	since, err := r.LastSync()
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListEvents(r.Context(), r.Access.CampaignID, e.ID, r.Access, domain.ChildFilter{UpdatedAfter: since}, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := make([]any, len(res.Items))
	for i := range res.Items {
		out[i] = h.render(&res.Items[i])
	}
	return httpapi.Many(out, res.Total, res.Next, page), nil
}

func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	_, ev, err := h.visibleEvent(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(h.render(ev)), nil
}

// dateFields are the fields whose change must be checked against the calendar.
var dateFields = []string{"calendar_id", "day", "month", "year", "recurring_periodicity", "recurring_until"}

// apply merges the body into next and checks what needs the store or the caller's role: who
// may make an event private, and the date on its calendar (the entity's own when the entity is
// a calendar and none is named).
func (h handlers) apply(r *httpapi.Request, in domain.Input, e *domain.Entity, prev, next *domain.Event) error {
	if err := h.read(next, in); err != nil {
		return err
	}
	if next.IsPrivate && (prev == nil || !prev.IsPrivate) {
		if err := r.Access.CanSetPrivate(true); err != nil {
			return err
		}
	}
	if next.CalendarID == 0 && e.Type == "calendar" {
		next.CalendarID = e.ChildID
	}
	if next.CalendarID == 0 {
		return domain.Invalid("calendar_id", "The calendar id field is required.")
	}
	if prev != nil && !sentAny(in, dateFields) {
		return nil
	}
	cal, err := h.st.GetCalendar(r.Context(), r.Access.CampaignID, next.CalendarID)
	if err == domain.ErrNotFound || (err == nil && !r.Access.CanSee(cal.IsPrivate)) {
		return domain.Invalid("calendar_id", "The selected calendar id is invalid.")
	}
	if err != nil {
		return err
	}
	engine, err := cal.Engine()
	if err != nil {
		return err
	}
	return next.CheckOnCalendar(engine)
}

func sentAny(in domain.Input, names []string) bool {
	for _, n := range names {
		if _, ok := in[n]; ok {
			return true
		}
	}
	return false
}

func (h handlers) create(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	ev := &domain.Event{CampaignID: r.Access.CampaignID, EntityID: e.ID, CreatedBy: r.Access.UserID}
	if err := h.apply(r, in, e, nil, ev); err != nil {
		return httpapi.Reply{}, err
	}
	if err := h.st.CreateEvent(r.Context(), ev); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(h.render(ev)), nil
}

func (h handlers) update(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	var next domain.Event
	err = domain.RetryConflicts(func() error {
		e, prev, err := h.visibleEvent(r)
		if err != nil {
			return err
		}
		next = *prev
		next.UpdatedBy = r.Access.UserID
		if err := h.apply(r, in, e, prev, &next); err != nil {
			return err
		}
		return h.st.UpdateEvent(r.Context(), prev, &next)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(h.render(&next)), nil
}

func (h handlers) delete(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	var id int64
	err := domain.RetryConflicts(func() error {
		_, ev, err := h.visibleEvent(r)
		if err != nil {
			return err
		}
		id = ev.ID
		return h.st.DeleteEvent(r.Context(), ev)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Deleted(id), nil
}

// ageJSON is an entity's age on one calendar.
type ageJSON struct {
	CalendarID      int64   `json:"calendar_id"`
	Birth           *string `json:"birth"`
	Death           *string `json:"death"`
	Age             *int64  `json:"age"`
	YearsSinceDeath *int64  `json:"years_since_death"`
}

// ages answers, for each visible calendar on which the entity has a visible birth or death
// event, its age (at death, or else on the calendar's current date) and the years since death.
func (h handlers) ages(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	evs, err := h.st.LifeEvents(r.Context(), r.Access.CampaignID, e.ID, r.Access)
	if err != nil {
		return httpapi.Reply{}, err
	}
	type life struct{ birth, death *calendar.Date }
	lives := map[int64]*life{}
	var order []int64
	for i := range evs { // ids ascending: the first birth and death of each calendar count
		ev := &evs[i]
		l := lives[ev.CalendarID]
		if l == nil {
			l = &life{}
			lives[ev.CalendarID] = l
			order = append(order, ev.CalendarID)
		}
		d := ev.Date
		switch {
		case ev.StartsLife() && l.birth == nil:
			l.birth = &d
		case ev.EndsLife() && l.death == nil:
			l.death = &d
		}
	}
	cals, err := h.st.GetCalendars(r.Context(), r.Access.CampaignID, order)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := []ageJSON{}
	for _, cid := range order {
		cal := cals[cid]
		if cal == nil || !r.Access.CanSee(cal.IsPrivate) {
			continue
		}
		engine, err := cal.Engine()
		if err != nil {
			return httpapi.Reply{}, err
		}
		l := lives[cid]
		a := ageJSON{CalendarID: cid, Birth: dateString(l.birth), Death: dateString(l.death)}
		if l.birth != nil {
			age := engine.Age(*l.birth, l.death, cal.Date)
			a.Age = &age
		}
		if l.death != nil {
			since := engine.Age(*l.death, nil, cal.Date)
			a.YearsSinceDeath = &since
		}
		out = append(out, a)
	}
	return httpapi.One(out), nil
}

func dateString(d *calendar.Date) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}
