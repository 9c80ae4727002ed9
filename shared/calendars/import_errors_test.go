package calendars_test

import (
	"encoding/json"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// exportBody is the test export decoded, with edit applied to a copy of it.
func exportBody(t *testing.T, edit func(ex, sd, yd map[string]any)) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("testdata/fantasy-calendar-export.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex map[string]any
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	sd := ex["static_data"].(map[string]any)
	edit(ex, sd, sd["year_data"].(map[string]any))
	return ex
}

func item(list any, i int) map[string]any { return list.([]any)[i].(map[string]any) }

// The test export's first moon is imported, its second (custom phases) dropped; its first
// season is imported, and both eras.
func TestMalformedImportsNameTheExportsField(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	path := apitest.Path(e.Campaign, "/calendars/import")
	long := strings.Repeat("n", 192)
	staticText := func(t *testing.T) string {
		b, _ := json.Marshal(exportBody(t, func(_, _, _ map[string]any) {})["static_data"])
		return string(b)
	}
	cases := []struct {
		name  string
		form  url.Values // sent as a form when set
		body  func(t *testing.T) any
		field string
		msg   string // the message's start, when it matters
	}{
		{name: "dynamic data pasted as text that is not JSON", field: "dynamic_data", msg: "The dynamic data must be JSON.",
			body: func(t *testing.T) any {
				return map[string]any{"name": "x", "static_data": staticText(t), "dynamic_data": "nope"}
			}},
		{name: "static data pasted as text that is not JSON", field: "static_data", msg: "The static data must be JSON.",
			body: func(t *testing.T) any {
				return map[string]any{"name": "x", "static_data": "{", "dynamic_data": `{"year":1}`}
			}},
		{name: "a form whose year data is not an object", field: "static_data.year_data",
			form: url.Values{"name": {"x"}, "static_data[year_data]": {"1"}}},
		{name: "a moon cycle that rounds to nothing", field: "static_data.moons.0.cycle", msg: "The cycle must be",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) { item(sd["moons"], 0)["cycle"] = json.Number("1e-300") })
			}},
		{name: "a moon cycle beyond the longest", field: "static_data.moons.0.cycle",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) { item(sd["moons"], 0)["cycle"] = 100000001 })
			}},
		{name: "a moon shift beyond the furthest", field: "static_data.moons.0.shift",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) { item(sd["moons"], 0)["shift"] = 2e9 })
			}},
		{name: "an era year beyond the calendar's range", field: "static_data.eras.0.date.year", msg: "The year must be",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) {
					item(sd["eras"], 0)["date"] = map[string]any{"year": json.Number("9223372036854775807")}
				})
			}},
		{name: "an era without a name", field: "static_data.eras.1.name", msg: "The name field is required.",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) { item(sd["eras"], 1)["name"] = "  " })
			}},
		{name: "a timespan name too long", field: "static_data.year_data.timespans.3.name", msg: "The name must not be greater than 191",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) { item(yd["timespans"], 3)["name"] = long })
			}},
		{name: "more timespans than a calendar holds", field: "static_data.year_data.timespans",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) {
					ts := make([]any, 101)
					for i := range ts {
						ts[i] = map[string]any{"name": "T", "length": 30}
					}
					yd["timespans"] = ts
				})
			}},
		{name: "a weekday too long", field: "static_data.year_data.global_week.1",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) { yd["global_week"].([]any)[1] = long })
			}},
		// Leap day 0: leap day 1 adds an unnamed weekday, which takes the leap day's name (and a
		// long one is then reported twice).
		{name: "a leap day name too long", field: "static_data.year_data.leap_days.0.name",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) { item(yd["leap_days"], 0)["name"] = long })
			}},
		{name: "a moon after a dropped one with a name too long", field: "static_data.moons.1.name",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) {
					moons := sd["moons"].([]any)
					sd["moons"] = []any{moons[1], moons[0]} // the custom-phase moon first: dropped
					item(sd["moons"], 1)["name"] = long
				})
			}},
		{name: "a moon colour too long", field: "static_data.moons.0.color",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) { item(sd["moons"], 0)["color"] = long })
			}},
		{name: "a season after an undated one with a name too long", field: "static_data.seasons.data.1.name",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) {
					seasons := sd["seasons"].(map[string]any)
					undated := map[string]any{"name": "Drift"}
					seasons["data"] = append([]any{undated}, seasons["data"].([]any)...)
					item(seasons["data"], 1)["name"] = long
				})
			}},
		{name: "a current year beyond the engine's range", field: "dynamic_data.year",
			body: func(t *testing.T) any {
				return exportBody(t, func(ex, _, _ map[string]any) {
					ex["dynamic_data"] = map[string]any{"year": json.Number("9223372036854775807"), "timespan": 0, "day": 1}
				})
			}},
		{name: "a current year beyond the API's range", field: "dynamic_data.year", msg: "The year must be between",
			body: func(t *testing.T) any {
				return exportBody(t, func(ex, _, _ map[string]any) {
					ex["dynamic_data"] = map[string]any{"year": json.Number("9007199254740993"), "timespan": 0, "day": 1}
				})
			}},
		{name: "a current day beyond its month", field: "dynamic_data.day",
			body: func(t *testing.T) any {
				return exportBody(t, func(ex, _, _ map[string]any) {
					ex["dynamic_data"] = map[string]any{"year": 1, "timespan": 2, "day": 31}
				})
			}},
		{name: "a first day outside the week", field: "static_data.year_data.first_day",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) { yd["first_day"] = 99 })
			}},
		// Type errors name the path with its indices (issue 38), not the struct path json gives.
		{name: "a timespan length that is not a number", field: "static_data.year_data.timespans.3.length",
			msg: "The export is not a Fantasy-Calendar export: the static_data.year_data.timespans.3.length field must be a number.",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) { item(yd["timespans"], 3)["length"] = true })
			}},
		{name: "a timespan that is not an object", field: "static_data.year_data.timespans.2",
			msg: "The export is not a Fantasy-Calendar export: the static_data.year_data.timespans.2 field must be an object.",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) { yd["timespans"].([]any)[2] = 30 })
			}},
		{name: "a timespan's week day that is not text", field: "static_data.year_data.timespans.5.week.1",
			msg: "The export is not a Fantasy-Calendar export: the static_data.year_data.timespans.5.week.1 field must be a string.",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) { item(yd["timespans"], 5)["week"] = []any{"a", 2} })
			}},
		{name: "a weekday that is not text", field: "static_data.year_data.global_week.4",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) { yd["global_week"].([]any)[4] = 7 })
			}},
		{name: "a moon name that is not text", field: "static_data.moons.1.name",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) { item(sd["moons"], 1)["name"] = 12 })
			}},
		{name: "a leap day's flag that is text", field: "static_data.year_data.leap_days.1.intercalary",
			msg: "The export is not a Fantasy-Calendar export: the static_data.year_data.leap_days.1.intercalary field must be true or false.",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, _, yd map[string]any) { item(yd["leap_days"], 1)["intercalary"] = "yes" })
			}},
		{name: "an era's setting that is text", field: "static_data.eras.1.settings.restart",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) { item(sd["eras"], 1)["settings"] = map[string]any{"restart": "no"} })
			}},
		{name: "a season's sunrise hour that is not a number", field: "static_data.seasons.data.0.time.sunrise.hour",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) {
					item(sd["seasons"].(map[string]any)["data"], 0)["time"] = map[string]any{"sunrise": map[string]any{"hour": []any{6}}}
				})
			}},
		{name: "a location's weather that is not a number", field: "static_data.seasons.locations.0.seasons.1.weather.temp_low",
			body: func(t *testing.T) any {
				return exportBody(t, func(_, sd, _ map[string]any) {
					sd["seasons"].(map[string]any)["locations"] = []any{map[string]any{"name": "Coast", "seasons": []any{
						map[string]any{"weather": map[string]any{"temp_low": 1}}, map[string]any{"weather": map[string]any{"temp_low": map[string]any{}}}}}}
				})
			}},
		{name: "a current date flag that is text", field: "dynamic_data.custom_location",
			msg: "The export is not a Fantasy-Calendar export: the dynamic_data.custom_location field must be true or false.",
			body: func(t *testing.T) any {
				return exportBody(t, func(ex, _, _ map[string]any) {
					ex["dynamic_data"] = map[string]any{"year": 1, "timespan": 0, "day": 1, "custom_location": "yes"}
				})
			}},
		{name: "the name that is not text", field: "name", msg: "The export is not a Fantasy-Calendar export: the name field must be a string.",
			body: func(t *testing.T) any {
				return exportBody(t, func(ex, _, _ map[string]any) { ex["name"] = 5 })
			}},
		{name: "a field sent beside the export keeps its name", field: "current_year",
			body: func(t *testing.T) any {
				return exportBody(t, func(ex, _, _ map[string]any) { ex["current_year"] = "soon" })
			}},
		{name: "is_private sent beside the export keeps its name", field: "is_private",
			body: func(t *testing.T) any {
				return exportBody(t, func(ex, _, _ map[string]any) { ex["is_private"] = "maybe" })
			}},
	}
	before := total(t, e, e.Campaign)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r apitest.Response
			if c.form != nil {
				r = e.DoRaw("POST", path, e.Admin, "application/x-www-form-urlencoded", strings.NewReader(c.form.Encode()))
			} else {
				r = e.Do("POST", path, e.Admin, c.body(t))
			}
			var keys []string
			for k := range r.Errors() {
				keys = append(keys, k)
			}
			if r.Status != 422 || !slices.Equal(keys, []string{c.field}) {
				t.Fatalf("got %d %s, want 422 naming only %q", r.Status, r.Raw, c.field)
			}
			if msg, _ := r.Body["message"].(string); !strings.HasPrefix(msg, c.msg) || !strings.HasPrefix(msg, "The ") {
				t.Fatalf("message %q, want it to start %q", msg, c.msg)
			}
		})
	}
	if after := total(t, e, e.Campaign); after != before {
		t.Fatalf("refused imports stored calendars: %v -> %v", before, after)
	}
}
