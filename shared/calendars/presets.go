package calendars

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

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
// stored as a create stores one (two round trips), answered with the warnings. Every refusal
// names the export's field (static_data.moons.0.cycle), or the field sent beside it.
func (h handlers) importCalendar(r *httpapi.Request) (httpapi.Reply, error) {
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	export := map[string]any{}
	var bad domain.FieldErrors
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
	beside := map[string]bool{}
	for k, v := range in {
		if !slices.Contains(exportFields, k) && k != "preset" {
			rest[k], beside[k] = v, true
		}
	}
	if err := c.Apply(rest, r.Access); err != nil {
		return httpapi.Reply{}, exportErrors(err, &im, beside)
	}
	w := im.Warnings
	if w == nil {
		w = []string{}
	}
	return r.Commit(func() error { return h.st.CreateCalendar(r.Context(), c) }, func() (httpapi.Reply, error) {
		j := importJSON{calendarJSON: render(c), Warnings: w}
		if err := r.ParseOwners(h.st, "calendar", ownerOf(&j.calendarJSON)); err != nil {
			return httpapi.Reply{}, err
		}
		return httpapi.One(j), nil
	})
}

// exportErrors renames the create's field errors about what came from the export to the
// export's fields, through the converter's record of where each item came from; a field sent
// beside the export keeps its name. A message that names the create's field names the
// export's instead ("The month name.0 field is required." -> "The name field is required.").
func exportErrors(err error, im *calendar.Import, beside map[string]bool) error {
	var e *domain.Error
	if !errors.As(err, &e) || e.Fields == nil {
		return err
	}
	var out domain.FieldErrors
	for _, f := range e.Fields.Fields() {
		root, _, _ := strings.Cut(f, ".")
		to := f
		if !beside[root] {
			to = im.ExportField(f)
		}
		for _, m := range e.Fields.Messages(f) {
			if to != f && !calendar.ExportList(f) { // a whole list's message keeps its words
				m = renameAttribute(m, f, to)
			}
			out.Add(to, m)
		}
	}
	return out.Err()
}

// renameAttribute rewrites a Laravel-style message about field (or its last part, as an
// object's subfield is named) to name the last named part of to.
func renameAttribute(msg, field, to string) string {
	parts := strings.Split(to, ".")
	name := parts[len(parts)-1]
	for i := len(parts) - 1; i >= 0; i-- {
		if _, err := strconv.Atoi(parts[i]); err != nil {
			name = parts[i]
			break
		}
	}
	sub := field[strings.LastIndex(field, ".")+1:]
	for _, old := range []string{field, sub} {
		if p := "The " + domain.Label(old) + " "; strings.HasPrefix(msg, p) {
			return "The " + domain.Label(name) + " " + msg[len(p):]
		}
	}
	return msg
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
