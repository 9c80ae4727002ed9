package calendars

import (
	"encoding/json"
	"slices"

	"github.com/lorekeep/lorekeep/shared/calendar"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// presetJSON lists a ready-made calendar: POST calendars with {"preset": key} creates one.
type presetJSON struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// presets answers GET calendars/presets; no storage read beyond the campaign's access.
func (h handlers) presets(_ *httpapi.Request) (httpapi.Reply, error) {
	ps := calendar.Presets()
	out := make([]presetJSON, len(ps))
	for i, p := range ps {
		out[i] = presetJSON{Key: p.Key, Name: p.Name, Description: p.Description}
	}
	return httpapi.One(out), nil
}

// importJSON is the calendar made from an import and what the export held that it could not.
type importJSON struct {
	calendarJSON
	Warnings []string `json:"warnings"`
}

// exportFields are the parts of a Fantasy-Calendar export; the rest of the body is read like a
// create's (fields given beside the export win).
var exportFields = []string{"name", "static_data", "dynamic_data"}

// importCalendar answers POST calendars/import: a Fantasy-Calendar export becomes a calendar,
// stored as a create stores one (two round trips), answered with the warnings.
func (h handlers) importCalendar(r *httpapi.Request) (httpapi.Reply, error) {
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	export := map[string]any{}
	for _, k := range exportFields {
		v, ok := in[k]
		if s, isStr := v.(string); isStr && k != "name" {
			v = json.RawMessage(s) // an export pasted as text
		}
		if ok {
			export[k] = v
		}
	}
	body, err := json.Marshal(export)
	if err != nil {
		return httpapi.Reply{}, domain.Invalid("static_data", "The static data must be JSON.")
	}
	im, err := calendar.ImportFantasyCalendar(body)
	if err != nil {
		return httpapi.Reply{}, domain.EngineProblems(err)
	}
	// The imported structures are read like a create's body; fields sent beside the export win.
	c := &domain.Calendar{}
	c.CampaignID, c.CreatedBy = r.Access.CampaignID, r.Access.UserID
	rest := domain.DefinitionInput(im.Definition, im.Date)
	rest["name"] = im.Name
	for k, v := range in {
		if !slices.Contains(exportFields, k) && k != "preset" {
			rest[k] = v
		}
	}
	if err := c.Apply(rest, r.Access); err != nil {
		return httpapi.Reply{}, err
	}
	if err := h.st.CreateCalendar(r.Context(), c); err != nil {
		return httpapi.Reply{}, err
	}
	w := im.Warnings
	if w == nil {
		w = []string{}
	}
	return httpapi.One(importJSON{calendarJSON: render(c), Warnings: w}), nil
}
