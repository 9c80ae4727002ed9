package calendars

import (
	"encoding/json"
	"slices"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
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
	ps := calengine.Presets()
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
// stored as a create stores one (two round trips), answered with the warnings. Every refusal
// names the export's field (static_data.moons.0.cycle), or the field sent beside it.
func (h handlers) importCalendar(r *httpapi.Request) (httpapi.Reply, error) {
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	export := map[string]any{}
	var bad apperr.FieldErrors
	for _, k := range exportFields {
		v, ok := in[k]
		if !ok {
			continue
		}
		v = formValue(v)
		if s, isStr := v.(string); isStr && k != "name" {
			// An export pasted as text: each part is judged on its own.
			if !json.Valid([]byte(s)) {
				bad.Add(k, "The "+domain.Label(k)+" must be JSON.")
				continue
			}
			v = json.RawMessage(s)
		}
		export[k] = v
	}
	if err := bad.Err(); err != nil {
		return httpapi.Reply{}, err
	}
	body, err := json.Marshal(export) // cannot fail: decoded JSON, form strings, checked text
	if err != nil {
		return httpapi.Reply{}, apperr.Invalid("static_data", "The static data must be JSON.")
	}
	im, err := calengine.ImportFantasyCalendar(body)
	if err != nil {
		return httpapi.Reply{}, timeline.EngineProblems(err)
	}
	// The imported structures are read like a create's body; fields sent beside the export win.
	c := &timeline.Calendar{}
	c.CampaignID, c.CreatedBy = r.Access.CampaignID, r.Access.UserID
	rest := timeline.DefinitionInput(im.Definition, im.Date, im.Time)
	rest["name"] = im.Name
	beside := map[string]bool{}
	for k, v := range in {
		// An export of ours carries its warnings beside: they are the export's, not fields.
		if !slices.Contains(exportFields, k) && k != "preset" && k != "warnings" {
			rest[k], beside[k] = v, true
		}
	}
	if err := c.Apply(rest, r.Access); err != nil {
		return httpapi.Reply{}, timeline.ImportProblems(err, &im, beside)
	}
	w := im.Warnings
	if w == nil {
		w = []string{}
	}
	return r.Commit(func() error { return h.st.CreateCalendar(r.Context(), c) }, func() (httpapi.Reply, error) {
		j := importJSON{calendarJSON: render(r, c), Warnings: w}
		if err := r.ParseOwners(h.st, "calendar", ownerOf(&j.calendarJSON)); err != nil {
			return httpapi.Reply{}, err
		}
		return httpapi.One(j), nil
	})
}

// formValue is a form's value as JSON would carry it: a field sent once is its text, lists and
// nested fields (static_data[year_data][first_day]) keep their shape.
func formValue(v any) any {
	switch x := v.(type) {
	case []string:
		if len(x) == 1 {
			return x[0]
		}
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = formValue(e)
		}
		return out
	}
	return v
}
