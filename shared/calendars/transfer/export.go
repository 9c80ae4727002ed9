package transfer

import (
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// exportCalendar answers GET calendars/{id}/export: the calendar as a Fantasy-Calendar export
// (name, static_data, dynamic_data, and its reminders as events with their categories) under
// data, with the warnings of what Fantasy-Calendar itself reads differently; POST
// calendars/import takes it back unchanged. With ?format=fantasy-calendar the answer is the
// bare export (no envelope, no warnings): the file Fantasy-Calendar's importer reads. The
// calendar and its reminders' counts in one read, then the reminders the caller may see (one
// Query, at most calengine.MaxImportEvents: what an import takes back; more is a warning). The
// answer is bounded by the calendar's own size and its reminders' (HTML escaping at most
// sextuples a character).
func (h handlers) exportCalendar(r *httpapi.Request) (httpapi.Reply, error) {
	bare := false
	switch r.Param("format") {
	case "", "lorekeep":
	case "fantasy-calendar":
		bare = true
	default:
		return httpapi.Reply{}, apperr.Invalid("format", "The selected format is invalid: fantasy-calendar (the bare file) or lorekeep (the default).")
	}
	c, err := calwire.Visible(r, h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if r.Access.CanWrite() != nil { // hidden moons are the editors' (calwire.HideMoons)
		shown := c.Moons[:0:0]
		for _, m := range c.Moons {
			if !m.Hidden {
				shown = append(shown, m)
			}
		}
		c.Moons = shown
	}
	eng, err := c.Engine()
	if err != nil {
		return httpapi.Reply{}, err
	}
	page, err := h.st.ListReminders(r.Context(), r.Access.CampaignID, c.ID, r.Access, domain.Filter{}, domain.PageRequest{Page: 1, Limit: calengine.MaxImportEvents})
	if err != nil {
		return httpapi.Reply{}, err
	}
	events := make([]calengine.ImportedEvent, 0, len(page.Items))
	for _, ev := range page.Items {
		events = append(events, calengine.ImportedEvent{
			Name: ev.Name, Comment: ev.Comment, Colour: ev.Colour, Start: ev.Date, Length: ev.Length,
			Recurrence: ev.Recurrence, Rule: ev.Rule, RecurringUntil: ev.RecurringUntil, Hidden: ev.IsPrivate,
		})
	}
	ex, err := eng.ExportFantasyCalendar(c.Name, c.Date, c.Time, events...)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if page.Total > len(page.Items) {
		ex.Warnings = append(ex.Warnings, strconv.Itoa(page.Total-len(page.Items))+" of the calendar's "+strconv.Itoa(page.Total)+
			" reminders are not exported: an export carries at most "+strconv.Itoa(calengine.MaxImportEvents)+", as many as an import takes.")
	}
	if k := c.Climate; k != nil {
		names := make([]string, len(c.Seasons))
		for i, s := range c.Seasons {
			names[i] = s.Name
		}
		if ex.StaticData, ex.DynamicData, err = withClimate(ex.StaticData, ex.DynamicData, *k, names); err != nil {
			return httpapi.Reply{}, err
		}
	}
	if bare {
		return httpapi.Bare(fcFile{Name: ex.Name, StaticData: ex.StaticData, DynamicData: ex.DynamicData, Events: ex.Events, Categories: ex.Categories}), nil
	}
	return httpapi.One(ex), nil
}

// fcFile is the bare Fantasy-Calendar file: an export without Lorekeep's warnings.
type fcFile struct {
	Name        string `json:"name"`
	StaticData  any    `json:"static_data"`
	DynamicData any    `json:"dynamic_data"`
	Events      []any  `json:"events"`
	Categories  []any  `json:"categories"`
}
