package transfer

import (
	"encoding/json"
	"slices"
	"strconv"

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
var exportFields = []string{"name", "static_data", "dynamic_data", "events", "categories"}

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
	// The climate of the export's current custom location, read by the engine's importer,
	// unless a climate or seed is sent beside (which wins, like every field beside).
	_, climateBeside := rest["weather_climate"]
	_, seedBeside := rest["weather_seed"]
	if k := im.Climate; k != nil && !climateBeside && !seedBeside {
		num := func(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }
		climate := make([]any, len(k.Seasons))
		for i, cs := range k.Seasons {
			climate[i] = map[string]any{"temp_low": num(int64(cs.TempLow)), "temp_high": num(int64(cs.TempHigh)),
				"precipitation": num(int64(cs.Precipitation)), "precipitation_intensity": num(int64(cs.PrecipitationIntensity))}
		}
		rest["weather_climate"], rest["weather_seed"] = climate, num(k.Seed)
	}
	calwire.SinceTheBeginning(rest)
	if err := c.Apply(rest, r.Access); err != nil {
		return httpapi.Reply{}, timeline.ImportProblems(err, &im, beside)
	}
	w := im.Warnings
	if w == nil {
		w = []string{}
	}
	// The export's events, as reminders on the new calendar's entity, checked before anything is
	// written (so that an Idempotency-Key's stored answer, rendered before the calendar's
	// transaction, carries their warnings) and written right after the calendar: each whole or
	// not at all. A failure leaves the calendar (written) and says how many were not.
	evs, ew := timeline.ImportedReminders(c, im.Events, r.Access)
	w = append(w, ew...)
	write := func() error {
		if err := h.st.CreateCalendar(r.Context(), c); err != nil {
			return err
		}
		for _, ev := range evs {
			ev.EntityID, ev.CalendarID, ev.EntityPrivate = c.EntityID, c.ID, c.IsPrivate
		}
		if n, err := h.st.CreateImportedEvents(r.Context(), evs); err != nil {
			w = append(w, strconv.Itoa(len(evs)-n)+" of the "+strconv.Itoa(len(evs))+" events were not written; the calendar and the others were.")
		}
		return nil
	}
	return r.Commit(write, func() (httpapi.Reply, error) {
		j := importJSON{Calendar: calwire.Render(r, c), Warnings: w}
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
