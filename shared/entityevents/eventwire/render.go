// Package eventwire is the wire shapes of entity events: the 2022 entity event and Kanka's
// reminder, answered by the events family and embedded by records with ?related=1.
package eventwire

import (
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Event is an entity event as Kanka clients read it, with name, day, month and colour too.
type Event struct {
	ID       int64 `json:"id"`
	EntityID int64 `json:"entity_id"`
	Fields
}

// Fields are what both eras answer of an event (the 2022 entity event, today's reminder).
type Fields struct {
	CalendarID           int64   `json:"calendar_id"`
	Name                 *string `json:"name"` // null for a nameless event, as Kanka stores it
	Comment              string  `json:"comment"`
	Date                 string  `json:"date"`
	Day                  int     `json:"day"`
	Month                int     `json:"month"`
	Year                 int64   `json:"year"`
	Length               int     `json:"length"`
	IsRecurring          bool    `json:"is_recurring"`
	RecurringPeriodicity *string `json:"recurring_periodicity"`
	RecurringUntil       *int64  `json:"recurring_until"`
	Colour               *string `json:"colour"`
	TypeID               *int64  `json:"type_id"`
	IsPrivate            bool    `json:"is_private"`
	Visibility           string  `json:"visibility"`
	VisibilityID         int     `json:"visibility_id"` // Kanka's number for Visibility
	Schedule
	httpapi.AuditJSON
}

// Schedule is Lorekeep's addition to both shapes: the time of day and the recurrence beyond
// Kanka's periodicities, left out when unset so that Kanka's shapes stay as they were (no
// recurrence_count is no limit).
type Schedule struct {
	Hour               *int    `json:"hour,omitempty"`
	Minute             *int    `json:"minute,omitempty"`
	Recurrence         *string `json:"recurrence,omitempty"`
	RecurrenceInterval *int64  `json:"recurrence_interval,omitempty"`
	RecurrenceWeekday  *int    `json:"recurrence_weekday,omitempty"`
	RecurrenceOrdinal  *int    `json:"recurrence_ordinal,omitempty"`
	RecurrenceMoonID   *int    `json:"recurrence_moon_id,omitempty"`
	RecurrencePhase    *string `json:"recurrence_phase,omitempty"`
	RecurrenceCount    *int64  `json:"recurrence_count,omitempty"`
	RecurrenceUntil    *string `json:"recurrence_until,omitempty"`
}

// RenderSchedule is ev's time and rule.
func RenderSchedule(ev *timeline.Event) Schedule {
	var s Schedule
	if t := ev.Time; t != nil {
		h, m := t.Hour, t.Minute
		s.Hour, s.Minute = &h, &m
	}
	r := ev.Rule
	if r == nil {
		return s
	}
	u, iv := string(r.Unit), r.Interval
	s.Recurrence, s.RecurrenceInterval = &u, &iv
	switch r.Unit {
	case calengine.UnitMonthWeekday, calengine.UnitYearWeekday:
		w, o := r.Weekday, r.Ordinal
		s.RecurrenceWeekday, s.RecurrenceOrdinal = &w, &o
	case calengine.UnitMoon:
		m, p := r.MoonID, r.Phase
		s.RecurrenceMoonID, s.RecurrencePhase = &m, &p
	}
	if r.Count > 0 {
		c := r.Count
		s.RecurrenceCount = &c
	}
	if r.Until != nil {
		d := r.Until.String()
		s.RecurrenceUntil = &d
	}
	return s
}

// Render is ev in the entity event shape.
func Render(ev *timeline.Event) Event {
	j := Event{ID: ev.ID, EntityID: ev.EntityID, Fields: Fields{CalendarID: ev.CalendarID, Comment: ev.Comment,
		Date: ev.Date.String(), Day: ev.Date.Day, Month: ev.Date.Month, Year: ev.Date.Year, Length: ev.Length,
		IsRecurring: ev.IsRecurring(), TypeID: ev.TypeID, IsPrivate: ev.IsPrivate, Visibility: string(ev.Visibility), VisibilityID: ev.Visibility.ID(),
		Schedule: RenderSchedule(ev), AuditJSON: httpapi.RenderAudit(ev.Meta)}}
	if ev.IsRecurring() {
		j.RecurringUntil = ev.RecurringUntil
	}
	if ev.Recurrence.Kind != calengine.RecurNone { // a rule has no Kanka spelling: null
		p := ev.Recurrence.Periodicity()
		j.RecurringPeriodicity = &p
	}
	if ev.Name != "" {
		n := ev.Name
		j.Name = &n
	}
	if ev.Colour != "" {
		c := ev.Colour
		j.Colour = &c
	}
	return j
}
