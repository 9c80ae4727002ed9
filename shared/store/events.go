package store

import (
	"context"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/calendar"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Events live in their entity's partition and are indexed by calendar (GSI1), which serves a
// calendar's day view and the clean-up when a calendar is deleted. Their totals are always
// filtered by visibility, so they are counted by query, not kept in a counter.
type eventItem struct {
	metaAttrs
	GSI1PK         string `dynamo:"gsi1pk"`
	GSI1SK         string `dynamo:"gsi1sk"`
	EntityID       int64  `dynamo:"entity_id"`
	CalendarID     int64  `dynamo:"calendar_id"`
	Name           string `dynamo:"name"`
	NameLC         string `dynamo:"name_lc,omitempty"`
	Year           int64  `dynamo:"year"`
	Month          int    `dynamo:"month"`
	Day            int    `dynamo:"day"`
	Length         int    `dynamo:"length"`
	Periodicity    string `dynamo:"recurring_periodicity,omitempty"`
	RecurringUntil *int64 `dynamo:"recurring_until,omitempty"`
	Colour         string `dynamo:"colour,omitempty"`
	Comment        string `dynamo:"comment,omitempty"`
	IsPrivate      bool   `dynamo:"is_private"`
	TypeID         *int64 `dynamo:"type_id,omitempty"`
	Visibility     string `dynamo:"visibility"`
}

func toEventItem(ev *domain.Event) eventItem {
	m := toMetaAttrs(entityPK(ev.CampaignID, ev.EntityID), recordSK(eventPrefix, ev.ID), ev.Meta)
	return eventItem{metaAttrs: m, GSI1PK: calendarGSI(ev.CampaignID, ev.CalendarID), GSI1SK: m.SK,
		EntityID: ev.EntityID, CalendarID: ev.CalendarID, Name: ev.Name, NameLC: strings.ToLower(ev.Name),
		Year: ev.Date.Year, Month: ev.Date.Month, Day: ev.Date.Day, Length: ev.Length,
		Periodicity: ev.Recurrence.Periodicity(), RecurringUntil: ev.RecurringUntil, Colour: ev.Colour,
		Comment: ev.Comment, IsPrivate: ev.IsPrivate, TypeID: ev.TypeID, Visibility: string(ev.Visibility)}
}

func (it eventItem) event() domain.Event {
	rec, _ := calendar.ParsePeriodicity(it.Periodicity) // written by Periodicity(): always parses
	return domain.Event{Meta: it.meta(), EntityID: it.EntityID, CalendarID: it.CalendarID,
		Name: it.Name, Date: calendar.Date{Year: it.Year, Month: it.Month, Day: it.Day}, Length: it.Length,
		Recurrence: rec, RecurringUntil: it.RecurringUntil, Colour: it.Colour, Comment: it.Comment,
		IsPrivate: it.IsPrivate, TypeID: it.TypeID, Visibility: domain.Visibility(it.Visibility)}
}

func events(items []eventItem) []domain.Event {
	out := make([]domain.Event, len(items))
	for i, it := range items {
		out[i] = it.event()
	}
	return out
}

// GetEventAndEntity reads an event and its entity in one round trip; ErrNotFound unless both exist.
func (s *Store) GetEventAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Event, error) {
	return getWithEntity(ctx, s, cid, eid, recordSK(eventPrefix, id), eventItem.event)
}

// eventList is an entity's events the caller may see: its visibility scope, and is_private for
// admins only.
func eventList(cid, eid int64, a domain.Access, f domain.Filter) listSpec {
	l := listSpec{pk: entityPK(cid, eid), prefix: eventPrefix + "#", hidePrivate: !a.IsAdmin()}
	l.visibleTo(a)
	l.filter(f)
	return l
}

// ListEvents reads one page of an entity's events that the caller may see.
func (s *Store) ListEvents(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Event], error) {
	return listPage(ctx, s, eventList(cid, eid, a, f), p, eventItem.event)
}

// LifeEvents reads every birth, founding and death event of an entity that the caller may see.
func (s *Store) LifeEvents(ctx context.Context, cid, eid int64, a domain.Access) ([]domain.Event, error) {
	l := eventList(cid, eid, a, domain.Filter{})
	l.where("'type_id' IN (?, ?, ?)", domain.EventTypeBirth, domain.EventTypeFounded, domain.EventTypeDeath)
	var items []eventItem
	err := l.query(s).All(ctx, &items)
	return events(items), wrap(err)
}

// EventsOnCalendar reads, through the calendar index, every event that uses a calendar, with
// the entities they belong to (one batched read): the caller decides what it may see.
func (s *Store) EventsOnCalendar(ctx context.Context, cid, calID int64) ([]domain.Event, map[int64]*domain.Entity, error) {
	var items []eventItem
	if err := s.table.Get("gsi1pk", calendarGSI(cid, calID)).Index(GSI1).All(ctx, &items); err != nil {
		return nil, nil, wrap(err)
	}
	evs := events(items)
	ids := make([]int64, len(evs))
	for i, ev := range evs {
		ids[i] = ev.EntityID
	}
	ents, err := s.GetEntities(ctx, cid, ids)
	return evs, ents, err
}

// GetCalendars reads the campaign's calendars with the given ids in one batch; missing ones
// are absent from the map.
func (s *Store) GetCalendars(ctx context.Context, cid int64, ids []int64) (map[int64]*domain.Calendar, error) {
	return getRecords(ctx, s, cid, calendarPrefix, ids, true, func(it calendarItem) (int64, *domain.Calendar) {
		c := it.calendar()
		return c.ID, &c
	})
}

// checkCalendar makes a write conditional on the event's calendar still existing.
func (s *Store) checkCalendar(ev *domain.Event) *dynamo.ConditionCheck {
	return s.exists(campaignPK(ev.CampaignID), recordSK(calendarPrefix, ev.CalendarID))
}

// CreateEvent stores a new event, on condition that its entity and calendar still exist
// (ErrNotFound otherwise).
func (s *Store) CreateEvent(ctx context.Context, ev *domain.Event) error {
	return s.createChild(ctx, &ev.Meta, "event", func() any { return toEventItem(ev) },
		[]*dynamo.ConditionCheck{s.exists(campaignPK(ev.CampaignID), recordSK(entityPrefix, ev.EntityID)), s.checkCalendar(ev)})
}

// UpdateEvent writes next over prev if nobody wrote since prev was read; a move to another
// calendar is also conditional on that calendar existing.
func (s *Store) UpdateEvent(ctx context.Context, prev, next *domain.Event) error {
	s.stampUpdate(&prev.Meta, &next.Meta)
	put := s.table.Put(toEventItem(next)).If(ifVersion, prev.Version)
	if next.CalendarID == prev.CalendarID {
		return wrap(put.Run(ctx))
	}
	return wrap(s.db.WriteTx().Check(s.checkCalendar(next)).Put(put).Run(ctx))
}

// DeleteEvent deletes an event if nobody wrote since it was read.
func (s *Store) DeleteEvent(ctx context.Context, ev *domain.Event) error {
	return wrap(s.table.Delete("pk", entityPK(ev.CampaignID, ev.EntityID)).Range("sk", recordSK(eventPrefix, ev.ID)).
		If(ifVersion, ev.Version).Run(ctx))
}
