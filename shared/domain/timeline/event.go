package timeline

import (
	"regexp"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/sanitize"
)

// Event is an entity event: a dated record of an entity on a calendar, possibly recurring.
type Event struct {
	domain.Meta
	EntityID       int64
	CalendarID     int64
	Name           string
	Date           calengine.Date
	Length         int
	Recurrence     calengine.Recurrence
	RecurringUntil *int64
	Colour         string
	Comment        string // sanitised HTML
	IsPrivate      bool
	TypeID         *int64
	Visibility     domain.Visibility
	// Rule is Lorekeep's recurrence beyond Kanka's periodicities (recurrence, recurrence_*),
	// kept apart from Recurrence: an event has at most one of them.
	Rule *calengine.Rule
	// Time is the time of day on the calendar's clock, nil for none.
	Time *calengine.Time
	// EntityPrivate is where its entity's links were placed when it was read (the entity's
	// LinksPrivate): its calendar links are placed by it. Never rendered.
	EntityPrivate bool
}

// Clone copies ev; Apply replaces its pointers rather than writing through them.
func (ev *Event) Clone() *Event { c := *ev; return &c }

// Event types (Kanka's entity_event_types). Births and foundings start an age, deaths end it.
const (
	EventTypeDate         int64 = 1
	EventTypeBirth        int64 = 2
	EventTypeDeath        int64 = 3
	EventTypeCalendarDate int64 = 4
	EventTypeFounded      int64 = 5
)

// StartsLife reports whether the event is a birth or a founding: ages count from either.
func (ev *Event) StartsLife() bool {
	return ev.TypeID != nil && (*ev.TypeID == EventTypeBirth || *ev.TypeID == EventTypeFounded)
}

// EndsLife reports whether the event is a death.
func (ev *Event) EndsLife() bool { return ev.TypeID != nil && *ev.TypeID == EventTypeDeath }

// Bounds on event fields. MaxEventLength keeps a day view's occurrences bounded.
const (
	MaxEventLength   = 100_000
	MaxCommentLength = 10_000
	maxEventYear     = 1_000_000_000
	maxDatePart      = 1_000_000
)

var colourPattern = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-z][a-z-]{0,31})$`)

// A day view finds the one-off events of at most DayLinkMaxLength days by their start date,
// reading from DayLookBack days before its first day (an earlier start ends before it); it
// reads recurring and longer events whole.
const (
	DayLinkMaxLength = 31
	DayLookBack      = DayLinkMaxLength - 1
)

// FoundByDate reports whether a day view finds the event by its start date.
func (ev *Event) FoundByDate() bool { return !ev.IsRecurring() && ev.Length <= DayLinkMaxLength }

// IsRecurring is derived from the recurrence, never stored apart from it.
func (ev *Event) IsRecurring() bool {
	return ev.Recurrence.Kind != calengine.RecurNone || ev.Rule != nil
}

// Engine is the engine's view of the event.
func (ev *Event) Engine() calengine.Event {
	return calengine.Event{Start: ev.Date, Length: ev.Length, Recurrence: ev.Recurrence, Until: ev.RecurringUntil, Rule: ev.Rule}
}

// Apply merges the sent fields of an entity event (the spec's 2022 body) into ev, the event of
// entity e, and checks their types, the required fields and who may make it private. What
// depends on the calendar (the date exists, the moon exists) is CheckOnCalendar's; check says
// whether it must run: on create, and on an update that sends a date field. An entity that is
// a calendar is the default calendar.
func (ev *Event) Apply(in domain.Input, e *domain.Entity, a domain.Access) (check bool, err error) {
	return ev.apply(in, e, a, false)
}

// ApplyReminder is Apply for Kanka's current reminder body: `name` is optional and `length`
// defaults to 1 on create.
func (ev *Event) ApplyReminder(in domain.Input, e *domain.Entity, a domain.Access) (check bool, err error) {
	return ev.apply(in, e, a, true)
}

func (ev *Event) apply(in domain.Input, e *domain.Entity, a domain.Access, reminder bool) (check bool, err error) {
	r := domain.NewReader(in)
	if reminder && ev.ID == 0 && ev.Length == 0 && in["length"] == nil {
		ev.Length = 1
	}
	was := ev.IsPrivate
	if f := r.String("name", domain.MaxNameLength); f.Set {
		ev.Name = strings.TrimSpace(f.Value)
	}
	if f := r.Int("day", 1, maxDatePart); f.Present() {
		ev.Date.Day = int(f.Value)
	}
	if f := r.Int("month", 1, maxDatePart); f.Present() {
		ev.Date.Month = int(f.Value)
	}
	if f := r.Int("year", -maxEventYear, maxEventYear); f.Present() {
		ev.Date.Year = f.Value
	}
	yearSent := r.Has("year") && in["year"] != nil
	if f := r.Int("length", 1, MaxEventLength); f.Present() {
		ev.Length = int(f.Value)
	}
	if f := r.ID("calendar_id"); f.Present() {
		ev.CalendarID = f.Value
	}
	if f := r.String("recurring_periodicity", 64); f.Set && !r.Errs.Has("recurring_periodicity") {
		rec, err := calengine.ParsePeriodicity(strings.ToLower(strings.TrimSpace(f.Value)))
		if err != nil {
			r.Errs.Add("recurring_periodicity", "The selected recurring periodicity is invalid.")
		} else {
			ev.Recurrence = rec
		}
	}
	if f := r.Int("recurring_until", -maxEventYear, maxEventYear); f.Set && !r.Errs.Has("recurring_until") {
		ev.RecurringUntil = nil
		if f.Present() {
			u := f.Value
			ev.RecurringUntil = &u
		}
	}
	readRule(r, ev)
	switch {
	case !r.Has("recurring_periodicity"):
	case !r.Has("recurrence"):
		ev.Rule = nil // a Kanka client's periodicity, even none, replaces the rule
	case ev.Rule != nil && ev.Recurrence.Kind != calengine.RecurNone:
		r.Errs.Add("recurrence", "The recurrence field is prohibited when recurring periodicity is present.")
	}
	if ev.Rule != nil {
		ev.Recurrence = calengine.Recurrence{}
	}
	readTime(r, ev)
	if f := r.String("colour", 32); f.Set && !r.Errs.Has("colour") {
		ev.Colour = ""
		if f.Present() && !colourPattern.MatchString(f.Value) {
			r.Errs.Add("colour", "The colour must be a colour name or a #hex colour.")
		} else if f.Present() {
			ev.Colour = f.Value
		}
	}
	if f := r.String("comment", MaxCommentLength); f.Set {
		ev.Comment = sanitize.HTML(f.Value)
	}
	if f := r.Bool("is_private"); f.Present() {
		ev.IsPrivate = f.Value
	}
	if f := r.Int("type_id", 1, 1<<31); f.Set && !r.Errs.Has("type_id") {
		ev.TypeID = nil
		switch {
		case !f.Present():
		case f.Value >= EventTypeDate && f.Value <= EventTypeFounded:
			t := f.Value
			ev.TypeID = &t
		default:
			r.Errs.Add("type_id", "The selected type id is invalid.")
		}
	}
	if v, ok := domain.ReadVisibility(r); ok {
		ev.Visibility = v
	}
	if ev.Visibility == "" {
		ev.Visibility = domain.VisibilityAll
	}
	if !ev.IsRecurring() {
		ev.RecurringUntil = nil
	}
	// A reminder may have no name: a 2022 update of one requires a name only when it sends one.
	// Kanka 2022 required name only without entity_id (`required_without`): a body that carries
	// an entity_id may leave it out (the path still decides the entity).
	if !reminder && !r.Has("entity_id") && (ev.ID == 0 || r.Has("name")) {
		r.Required("name", ev.Name != "")
	}
	r.Required("day", ev.Date.Day != 0)
	r.Required("month", ev.Date.Month != 0)
	r.Required("year", ev.ID != 0 || yearSent)
	r.Required("length", ev.Length != 0)
	if err := domain.Finish(r, a, was, ev.IsPrivate); err != nil {
		return false, err
	}
	if ev.CalendarID == 0 && e.Type == "calendar" {
		ev.CalendarID = e.ChildID
	}
	if ev.CalendarID == 0 {
		return false, apperr.Invalid("calendar_id", "The calendar id field is required.")
	}
	return ev.ID == 0 || sentAny(in, eventDateFields), nil
}

// eventDateFields are the fields whose change must be checked against the calendar.
var eventDateFields = append([]string{"calendar_id", "day", "month", "year", "recurring_periodicity", "recurring_until", "hour", "minute"}, ruleFields...)

func sentAny(in domain.Input, names []string) bool {
	for _, n := range names {
		if _, ok := in[n]; ok {
			return true
		}
	}
	return false
}

// VisibleTo reports whether the caller a may see ev itself: is_private and visibility both
// apply (its entity's visibility is checked apart).
func (ev *Event) VisibleTo(a domain.Access) bool {
	return a.CanSee(ev.IsPrivate) && a.CanSeeVisibility(ev.Visibility, ev.CreatedBy)
}
