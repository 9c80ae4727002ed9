package transfer

import (
	"encoding/json"
	"slices"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// importJSON is the calendar made from an import and what the export held that it could not.
type importJSON struct {
	calwire.Calendar
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
	// The climate of the export's custom location, unless sent beside (weather.go). The engine's
	// importer does not read it; its warning that weather is not imported is then not true.
	w := im.Warnings
	_, climateBeside := rest["weather_climate"]
	_, seedBeside := rest["weather_seed"]
	k, seed, withWeather := climateOf(body)
	withWeather = withWeather && !climateBeside && !seedBeside
	if withWeather {
		rest["weather_climate"], rest["weather_seed"] = k, seed
	}
	err = c.Apply(rest, r.Access)
	if err != nil && withWeather {
		// A climate the imported seasons do not fit: the calendar comes without it, as before.
		delete(rest, "weather_climate")
		delete(rest, "weather_seed")
		c = &timeline.Calendar{}
		c.CampaignID, c.CreatedBy = r.Access.CampaignID, r.Access.UserID
		withWeather, err = false, c.Apply(rest, r.Access)
	}
	if err != nil {
		return httpapi.Reply{}, timeline.ImportProblems(err, &im, beside)
	}
	if withWeather {
		w = slices.DeleteFunc(slices.Clone(w), func(s string) bool { return s == weatherNotImported })
	}
	if w == nil {
		w = []string{}
	}
	return r.Commit(func() error { return h.st.CreateCalendar(r.Context(), c) }, func() (httpapi.Reply, error) {
		j := importJSON{Calendar: calwire.Render(c), Warnings: w}
		if err := r.ParseOwners(h.st, "calendar", calwire.OwnerOf(&j.Calendar)); err != nil {
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
