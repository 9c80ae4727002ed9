// Package entityevents is the entity-events family's HTTP surface, under
// /api/1.0/campaigns/{campaign_id}/entities/{entity_id}/entity_events, and the ages of an
// entity (entities/{entity_id}/ages). Rules live in domain (event.go, access.go) and the
// calendar engine, storage in eventstore.
package entityevents

import (
	"errors"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventwire"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes: the spec's entity_events, and Kanka's current name for
// the same records, reminders (a body without name, answered in the reminder shape), with a
// calendar's reminders.
func Register(api *httpapi.API, kernel *store.Store) {
	st := eventstore.New(kernel)
	h := handlers{st: st}
	h.mount(api, "/entities/{entity_id}/entity_events", era{(*timeline.Event).Apply, func(ev *timeline.Event) any { return eventwire.Render(ev) }})
	h.mount(api, "/entities/{entity_id}/reminders", era{(*timeline.Event).ApplyReminder, func(ev *timeline.Event) any { return eventwire.RenderReminder(ev) }})
	httpapi.MountList(api, "/calendars/{id}/reminders", h.remindersOn())
	api.Handle("GET", "/entities/{entity_id}/ages", h.ages, httpapi.ReadAhead(store.ReadEntity, "entity_id", ""))
}

// era is how one era of Kanka's API reads and answers the same events.
type era struct {
	read   func(ev *timeline.Event, in domain.Input, e *domain.Entity, a domain.Access) (check bool, err error)
	render func(ev *timeline.Event) any
}

// mount declares an era's routes on collection: its list and the one CRUD path.
func (h handlers) mount(api *httpapi.API, collection string, era era) {
	httpapi.MountList(api, collection, httpapi.List[timeline.Event, *domain.Entity, any]{
		Parent:   func(r *httpapi.Request) (*domain.Entity, error) { return r.VisibleEntity(h.st) },
		ParentID: func(e *domain.Entity) int64 { return e.ID }, Gone: domain.GoneEvents, Tombstones: h.st,
		Filters: domain.FilterChildren,
		Read: func(r *httpapi.Request, e *domain.Entity, f domain.Filter, page domain.PageRequest) (domain.Page[timeline.Event], error) {
			return h.st.ListEvents(r.Context(), r.Access.CampaignID, e.ID, r.Access, f, page)
		},
		Render: era.render,
		Ahead:  httpapi.ReadAhead(eventstore.ReadEventList, "", "entity_id"),
	})
	httpapi.Mount(api, collection, collection+"/{id}", httpapi.Resource[timeline.Event, *timeline.Event, *domain.Entity]{
		Parent: func(r *httpapi.Request) (*domain.Entity, error) { return r.VisibleEntity(h.st) },
		Item:   httpapi.ReadAhead(eventstore.ReadEvent, "id", "entity_id"), Collection: httpapi.ReadAhead(store.ReadEntity, "entity_id", ""),
		Visible: h.visibleEvent,
		Apply: func(r *httpapi.Request, in domain.Input, e *domain.Entity, _, next *timeline.Event) error {
			return h.apply(r, era.read, in, e, next)
		},
		New: func(_ *httpapi.Request, e *domain.Entity) *timeline.Event {
			return &timeline.Event{EntityID: e.ID, EntityPrivate: e.LinksPrivate}
		},
		Create: h.st.CreateEvent, Update: h.st.UpdateEvent, Delete: h.st.DeleteEvent,
		Render: func(_ *httpapi.Request, ev *timeline.Event) (any, error) { return era.render(ev), nil },
	})
}

type handlers struct{ st Store }

// visibleEvent reads an event and its entity in one round trip; both must be visible.
func (h handlers) visibleEvent(r *httpapi.Request) (*domain.Entity, *timeline.Event, error) {
	return httpapi.EntityRecord(r, h.st.GetEventAndEntity, func(ev *timeline.Event) bool { return ev.VisibleTo(r.Access) })
}

// apply merges the body into next with the era's reader and, when its date is new, checks it
// on its calendar.
func (h handlers) apply(r *httpapi.Request, read func(*timeline.Event, domain.Input, *domain.Entity, domain.Access) (bool, error), in domain.Input, e *domain.Entity, next *timeline.Event) error {
	check, err := read(next, in, e, r.Access)
	if err != nil || !check {
		return err
	}
	cal, err := h.st.GetCalendar(r.Context(), r.Access.CampaignID, next.CalendarID)
	if err != nil && !errors.Is(err, apperr.ErrNotFound) {
		return err
	}
	return next.CheckOnCalendar(cal, r.Access)
}

// ageJSON is an entity's age on one calendar.
type ageJSON struct {
	CalendarID      int64   `json:"calendar_id"`
	Birth           *string `json:"birth"`
	Death           *string `json:"death"`
	Age             *int64  `json:"age"`
	YearsSinceDeath *int64  `json:"years_since_death"`
	// NextAnniversary is, for a living entity whose birth (or founding) recurs (Kanka's yearly
	// periodicity or a recurrence rule: a birthday every year, every 4 years, the first full
	// moon...), the next occurrence on or after the calendar's current date; null otherwise.
	NextAnniversary *string `json:"next_anniversary"`
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
	type life struct {
		birth, death *calengine.Date
		birthEv      *timeline.Event
	}
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
			l.birth, l.birthEv = &d, ev
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
		} else if l.birthEv != nil && l.birthEv.IsRecurring() {
			if next, ok := engine.NextStart(l.birthEv.Engine(), cal.Date); ok {
				a.NextAnniversary = dateString(&next)
			}
		}
		out = append(out, a)
	}
	return httpapi.One(out), nil
}

func dateString(d *calengine.Date) *string {
	if d == nil {
		return nil
	}
	s := d.String()
	return &s
}
