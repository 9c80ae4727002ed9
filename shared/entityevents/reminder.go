package entityevents

import "github.com/lorekeep/lorekeep/shared/domain"

// remindableType is what Kanka answers as remindable_type for a reminder on an entity.
const remindableType = `App\Models\Entity`

// reminderJSON is an entity event in Kanka's current reminder shape (DESIGN.md 9): the entity
// is the `remindable`, and the periodicity is spelled as Kanka stores it (`year`, `month`,
// `<moon>_f`...). Name, visibility and is_private are answered too: Kanka clients ignore what
// they do not know, and a reminder read back must show what was written.
type reminderJSON struct {
	ID                   int64       `json:"id"`
	RemindableID         int64       `json:"remindable_id"`
	RemindableType       string      `json:"remindable_type"`
	CalendarID           int64       `json:"calendar_id"`
	Name                 string      `json:"name"`
	Date                 string      `json:"date"`
	Day                  int         `json:"day"`
	Month                int         `json:"month"`
	Year                 int64       `json:"year"`
	Length               int         `json:"length"`
	Comment              string      `json:"comment"`
	IsRecurring          bool        `json:"is_recurring"`
	RecurringUntil       *int64      `json:"recurring_until"`
	RecurringPeriodicity *string     `json:"recurring_periodicity"`
	Colour               *string     `json:"colour"`
	TypeID               *int64      `json:"type_id"`
	IsPrivate            bool        `json:"is_private"`
	Visibility           string      `json:"visibility"`
	VisibilityID         int         `json:"visibility_id"`
	CreatedAt            domain.Time `json:"created_at"`
	CreatedBy            int64       `json:"created_by"`
	UpdatedAt            domain.Time `json:"updated_at"`
	UpdatedBy            int64       `json:"updated_by"`
}

func renderReminder(ev *domain.Event) reminderJSON {
	e := render(ev)
	j := reminderJSON{ID: e.ID, RemindableID: e.EntityID, RemindableType: remindableType, CalendarID: e.CalendarID,
		Name: e.Name, Date: e.Date, Day: e.Day, Month: e.Month, Year: e.Year, Length: e.Length, Comment: e.Comment,
		IsRecurring: e.IsRecurring, RecurringUntil: e.RecurringUntil, Colour: e.Colour, TypeID: e.TypeID,
		IsPrivate: e.IsPrivate, Visibility: e.Visibility, VisibilityID: e.VisibilityID,
		CreatedAt: e.CreatedAt, CreatedBy: e.CreatedBy, UpdatedAt: e.UpdatedAt, UpdatedBy: e.UpdatedBy}
	if p := ev.Recurrence.KankaPeriodicity(); p != "" {
		j.RecurringPeriodicity = &p
	}
	return j
}
