package timeline

import (
	"html"
	"strconv"
	"unicode/utf8"

	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/sanitize"
)

// ImportedReminders turns the events a Fantasy-Calendar import read into reminders on the new
// calendar c's own entity (DESIGN.md section 5, "Importing Fantasy-Calendar's events"): the
// event's name, first day, length, recurrence, colour, its description as the comment
// (sanitised) after its category's name, private when Fantasy-Calendar hides it. Each is
// checked as a create would check it (CheckOnCalendar); one that fails, or whose comment passes
// MaxCommentLength, is left out with a warning naming it.
func ImportedReminders(c *Calendar, evs []calengine.ImportedEvent, a domain.Access) ([]*Event, []string) {
	var out []*Event
	var warnings []string
	for _, im := range evs {
		ev := &Event{
			EntityID: c.EntityID, CalendarID: c.ID, Name: im.Name, Date: im.Start, Length: im.Length,
			Recurrence: im.Recurrence, Rule: im.Rule, RecurringUntil: im.RecurringUntil, Colour: im.Colour,
			IsPrivate: im.Hidden, Visibility: domain.VisibilityAll, EntityPrivate: c.IsPrivate,
		}
		ev.CampaignID, ev.CreatedBy = c.CampaignID, a.UserID
		comment := im.Comment
		if im.Category != "" {
			comment = "<p>Category: " + html.EscapeString(im.Category) + "</p>" + comment
		}
		ev.Comment = sanitize.HTML(comment)
		switch {
		case utf8.RuneCountInString(ev.Name) > domain.MaxNameLength || ev.Length > MaxEventLength:
			warnings = append(warnings, "Event "+strconv.Quote(im.Name)+" is not imported: its name or length passes the reminders' limits.")
			continue
		case len(ev.Comment) > MaxCommentLength:
			warnings = append(warnings, "Event "+strconv.Quote(im.Name)+": its description passes "+strconv.Itoa(MaxCommentLength)+" characters; it is not imported.")
			ev.Comment = ""
		}
		if err := ev.CheckOnCalendar(c, a); err != nil {
			warnings = append(warnings, "Event "+strconv.Quote(im.Name)+" is not imported: "+err.Error()+".")
			continue
		}
		out = append(out, ev)
	}
	return out, warnings
}
