package calengine

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestImportFantasyCalendar(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/fantasy-calendar-harptos.json")
	if err != nil {
		t.Fatal(err)
	}
	im, err := ImportFantasyCalendar(data)
	if err != nil {
		t.Fatal(err)
	}
	def := im.Definition
	if im.Name != "Harptos & friends" {
		t.Errorf("name %q", im.Name)
	}
	if len(def.Months) != 17 || !reflect.DeepEqual(def.Months[1], Month{Name: "Midwinter", Length: 1, Type: Intercalary}) || def.Months[0].Type != Standard {
		t.Errorf("months %+v", def.Months)
	}
	// Nightal appears every 2 years and has its own week.
	if m := def.Months[16]; m.Interval != "2" || m.Offset != 0 || !reflect.DeepEqual(m.Weekdays, []string{"a", "b"}) {
		t.Errorf("Nightal %+v", m)
	}
	if len(def.Weekdays) != 10 || def.StartOffset != 2 || def.SkipYearZero {
		t.Errorf("week %v, start offset %d, skip zero %v", def.Weekdays, def.StartOffset, def.SkipYearZero)
	}
	wantLeaps := []LeapDay{
		{Name: "Shieldmeet", Month: 10, Interval: "4", Intercalary: true},            // Midsummer is intercalary: appended
		{Name: "Greg", Month: 1, Interval: "400,!100,4", Offset: 1, Weekday: "Greg"}, // adds a weekday, unnamed: the leap day's name
	}
	if !reflect.DeepEqual(def.LeapDays, wantLeaps) {
		t.Errorf("leap days %+v", def.LeapDays)
	}
	// New moons at shift (mod cycle): the full moon is half a cycle earlier; without a
	// cycle_rounding, Fantasy-Calendar rounds.
	// The custom moon "0,1,2" counts from the new moon in 4 phases: 2, 3, 0 from the full moon;
	// its cycle is its length.
	if len(def.Moons) != 2 || !reflect.DeepEqual(def.Moons[0], Moon{ID: 1, Name: "Selûne", Fullmoon: "30.4375", Offset: "-14.71875", Colour: "#ffffff", Granularity: 24, Rounding: "round"}) ||
		!reflect.DeepEqual(def.Moons[1], Moon{ID: 2, Name: "Odd", Fullmoon: "3", Offset: "-1.5", Colour: "#ff0000", Granularity: 4, CustomCycle: []int{2, 3, 0}}) {
		t.Errorf("moons %+v", def.Moons)
	}
	if !reflect.DeepEqual(def.Seasons, []Season{{Name: "Winter", Month: 17, Day: 20}, {Name: "Summer", Month: 8, Day: 20}}) {
		t.Errorf("seasons %+v", def.Seasons)
	}
	if !reflect.DeepEqual(def.Eras, []Era{{Name: "Dalereckoning", Abbreviation: "DR", Year: 1}, {Name: "Time of Troubles", Abbreviation: "ToT", Year: 1358, Restart: true, Month: 3, Day: 5, EndsYear: true}}) {
		t.Errorf("eras %+v", def.Eras)
	}
	if im.Date != (Date{1492, 10, 1}) {
		t.Errorf("date %v", im.Date)
	}
	// Nothing the calendar cannot hold goes silently.
	all := strings.Join(im.Warnings, "\n")
	for _, want := range []string{
		`Era "Time of Troubles": its description`, `Event "Greengrass" is not imported`, `Event "Midsummer" is not imported`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning containing %q in\n%s", want, all)
		}
	}
	// The clock, the year cycles and the built-in climate are the calendar's now, not warnings.
	if im.Climate == nil || len(im.Climate.Seasons) != 2 {
		t.Errorf("climate %+v", im.Climate)
	}
	for _, gone := range []string{"weather", "clock", "year cycle", "Nightal", "Greg", "Odd", "starts within its year", "ends its year"} {
		if strings.Contains(all, gone) {
			t.Errorf("a warning still mentions %q:\n%s", gone, all)
		}
	}
	if def.Clock == nil || *def.Clock != (Clock{Hours: 24, Minutes: 60}) || im.Time != (Time{Hour: 9, Minute: 30}) {
		t.Errorf("clock %+v, time %+v", def.Clock, im.Time)
	}
	if !reflect.DeepEqual(def.Cycles, []Cycle{{Length: 4, Names: []string{"a", "b", "c", "d"}}}) {
		t.Errorf("cycles %+v", def.Cycles)
	}
	c := mustNew(t, def)
	// The imported Selûne is new on FC's shift: day 0.5 → phase "new" begins on day 0 or 1.
	got := c.MoonPhases(0, 1)
	if len(got) == 0 || got[0].Phase != "new" {
		t.Errorf("moon phases at the start %+v", got)
	}
}

func TestImportFantasyCalendarProblems(t *testing.T) {
	t.Parallel()
	base := func(edit string) string {
		return `{"name": "X", "static_data": {"year_data": {"first_day": 1, "global_week": ["a", "b"],
			"timespans": [{"name": "A", "type": "month", "length": 10}, {"name": "B", "type": "month", "length": 10}],
			"leap_days": [` + edit + `]}}, "dynamic_data": {"year": 3, "timespan": 1, "day": 4}}`
	}
	tests := []struct {
		name, body, field string
	}{
		{"not JSON", `{`, "static_data"},
		{"a date format past 191 characters", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1}, {"name": "B", "length": 1}]}, "format": "` + strings.Repeat("d", 192) + `"}}`, "static_data.format"},
		{"an era ending its year twice", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 3}, {"name": "B", "length": 3}]}, "eras": [{"name": "E", "settings": {"ends_year": true}, "date": {"year": 2, "timespan": 0, "day": 2}}, {"name": "F", "settings": {"ends_year": true}, "date": {"year": 2, "timespan": 1, "day": 1}}]}}`, "static_data.eras.1.settings.ends_year"},
		{"no name", `{"static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1}, {"name": "B", "length": 1}]}}}`, "name"},
		{"no static data", `{"name": "X"}`, "static_data.year_data"},
		{"static data not an object", `{"name": "X", "static_data": 4}`, "static_data"},
		{"one timespan", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1}]}}}`, "static_data.year_data.timespans"},
		{"bad timespan type", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1, "type": "week"}, {"name": "B", "length": 1}]}}}`, "static_data.year_data.timespans.0.type"},
		{"zero length", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 0}, {"name": "B", "length": 1}]}}}`, "static_data.year_data.timespans.0.length"},
		{"one weekday", `{"name": "X", "static_data": {"year_data": {"global_week": ["a"], "timespans": [{"name": "A", "length": 1}, {"name": "B", "length": 1}]}}}`, "static_data.year_data.global_week"},
		{"bad interval", base(`{"name": "L", "timespan": 0, "interval": "4,x"}`), "static_data.year_data.leap_days.0.interval"},
		{"leap day timespan out of range", base(`{"name": "L", "timespan": 2, "interval": "4"}`), "static_data.year_data.leap_days.0.timespan"},
		{"leap day beyond the month", base(`{"name": "L", "timespan": 0, "intercalary": true, "day": 11, "interval": "4"}`), "static_data.year_data.leap_days.0.day"},
		{"current timespan out of range", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1}, {"name": "B", "length": 1}]}}, "dynamic_data": {"year": 1, "timespan": 2, "day": 1}}`, "dynamic_data.timespan"},
		{"current day beyond the month", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1}, {"name": "B", "length": 1}]}}, "dynamic_data": {"year": 1, "timespan": 1, "day": 2}}`, "dynamic_data.day"},
		{"moon cycle that rounds to nothing", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1}, {"name": "B", "length": 1}]}, "moons": [{"name": "M", "cycle": 1e-300}]}}`, "static_data.moons.0.cycle"},
		{"moon shift too far, after a dropped moon", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1}, {"name": "B", "length": 1}]}, "moons": [{"name": "C", "custom_phase": true, "custom_cycle": "0,1"}, {"name": "M", "cycle": 2, "shift": 2e9}]}}`, "static_data.moons.1.shift"},
		{"custom cycle not phases", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1}, {"name": "B", "length": 1}]}, "moons": [{"name": "C", "custom_phase": true, "custom_cycle": "0,x"}]}}`, "static_data.moons.0.custom_cycle"},
		{"custom cycle missing", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 1}, {"name": "B", "length": 1}]}, "moons": [{"name": "C", "custom_phase": true}]}}`, "static_data.moons.0.custom_cycle"},
		{"timespan interval zero", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 2}, {"name": "B", "length": 1, "interval": 0}]}}}`, "static_data.year_data.timespans.1.interval"},
		{"only interval timespans", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 2, "interval": 2}, {"name": "B", "length": 1, "interval": 3}]}}}`, "static_data.year_data.timespans"},
		{"era day beyond its timespan", `{"name": "X", "static_data": {"year_data": {"global_week": ["a", "b"], "timespans": [{"name": "A", "length": 2}, {"name": "B", "length": 1}]}, "eras": [{"name": "E", "date": {"year": 1, "timespan": 1, "day": 2}}]}}`, "static_data.eras.0.date"},
	}
	for _, tt := range tests {
		_, err := ImportFantasyCalendar([]byte(tt.body))
		ve, ok := err.(*ValidationError)
		if !ok || len(ve.Problems) == 0 || ve.Problems[0].Field != tt.field {
			t.Errorf("%s: %v; want a problem on %s", tt.name, err, tt.field)
		}
	}
	if _, err := ImportFantasyCalendar([]byte(base(`{"name": "L", "timespan": 0, "intercalary": true, "day": 5, "interval": "400,!100,4"}`))); err != nil {
		t.Errorf("valid export refused: %v", err)
	}
}

func TestImportExportFieldMapsThroughDroppedItems(t *testing.T) {
	t.Parallel()
	im := &Import{}
	im.From.Moons, im.From.Seasons, im.From.LeapDays, im.From.Eras = []int{1, 3}, []int{2}, []int{0, 1}, []int{0, 4}
	for field, want := range map[string]string{
		"name":                  "name",
		"month_name.3":          "static_data.year_data.timespans.3.name",
		"month_length":          "static_data.year_data.timespans",
		"weekday.1":             "static_data.year_data.global_week.1",
		"start_offset":          "static_data.year_data.first_day",
		"moon_fullmoon.1":       "static_data.moons.3.cycle",
		"moon_offset.0":         "static_data.moons.1.shift",
		"moon_id.0":             "static_data.moons.1",
		"moon_name.7":           "static_data.moons",
		"season_day.0":          "static_data.seasons.data.2.day",
		"leap_days.1.month":     "static_data.year_data.leap_days.1.timespan",
		"leap_days.0.interval":  "static_data.year_data.leap_days.0.interval",
		"eras.1.year":           "static_data.eras.4.date.year",
		"eras.1.restart":        "static_data.eras.4.settings.restart",
		"eras":                  "static_data.eras",
		"current_month":         "dynamic_data.timespan",
		"skip_year_zero":        "static_data.settings.year_zero_exists",
		"something_not_from_it": "static_data",
	} {
		if got := im.ExportField(field); got != want {
			t.Errorf("ExportField(%q) = %q, want %q", field, got, want)
		}
	}
}
