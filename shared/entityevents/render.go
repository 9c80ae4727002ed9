package entityevents

import (
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// eventJSON is an entity event as Kanka clients read it, with name, day, month and colour too.
type eventJSON struct {
	ID       int64 `json:"id"`
	EntityID int64 `json:"entity_id"`
	eventFields
}

// eventFields are what both eras answer of an event (the 2022 entity event, today's reminder).
type eventFields struct {
	CalendarID           int64   `json:"calendar_id"`
	Name                 string  `json:"name"`
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
	httpapi.AuditJSON
}

func render(ev *timeline.Event) eventJSON {
	j := eventJSON{ID: ev.ID, EntityID: ev.EntityID, eventFields: eventFields{CalendarID: ev.CalendarID, Name: ev.Name, Comment: ev.Comment,
		Date: ev.Date.String(), Day: ev.Date.Day, Month: ev.Date.Month, Year: ev.Date.Year, Length: ev.Length,
		IsRecurring: ev.IsRecurring(), TypeID: ev.TypeID, IsPrivate: ev.IsPrivate, Visibility: string(ev.Visibility), VisibilityID: ev.Visibility.ID(),
		AuditJSON: httpapi.RenderAudit(ev.Meta)}}
	if ev.IsRecurring() {
		p := ev.Recurrence.Periodicity()
		j.RecurringPeriodicity, j.RecurringUntil = &p, ev.RecurringUntil
	}
	if ev.Colour != "" {
		c := ev.Colour
		j.Colour = &c
	}
	return j
}
