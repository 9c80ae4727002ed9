package calengine

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// roundTripEvents imports preset (a testdata file name) with events as its top-level events,
// exports the calendar with the imported events, and imports that export again: the events of
// both imports, the export, and (strip) the second import with every event's own "lorekeep"
// part removed, as Fantasy-Calendar would read it.
func roundTripEvents(t *testing.T, preset, events string, strip bool) (first, second []ImportedEvent, ex Export) {
	t.Helper()
	data, err := os.ReadFile("testdata/" + preset)
	if err != nil {
		t.Fatal(err)
	}
	var x map[string]any
	if err := json.Unmarshal(data, &x); err != nil {
		t.Fatal(err)
	}
	var evs any
	if err := json.Unmarshal([]byte(events), &evs); err != nil {
		t.Fatal(err)
	}
	x["events"] = evs
	x["categories"] = []any{map[string]any{"id": "holiday", "name": "Holiday & Feast", "event_settings": map[string]any{"color": "Green"}}}
	body, _ := json.Marshal(x)
	im, err := ImportFantasyCalendar(body)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(im.Definition)
	if err != nil {
		t.Fatal(err)
	}
	// As the reminders hold them: the category is the comment's first paragraph.
	held := make([]ImportedEvent, len(im.Events))
	for i, ev := range im.Events {
		if ev.Category != "" {
			ev.Comment = "<p>Category: " + strings.ReplaceAll(ev.Category, "&", "&amp;") + "</p>" + ev.Comment
			ev.Category = ""
		}
		held[i] = ev
	}
	ex, err = c.ExportFantasyCalendar(im.Name, im.Date, im.Time, held...)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(ex)
	if strip {
		var y map[string]any
		_ = json.Unmarshal(out, &y)
		for _, e := range y["events"].([]any) {
			delete(e.(map[string]any), "lorekeep")
		}
		out, _ = json.Marshal(y)
	}
	again, err := ImportFantasyCalendar(out)
	if err != nil {
		t.Fatal(err)
	}
	return im.Events, again.Events, ex
}

// presetHolidays are holidays as Fantasy-Calendar's presets write them (fixed days of a month,
// with categories and colours), and the recurrences Lorekeep maps.
const presetHolidays = `[
	{"name":"New Year","description":"<p>the first</p>","event_category_id":"holiday","data":{"conditions":[["Month","0",["0"]],["&&"],["Day","0",["1"]]]},"settings":{"color":"Red","hide":false}},
	{"name":"Feast","description":"","event_category_id":"holiday","data":{"has_duration":true,"duration":3,"conditions":[["Month","0",["1"]],["&&"],["Day","0",["5"]]]},"settings":{"color":"","hide":true}},
	{"name":"Battle","description":"","data":{"conditions":[["Date","0",[1000,2,3]]]},"settings":{"color":"Blue"}},
	{"name":"Market","data":{"conditions":[["Day","0",["10"]]]}},
	{"name":"Every fourth year","data":{"limited_repeat":true,"limited_repeat_num":5,"conditions":[["Year","6",["4","1"]],["&&"],["Month","0",["2"]],["&&"],["Day","0",["2"]]]}},
	{"name":"Second","data":{"conditions":[["Weekday","0",["1"]],["&&"],["Weekday","8",["2"]]]}},
	{"name":"Last","data":{"conditions":[["Weekday","0",["3"]],["&&"],["Weekday","14",["1"]]]}},
	{"name":"Watch","data":{"conditions":[["Epoch","6",["10","3"]]]}},
	{"name":"From a year","data":{"conditions":[["Year","2",["900"]],["&&"],["Year","3",["1200"]],["&&"],["Month","0",["3"]],["&&"],["Day","0",["4"]]]}}
]`

// TestExportKeepsImportedEvents: export(import(x)) writes the events the import made reminders
// of (each preset's holidays) back as Fantasy-Calendar events, so that importing the export
// gives the same reminders: with Lorekeep's own part, and from the conditions alone (what
// Fantasy-Calendar reads).
func TestExportKeepsImportedEvents(t *testing.T) {
	t.Parallel()
	cases := []struct {
		preset string
		strip  bool
		n      int // the holidays imported (Harptos' second month is Midwinter, one day: no Feast)
	}{
		{"fantasy-calendar-preset-gregorian.json", false, 9},
		{"fantasy-calendar-preset-gregorian.json", true, 9},
		{"fantasy-calendar-preset-exandria.json", false, 9},
		{"fantasy-calendar-preset-exandria.json", true, 9},
		{"fantasy-calendar-preset-forgotten-realms.json", false, 8},
		{"fantasy-calendar-preset-forgotten-realms.json", true, 8},
	}
	for _, tc := range cases {
		name := tc.preset
		if tc.strip {
			name += " (conditions alone)"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			first, second, ex := roundTripEvents(t, tc.preset, presetHolidays, tc.strip)
			if len(first) != tc.n {
				t.Fatalf("imported %d events: %+v", len(first), first)
			}
			if tc.strip { // Fantasy-Calendar's default colour, written for an event without one
				for i := range first {
					if first[i].Colour == "" {
						first[i].Colour = "#444444"
					}
				}
			}
			if !reflect.DeepEqual(first, second) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", second, first)
			}
			if len(ex.Categories) != 1 || ex.Categories[0].(map[string]any)["id"] != "holiday-and-feast" {
				t.Fatalf("categories %+v", ex.Categories)
			}
		})
	}
}

// TestExportEventsFantasyCalendarShapes pins what Fantasy-Calendar reads of an exported
// reminder: its conditions, colour name, category and the values its importer requires.
func TestExportEventsFantasyCalendarShapes(t *testing.T) {
	t.Parallel()
	p, _ := PresetByKey("gregorian")
	c := mustNew(t, p.Definition)
	u := int64(2030)
	cases := []struct {
		name  string
		ev    ImportedEvent
		conds string
		color string
		note  string
	}{
		{"one day", ImportedEvent{Name: "Once", Start: d(2000, 3, 4), Length: 1}, `[["Date","0",[2000,2,4]]]`, "Dark-Solid", ""},
		{"yearly from a year until one", ImportedEvent{Name: "Y", Start: d(1990, 12, 25), Length: 1, Recurrence: Recurrence{Kind: RecurYearly}, RecurringUntil: &u, Colour: "#f44336"},
			`[["Year","2",[1990]],["&&"],["Month","0",[11]],["&&"],["Day","0",[25]],["&&"],["Year","3",[2030]]]`, "Red", ""},
		{"last friday", ImportedEvent{Name: "F", Start: d(0, 1, 1), Length: 1, Rule: &Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 4, Ordinal: -1}, Colour: "light-blue"},
			`[["Weekday","0",["Friday"]],["&&"],["Weekday","14",[1]]]`, "Light-Blue", ""},
		{"full moon", ImportedEvent{Name: "M", Start: d(0, 1, 1), Length: 1, Recurrence: Recurrence{Kind: RecurMoon, MoonID: 1, Phase: "full"}},
			`[["Moons","0",[0,4]]]`, "Dark-Solid", ""},
		{"other colour", ImportedEvent{Name: "C", Start: d(0, 1, 1), Length: 1, Colour: "#123456"}, `[["Date","0",[0,0,1]]]`, "Dark-Solid", "none of Fantasy-Calendar's"},
		{"weekday of the year", ImportedEvent{Name: "W", Start: d(5, 1, 1), Length: 1, Rule: &Rule{Unit: UnitYearWeekday, Interval: 1, Weekday: 4, Ordinal: 3}},
			`[["Date","0",[5,0,1]]]`, "Dark-Solid", "first day only"},
		{"monthly from March", ImportedEvent{Name: "Mo", Start: d(0, 3, 9), Length: 1, Recurrence: Recurrence{Kind: RecurMonthly}}, `[["Day","0",[9]]]`, "Dark-Solid", "first month"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var warnings []string
			evs, _ := c.exportEvents([]ImportedEvent{tc.ev}, func(s string) { warnings = append(warnings, s) })
			e := evs[0].(map[string]any)
			data := e["data"].(map[string]any)
			got, _ := json.Marshal(data["conditions"])
			if got = []byte(strings.ReplaceAll(string(got), `\u0026`, "&")); string(got) != tc.conds || e["settings"].(map[string]any)["color"] != tc.color {
				t.Fatalf("conditions %s colour %v", got, e["settings"])
			}
			if (tc.note == "") != (len(warnings) == 0) || tc.note != "" && !strings.Contains(warnings[0], tc.note) {
				t.Fatalf("warnings %q, want %q", warnings, tc.note)
			}
			for _, k := range []string{"duration", "limited_repeat_num", "connected_events", "date"} {
				if _, ok := data[k]; !ok {
					t.Fatalf("no data.%s (Fantasy-Calendar's importer requires it)", k)
				}
			}
		})
	}
}
