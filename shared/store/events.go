package store

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// Events live in their entity's partition, placed in its audience ranges (childSlots), and are
// linked from their calendar's partition (calendarlinks.go): the day view and the reminders
// read the links, never the events.
type eventItem struct {
	metaAttrs
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
	Recurrence     string `dynamo:"recurrence,omitempty"` // calengine.Rule's text
	Hour           *int   `dynamo:"hour,omitempty"`
	Minute         *int   `dynamo:"minute,omitempty"`
	Colour         string `dynamo:"colour,omitempty"`
	Comment        string `dynamo:"comment,omitempty"`
	IsPrivate      bool   `dynamo:"is_private"`
	TypeID         *int64 `dynamo:"type_id,omitempty"`
	Visibility     string `dynamo:"visibility"`
}

func toEventItem(ev *timeline.Event) eventItem {
	m := toMetaAttrs(entityPK(ev.CampaignID, ev.EntityID), recordSK(eventPrefix, ev.ID), ev.Meta)
	it := eventItem{metaAttrs: m,
		EntityID: ev.EntityID, CalendarID: ev.CalendarID, Name: ev.Name, NameLC: strings.ToLower(ev.Name),
		Year: ev.Date.Year, Month: ev.Date.Month, Day: ev.Date.Day, Length: ev.Length,
		Periodicity: ev.Recurrence.Periodicity(), RecurringUntil: ev.RecurringUntil, Colour: ev.Colour,
		Comment: ev.Comment, IsPrivate: ev.IsPrivate, TypeID: ev.TypeID, Visibility: string(ev.Visibility),
		Recurrence: ruleText(ev.Rule)}
	if ev.Time != nil {
		h, m := ev.Time.Hour, ev.Time.Minute
		it.Hour, it.Minute = &h, &m
	}
	return it
}

func ruleText(r *calengine.Rule) string {
	if r == nil {
		return ""
	}
	return r.String()
}

// ruleAndTime reads back what toEventItem wrote of the rule and the time.
func ruleAndTime(text string, hour, minute *int) (*calengine.Rule, *calengine.Time) {
	var rule *calengine.Rule
	if r, err := calengine.ParseRule(text); text != "" && err == nil { // written by String(): always parses
		rule = &r
	}
	var t *calengine.Time
	if hour != nil {
		t = &calengine.Time{Hour: *hour}
		if minute != nil {
			t.Minute = *minute
		}
	}
	return rule, t
}

func (it eventItem) event() timeline.Event {
	rec, _ := calengine.ParsePeriodicity(it.Periodicity) // written by Periodicity(): always parses
	rule, tm := ruleAndTime(it.Recurrence, it.Hour, it.Minute)
	return timeline.Event{Rule: rule, Time: tm, Meta: it.meta(), EntityID: it.EntityID, CalendarID: it.CalendarID,
		Name: it.Name, Date: calengine.Date{Year: it.Year, Month: it.Month, Day: it.Day}, Length: it.Length,
		Recurrence: rec, RecurringUntil: it.RecurringUntil, Colour: it.Colour, Comment: it.Comment,
		IsPrivate: it.IsPrivate, TypeID: it.TypeID, Visibility: domain.Visibility(it.Visibility)}
}

func events(items []eventItem) []timeline.Event {
	out := make([]timeline.Event, len(items))
	for i, it := range items {
		out[i] = it.event()
	}
	return out
}

// GetEventAndEntity reads an event and its entity in one round trip; ErrNotFound unless both
// exist. The event carries where its entity's links are placed (EntityPrivate), for its write.
func (s *Store) GetEventAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *timeline.Event, error) {
	e, ev, err := getWithEntity(ctx, s, cid, eid, eventPrefix, id, eventItem.event)
	if err == nil {
		ev.EntityPrivate = e.LinksPrivate
	}
	return e, ev, err
}

// eventList is an entity's events the caller may see: its visibility scope, and is_private for
// admins only.
func eventList(cid, eid int64, a domain.Access, f domain.Filter) listSpec {
	l := listSpec{ranges: childRanges(eventPrefix, entityPK(cid, eid), a)}
	l.filter(f)
	return l
}

// ListEvents reads one page of an entity's events that the caller may see.
func (s *Store) ListEvents(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.Event], error) {
	return listPage(ctx, s, eventList(cid, eid, a, f), p, eventItem.event)
}

// LifeEvents reads the first MaxLifeEvents birth, founding and death events (by id) of an
// entity that the caller may see.
func (s *Store) LifeEvents(ctx context.Context, cid, eid int64, a domain.Access) ([]timeline.Event, error) {
	l := eventList(cid, eid, a, domain.Filter{})
	l.where("'type_id' IN (?, ?, ?)", timeline.EventTypeBirth, timeline.EventTypeFounded, timeline.EventTypeDeath)
	page, err := listPage(ctx, s, l, domain.PageRequest{Page: 1, Limit: MaxLifeEvents}, eventItem.event)
	return page.Items, err
}

// MaxLifeEvents bounds the birth, founding and death events ages are computed from (the first
// of each per calendar, by id): one bounded page, whatever the entity's events; an entity with
// more life events than this has ages on the calendars of its first ones (DESIGN 5, ages).
const MaxLifeEvents = 100

// GetCalendars reads the campaign's calendars with the given ids in one batch; missing ones
// are absent from the map.
func (s *Store) GetCalendars(ctx context.Context, cid int64, ids []int64) (map[int64]*timeline.Calendar, error) {
	return getRecords(ctx, s, cid, calendarPrefix, ids, true, func(it calendarItem) (int64, *timeline.Calendar) {
		c := it.calendar()
		return c.ID, &c
	})
}

// checkCalendar makes a write conditional on the event's calendar still existing: a calendar
// gone (or being deleted) is the body's calendar_id that no longer names one, a 422.
func (s *Store) checkCalendar(ev *timeline.Event) func(*txBuilder) {
	return s.exists(campaignPK(ev.CampaignID), recordSK(calendarPrefix, ev.CalendarID),
		apperr.Invalid("calendar_id", "The selected calendar id is invalid."))
}

// CreateEvent stores a new event with its calendar links, on condition that its entity and
// calendar still exist (ErrNotFound otherwise) and that the entity's links are still placed as
// read (ev.EntityPrivate): a privacy change in between re-reads the entity and retries.
func (s *Store) CreateEvent(ctx context.Context, ev *timeline.Event) error {
	for attempt := 0; ; attempt++ {
		err := s.createChild(ctx, &ev.Meta, "event", func() any { return toEventItem(ev) }, func() []slot { return eventSlots(ev) },
			s.checkEntityLinks(ev), s.checkCalendar(ev), s.linkEvent(nil, ev), synced(nil, func() *syncRef { return eventRef(ev) }))
		if !errors.Is(err, apperr.ErrNotFound) || attempt >= apperr.WriteAttempts {
			return err
		}
		var e entityItem
		if rerr := s.getItem(ctx, campaignPK(ev.CampaignID), recordSK(entityPrefix, ev.EntityID), &e, "pk", "sk", "links_private"); rerr != nil || e.LinksPrivate == ev.EntityPrivate {
			return err // gone, or unchanged: the failure was not its links' privacy
		}
		ev.EntityPrivate = e.LinksPrivate
	}
}

// UpdateEvent writes next over prev if nobody wrote since prev was read, on condition that its
// entity and its calendar (the new one after a move) exist; its links move with it.
func (s *Store) UpdateEvent(ctx context.Context, prev, next *timeline.Event) error {
	return s.updateChild(ctx, &prev.Meta, &next.Meta, func() any { return toEventItem(next) },
		func() []slot { return eventSlots(prev) }, func() []slot { return eventSlots(next) },
		s.exists(campaignPK(next.CampaignID), recordSK(entityPrefix, next.EntityID), apperr.ErrNotFound), s.checkCalendar(next),
		s.linkEvent(prev, next), synced(func() *syncRef { return eventRef(prev) }, func() *syncRef { return eventRef(next) }))
}

// DeleteEvent deletes an event (its copies, links and counts) if nobody wrote since it was read.
func (s *Store) DeleteEvent(ctx context.Context, ev *timeline.Event) error {
	return s.deleteChild(ctx, &ev.Meta, eventSlots(ev), s.linkEvent(ev, nil), synced(func() *syncRef { return eventRef(ev) }, nil))
}

func eventSlots(ev *timeline.Event) []slot {
	return append(childSlots(eventPrefix, entityPK(ev.CampaignID, ev.EntityID), ev.ID, ev.CreatedBy, ev.Visibility, ev.IsPrivate),
		relatedSlot(ev.CampaignID, ev.EntityID, eventPrefix, ev.ID))
}

// CreateImportedEvents stores the reminders an import read (evs, all on one calendar and its
// entity, just created): their ids in one round trip, then one transaction each (the event,
// its copies, calendar links and sync pointer, on condition that the entity and the calendar
// still exist), at most writeConcurrency at once: 1 + len(evs) round trips, bounded by the
// import's limit on events. A transaction's failure is the error; the events written before it
// stay (each is whole), and the caller reports which were not.
func (s *Store) CreateImportedEvents(ctx context.Context, evs []*timeline.Event) (written int, err error) {
	if len(evs) == 0 {
		return 0, nil
	}
	var raw dynamo.Item
	if err := s.table.Update("pk", campaignPK(evs[0].CampaignID)).Range("sk", seqSK).Add("event", len(evs)).Value(ctx, &raw); err != nil {
		return 0, wrap(err)
	}
	var last int64
	if err := dynamo.Unmarshal(raw["event"], &last); err != nil {
		return 0, err
	}
	if last-int64(len(evs))+1 <= 0 || last > domain.MaxID {
		return 0, errors.New("store: id sequence event exhausted")
	}
	txs := make([]*txBuilder, len(evs))
	for i, ev := range evs {
		s.stampNew(&ev.Meta, last-int64(len(evs))+1+int64(i))
		b := s.newTx()
		for _, c := range []func(*txBuilder){s.checkEntityLinks(ev), s.checkCalendar(ev), s.linkEvent(nil, ev),
			synced(nil, func() *syncRef { return eventRef(ev) })} {
			c(b)
		}
		b.place(marshal(toEventItem(ev)), nil, eventSlots(ev), 0)
		txs[i] = b
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writeConcurrency)
	for _, b := range txs {
		g.Go(func() error {
			if err := conflictIsNotFound(b.run(gctx)); err != nil {
				return err
			}
			mu.Lock()
			written++
			mu.Unlock()
			return nil
		})
	}
	return written, g.Wait()
}
