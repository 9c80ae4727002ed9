package eventwire

import "github.com/lorekeep/lorekeep/shared/domain/timeline"

// remindableType is what Kanka answers as remindable_type for a reminder on an entity.
const remindableType = `App\Models\Entity`

// Reminder is an entity event in Kanka's current reminder shape (DESIGN.md 9): the entity
// is the `remindable`, and the periodicity is spelled as Kanka stores it (`year`, `month`,
// `<moon>_f`...). Name, visibility and is_private are answered too: Kanka clients ignore what
// they do not know, and a reminder read back must show what was written.
type Reminder struct {
	ID             int64  `json:"id"`
	RemindableID   int64  `json:"remindable_id"`
	RemindableType string `json:"remindable_type"`
	Fields
}

// RenderReminder is ev in the reminder shape.
func RenderReminder(ev *timeline.Event) Reminder {
	e := Render(ev)
	j := Reminder{ID: e.ID, RemindableID: e.EntityID, RemindableType: remindableType, Fields: e.Fields}
	j.RecurringPeriodicity = nil
	if p := ev.Recurrence.KankaPeriodicity(); p != "" {
		j.RecurringPeriodicity = &p
	}
	return j
}
