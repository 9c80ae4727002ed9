package calengine

import (
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// importWithEvents imports the Harptos test export with event_data replaced by events.
func importWithEvents(t *testing.T, events string) (Import, error) {
	t.Helper()
	data, err := os.ReadFile("testdata/fantasy-calendar-harptos.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex map[string]any
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	var ed any
	if err := json.Unmarshal([]byte(events), &ed); err != nil {
		t.Fatal(err)
	}
	ex["static_data"].(map[string]any)["event_data"] = ed
	body, _ := json.Marshal(ex)
	return ImportFantasyCalendar(body)
}

// TestImportFantasyCalendarEvents: each condition list Lorekeep expresses becomes a reminder
// with its recurrence; the others are warnings naming the event.
func TestImportFantasyCalendarEvents(t *testing.T) {
	t.Parallel()
	ptr := func(n int64) *int64 { return &n }
	cases := []struct {
		name, event string
		want        *ImportedEvent // nil: a warning naming the event
	}{
		{"yearly", `{"name":"New Dawn","description":"<p>first</p>","data":{"conditions":[["Month","0",["0"]],["&&"],["Day","0",["1"]]]},"settings":{"color":"Red"}}`,
			&ImportedEvent{Name: "New Dawn", Comment: "<p>first</p>", Colour: "#f44336", Start: d(0, 1, 1), Length: 1, Recurrence: Recurrence{Kind: RecurYearly}}},
		{"date", `{"name":"Battle","data":{"conditions":[["Date","0",[1492,2,5]]]}}`,
			&ImportedEvent{Name: "Battle", Start: d(1492, 3, 5), Length: 1}},
		{"one year", `{"name":"Once","data":{"conditions":[["Year","0",["1400"]],["&&"],["Month","0",["3"]],["&&"],["Day","0",["2"]]]}}`,
			&ImportedEvent{Name: "Once", Start: d(1400, 4, 2), Length: 1}},
		{"every 4th year from 1372, limited", `{"name":"Shield","data":{"limited_repeat":true,"limited_repeat_num":3,"conditions":[["Year","6",["4","0"]],["&&"],["Month","0",["9"]],["&&"],["Day","0",["1"]]]}}`,
			&ImportedEvent{Name: "Shield", Start: d(0, 10, 1), Length: 1, Rule: &Rule{Unit: UnitYears, Interval: 4, Count: 3}}},
		{"monthly with duration", `{"name":"Market","data":{"has_duration":true,"duration":3,"conditions":[["Day","0",["10"]]]}}`,
			&ImportedEvent{Name: "Market", Start: d(0, 1, 10), Length: 3, Recurrence: Recurrence{Kind: RecurMonthly}}},
		{"every 3rd month", `{"name":"Tithe","data":{"conditions":[["Month","13",["3","2"]],["&&"],["Day","0",["5"]]]}}`,
			&ImportedEvent{Name: "Tithe", Start: d(0, 3, 5), Length: 1, Rule: &Rule{Unit: UnitMonths, Interval: 3}}},
		{"every 10 days", `{"name":"Watch","data":{"conditions":[["Epoch","6",["10","3"]]]}}`,
			&ImportedEvent{Name: "Watch", Start: d(0, 1, 4), Length: 1, Rule: &Rule{Unit: UnitDays, Interval: 10}}},
		{"second weekday of the month", `{"name":"Council","data":{"conditions":[["Weekday","0",["II"]],["&&"],["Weekday","8",["2"]]]}}`,
			&ImportedEvent{Name: "Council", Start: d(0, 1, 1), Length: 1, Rule: &Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 1, Ordinal: 2}}},
		{"second weekday by its index (Fantasy-Calendar's numeric value)", `{"name":"Council","data":{"conditions":[["Weekday","0",["1"]],["&&"],["Weekday","8",[2]]]}}`,
			&ImportedEvent{Name: "Council", Start: d(0, 1, 1), Length: 1, Rule: &Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 1, Ordinal: 2}}},
		{"last weekday of the month", `{"name":"Dusk","data":{"conditions":[["Weekday","0",["V"]],["&&"],["Weekday","14",["1"]]]}}`,
			&ImportedEvent{Name: "Dusk", Start: d(0, 1, 1), Length: 1, Rule: &Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 4, Ordinal: LastOrdinal}}},
		{"second to last weekday of the month", `{"name":"Toll","data":{"conditions":[["Weekday","0",["III"]],["&&"],["Weekday","14",["2"]]]}}`,
			&ImportedEvent{Name: "Toll", Start: d(0, 1, 1), Length: 1, Rule: &Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 2, Ordinal: -2}}},
		{"weekday index beyond the week", `{"name":"Nowhen","data":{"conditions":[["Weekday","0",["10"]],["&&"],["Weekday","8",["1"]]]}}`, nil},
		{"both counts", `{"name":"Both","data":{"conditions":[["Weekday","0",["II"]],["&&"],["Weekday","8",["1"]],["&&"],["Weekday","14",["1"]]]}}`, nil},
		{"full moon, from a year, until a year", `{"name":"Howl","data":{"conditions":[["Year","2",["1300"]],["&&"],["Year","3",["1400"]],["&&"],["Moons","0",["0","12"]]]}}`,
			&ImportedEvent{Name: "Howl", Start: d(1300, 1, 1), Length: 1, Rule: &Rule{Unit: UnitMoon, Interval: 1, MoonID: 1, Phase: "full"}, RecurringUntil: ptr(1400)}},
		{"or", `{"name":"Either","data":{"conditions":[["Month","0",["0"]],["||"],["Day","0",["1"]]]}}`, nil},
		{"season", `{"name":"Solstice","data":{"conditions":[["Season","0",["1"]]]}}`, nil},
		{"weekday alone", `{"name":"Weekly","data":{"conditions":[["Weekday","0",["II"]]]}}`, nil},
		{"odd moon phase", `{"name":"Sliver","data":{"conditions":[["Moons","0",["0","1"]]]}}`, nil},
		{"no such month", `{"name":"Nowhen","data":{"conditions":[["Month","0",["99"]],["&&"],["Day","0",["1"]]]}}`, nil},
		{"huge duration", `{"name":"Forever","data":{"has_duration":true,"duration":1e9,"conditions":[["Day","0",["1"]]]}}`, nil},
		{"not an object", `"x"`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			im, err := importWithEvents(t, `{"categories":[],"events":[`+tc.event+`]}`)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(im.Events) != 0 || !strings.Contains(strings.Join(im.Warnings, "\n"), "Event ") {
					t.Fatalf("events %+v warnings %q", im.Events, im.Warnings)
				}
				return
			}
			if len(im.Events) != 1 || !reflect.DeepEqual(im.Events[0], *tc.want) {
				t.Fatalf("events %+v\nwant %+v (warnings %q)", im.Events, *tc.want, im.Warnings)
			}
			// A moon phase lasting days (Selûne: 30.4375 days, 24 phases) is imported on its
			// first day, with a warning naming the event.
			if multi := strings.Contains(strings.Join(im.Warnings, "\n"), "every day of the moon's phase"); multi != (tc.want.Rule != nil && tc.want.Rule.Unit == UnitMoon) {
				t.Fatalf("warnings %q", im.Warnings)
			}
		})
	}
}

// TestImportFantasyCalendarCategories: an event takes its category's name, and its colour and
// hiding when it has none of its own; categories are found by id or, without ids, by index.
func TestImportFantasyCalendarCategories(t *testing.T) {
	t.Parallel()
	im, err := importWithEvents(t, `{"categories":[{"id":7,"name":"Holiday","event_settings":{"color":"Green","hide":true}}],
		"events":[{"name":"A","event_category_id":7,"data":{"conditions":[["Day","0",["1"]]]}},
		{"name":"B","event_category_id":"7","settings":{"color":"Blue"},"data":{"conditions":[["Day","0",["1"]]]}},
		{"name":"C","event_category_id":3,"data":{"conditions":[["Day","0",["1"]]]}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Events) != 3 || im.Events[0].Category != "Holiday" || im.Events[0].Colour != "#4caf50" || !im.Events[0].Hidden ||
		im.Events[1].Colour != "#2196f3" || im.Events[2].Category != "" || im.Events[2].Hidden {
		t.Fatalf("%+v", im.Events)
	}
}

// TestImportFantasyCalendarEventsBounded: more than MaxImportEvents events are refused naming
// the field; none are read.
func TestImportFantasyCalendarEventsBounded(t *testing.T) {
	t.Parallel()
	evs := make([]string, MaxImportEvents+1)
	for i := range evs {
		evs[i] = `{"name":"E` + strconv.Itoa(i) + `","data":{"conditions":[["Day","0",["1"]]]}}`
	}
	_, err := importWithEvents(t, `{"events":[`+strings.Join(evs, ",")+`]}`)
	ve, ok := err.(*ValidationError)
	if !ok || len(ve.Problems) != 1 || ve.Problems[0].Field != "static_data.event_data.events" || !strings.Contains(ve.Problems[0].Message, "100") {
		t.Fatalf("%v", err)
	}
	if im, err := importWithEvents(t, `{"events":[`+strings.Join(evs[:MaxImportEvents], ",")+`]}`); err != nil || len(im.Events) != MaxImportEvents {
		t.Fatalf("%d events, %v", len(im.Events), err)
	}
}

// TestImportFantasyCalendarWeather: the current custom location's weather is the climate, one
// entry per season (temperatures as tenths, chances as per-mille), with the global seed.
func TestImportFantasyCalendarWeather(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/fantasy-calendar-harptos.json")
	if err != nil {
		t.Fatal(err)
	}
	with := func(loc any, custom bool, weather string) (Import, error) {
		var ex map[string]any
		_ = json.Unmarshal(data, &ex)
		se := ex["static_data"].(map[string]any)["seasons"].(map[string]any)
		se["global_settings"] = map[string]any{"enable_weather": true, "seed": 42}
		var w any
		_ = json.Unmarshal([]byte(weather), &w)
		se["locations"] = []any{map[string]any{"name": "Home", "seasons": w}}
		dyn := ex["dynamic_data"].(map[string]any)
		dyn["location"], dyn["custom_location"] = loc, custom
		body, _ := json.Marshal(ex)
		return ImportFantasyCalendar(body)
	}
	two := `[{"weather":{"temp_low":-5.5,"temp_high":3,"precipitation":0.25,"precipitation_intensity":0.5}},
		{"weather":{"temp_low":"15","temp_high":30.04,"precipitation":0.1,"precipitation_intensity":1}}]`
	im, err := with("0", true, two)
	if err != nil {
		t.Fatal(err)
	}
	want := &Climate{Seed: 42, Seasons: []ClimateSeason{{TempLow: -55, TempHigh: 30, Precipitation: 250, PrecipitationIntensity: 500},
		{TempLow: 150, TempHigh: 300, Precipitation: 100, PrecipitationIntensity: 1000}}}
	if !reflect.DeepEqual(im.Climate, want) {
		t.Fatalf("climate %+v", im.Climate)
	}
	// A built-in climate (a location by name) is Fantasy-Calendar's table, not the custom one
	// (TestImportFantasyCalendarBuiltinClimates).
	if im, err := with("Cool and Rainy", false, two); err != nil || im.Climate == nil || im.Climate.Seasons[0].TempLow != -150 {
		t.Fatalf("built-in climate: %+v %v %q", im.Climate, err, im.Warnings)
	}
	for field, bad := range map[string]string{
		"static_data.seasons.locations.0.seasons.1.weather":          `[{"weather":{"temp_low":1,"temp_high":2,"precipitation":0,"precipitation_intensity":0}}]`,
		"static_data.seasons.locations.0.seasons.0.weather.temp_low": `[{"weather":{"temp_low":"cold","temp_high":2,"precipitation":0,"precipitation_intensity":0}},{"weather":{"temp_low":1,"temp_high":2,"precipitation":0,"precipitation_intensity":0}}]`,
		"static_data.seasons.locations.0.seasons.0.temp_high":        `[{"weather":{"temp_low":5,"temp_high":2,"precipitation":0,"precipitation_intensity":0}},{"weather":{"temp_low":1,"temp_high":2,"precipitation":0,"precipitation_intensity":0}}]`,
	} {
		_, err := with(0, true, bad)
		ve, ok := err.(*ValidationError)
		if !ok || ve.Problems[0].Field != field {
			t.Errorf("%s: %v", field, err)
		}
	}
}

// TestImportFantasyCalendarBuiltinClimates: a location named by a Fantasy-Calendar preset
// (custom_location false) is one of Fantasy-Calendar's built-in climates: its table's seasons
// matched to the export's by name (else in order), Fahrenheit in tenths of a degree Celsius,
// chances per-mille, with the export's seed; an unknown name takes the first climate, and a
// calendar of other than 2 or 4 seasons has none, each with a warning.
func TestImportFantasyCalendarBuiltinClimates(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/fantasy-calendar-preset-gregorian.json")
	if err != nil {
		t.Fatal(err)
	}
	season := func(name string) map[string]any {
		return map[string]any{"name": name, "duration": 91, "transition_length": 0,
			"time": map[string]any{"sunrise": map[string]any{"hour": 6, "minute": 0}, "sunset": map[string]any{"hour": 18, "minute": 0}}}
	}
	coolRainy := []ClimateSeason{{TempLow: -150, TempHigh: 44, Precipitation: 350, PrecipitationIntensity: 600},
		{TempLow: 156, TempHigh: 294, Precipitation: 350, PrecipitationIntensity: 600}}
	cases := []struct {
		name, location string
		seasons        []string // nil: the preset's (Winter, Summer)
		want           []ClimateSeason
		warning        string // "": none about the weather
	}{
		{"the preset's own", "Cool and Rainy", nil, coolRainy, ""},
		{"matched by name", "Cool and Rainy", []string{"summer", "WINTER"}, []ClimateSeason{coolRainy[1], coolRainy[0]}, ""},
		{"in order when the names are others", "Desert", []string{"Dry", "Hot"},
			[]ClimateSeason{{TempLow: 128, TempHigh: 211, Precipitation: 50, PrecipitationIntensity: 100}, {TempLow: 183, TempHigh: 433, Precipitation: 50, PrecipitationIntensity: 800}}, ""},
		{"four seasons, Fall as Autumn", "Tundra", []string{"Spring", "Summer", "Fall", "Winter"},
			[]ClimateSeason{{TempLow: -178, TempHigh: -67, Precipitation: 100, PrecipitationIntensity: 100}, {TempLow: 17, TempHigh: 128, Precipitation: 100, PrecipitationIntensity: 100},
				{TempLow: -178, TempHigh: -67, Precipitation: 100, PrecipitationIntensity: 100}, {TempLow: -372, TempHigh: -261, Precipitation: 100, PrecipitationIntensity: 100}}, ""},
		{"four seasons, halves", "Cold Desert", []string{"Winter", "Spring", "Summer", "Autumn"},
			[]ClimateSeason{{TempLow: -139, TempHigh: -39, Precipitation: 200, PrecipitationIntensity: 100}, {TempLow: -14, TempHigh: 106, Precipitation: 250, PrecipitationIntensity: 125},
				{TempLow: 111, TempHigh: 250, Precipitation: 300, PrecipitationIntensity: 150}, {TempLow: -14, TempHigh: 106, Precipitation: 250, PrecipitationIntensity: 125}}, ""},
		{"an unknown name takes the first", "Nowhere", nil, coolRainy, `no built-in climate \"Nowhere\"`},
		{"three seasons have no table", "Cool and Rainy", []string{"A", "B", "C"}, nil, "2 or 4 seasons"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ex map[string]any
			_ = json.Unmarshal(data, &ex)
			if tc.seasons != nil {
				se := ex["static_data"].(map[string]any)["seasons"].(map[string]any)
				var list []any
				for _, n := range tc.seasons {
					list = append(list, season(n))
				}
				se["data"] = list
			}
			ex["dynamic_data"].(map[string]any)["location"] = tc.location
			body, _ := json.Marshal(ex)
			im, err := ImportFantasyCalendar(body)
			if err != nil {
				t.Fatal(err)
			}
			warnings := strings.Join(im.Warnings, "\n")
			if strings.Contains(warnings, "is not imported (its tables") {
				t.Fatalf("warnings %q", im.Warnings)
			}
			if tc.want == nil {
				if im.Climate != nil || !strings.Contains(warnings, tc.warning) {
					t.Fatalf("climate %+v, warnings %q", im.Climate, im.Warnings)
				}
				return
			}
			if im.Climate == nil || im.Climate.Seed != 826116802 || !reflect.DeepEqual(im.Climate.Seasons, tc.want) {
				t.Fatalf("climate %+v, want %+v (warnings %q)", im.Climate, tc.want, im.Warnings)
			}
			if tc.warning != "" && !strings.Contains(strconv.Quote(warnings), tc.warning) {
				t.Fatalf("warnings %q, want %s", im.Warnings, tc.warning)
			}
		})
	}
}
