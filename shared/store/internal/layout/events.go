package layout

import (
	"strings"

	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// Events live in their entity's partition, placed in its audience ranges (ChildSlots), and are
// linked from their calendar's partition (calendarlinks.go): the day view and the reminders
// read the links, never the events.
type EventItem struct {
	MetaAttrs
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

func ToEventItem(ev *timeline.Event) EventItem {
	m := ToMetaAttrs(EntityPK(ev.CampaignID, ev.EntityID), RecordSK(EventPrefix, ev.ID), ev.Meta)
	it := EventItem{MetaAttrs: m,
		EntityID: ev.EntityID, CalendarID: ev.CalendarID, Name: ev.Name, NameLC: strings.ToLower(ev.Name),
		Year: ev.Date.Year, Month: ev.Date.Month, Day: ev.Date.Day, Length: ev.Length,
		Periodicity: ev.Recurrence.Periodicity(), RecurringUntil: ev.RecurringUntil, Colour: ev.Colour,
		Comment: ev.Comment, IsPrivate: ev.IsPrivate, TypeID: ev.TypeID, Visibility: string(ev.Visibility),
		Recurrence: RuleText(ev.Rule)}
	if ev.Time != nil {
		h, m := ev.Time.Hour, ev.Time.Minute
		it.Hour, it.Minute = &h, &m
	}
	return it
}

func RuleText(r *calengine.Rule) string {
	if r == nil {
		return ""
	}
	return r.String()
}

// RuleAndTime reads back what ToEventItem wrote of the rule and the time.
func RuleAndTime(text string, hour, minute *int) (*calengine.Rule, *calengine.Time) {
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

func (it EventItem) Event() timeline.Event {
	rec, _ := calengine.ParsePeriodicity(it.Periodicity) // written by Periodicity(): always parses
	rule, tm := RuleAndTime(it.Recurrence, it.Hour, it.Minute)
	return timeline.Event{Rule: rule, Time: tm, Meta: it.Meta(), EntityID: it.EntityID, CalendarID: it.CalendarID,
		Name: it.Name, Date: calengine.Date{Year: it.Year, Month: it.Month, Day: it.Day}, Length: it.Length,
		Recurrence: rec, RecurringUntil: it.RecurringUntil, Colour: it.Colour, Comment: it.Comment,
		IsPrivate: it.IsPrivate, TypeID: it.TypeID, Visibility: domain.Visibility(it.Visibility)}
}
