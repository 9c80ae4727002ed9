package calengine

import (
	"encoding/json"
	"html"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// canonical writes def the way an import answers it, so that two definitions of the same
// calendar compare equal: Kanka's leap fields as the rule they stand for, moon numbers as
// their shortest decimals, empty lists and maps as nil.
func canonical(t *testing.T, def Definition) Definition {
	t.Helper()
	c, err := New(def)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	d := c.Definition()
	var rules []LeapDay
	for _, l := range c.leaps {
		if l.monthRule {
			continue
		}
		r := l.LeapDay
		if r.Amount == 1 {
			r.Amount = 0
		}
		if r.Day != nil && *r.Day == def.Months[r.Month-1].Length {
			r.Day = nil // after the last day: the same place as no day
		}
		rules = append(rules, r)
	}
	d.LeapDays = rules
	d.HasLeapYear, d.LeapYearAmount, d.LeapYearMonth, d.LeapYearOffset, d.LeapYearStart = false, 0, 0, 0, 0
	for i, m := range d.Moons {
		d.Moons[i].Fullmoon = canonicalDecimal(t, m.Fullmoon)
		d.Moons[i].Offset = canonicalDecimal(t, m.Offset)
		if m.Colour == "" {
			d.Moons[i].Colour = "grey" // what the API and an import make of no colour
		}
	}
	if len(d.Years) == 0 {
		d.Years = nil
	}
	d.StartOffset = int(c.startOffset)
	return d
}

func canonicalDecimal(t *testing.T, s string) string {
	t.Helper()
	if s == "" {
		return "0"
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("not a decimal: %q", s)
	}
	out, _ := decimalText(r)
	return out
}

func exportBytes(t *testing.T, c *Calendar, name string, d Date, tm Time) []byte {
	t.Helper()
	ex, err := c.ExportFantasyCalendar(name, d, tm)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every Lorekeep preset comes back from its own export unchanged: import(export(c)) = c.
func TestExportRoundTripLorekeepPresets(t *testing.T) {
	t.Parallel()
	for _, p := range Presets() {
		t.Run(p.Key, func(t *testing.T) {
			def := p.Definition
			// Give the preset what it lacks so that every field travels: a clock and a cycle.
			def.Clock = &Clock{Hours: 20, Minutes: 100, Offset: 3}
			def.Cycles = []Cycle{{Length: 2, Offset: -5, Names: []string{"Rat & <Ox>", "Tiger"}}}
			def.CycleFormat = "Year of the {{1}}"
			c := mustNew(t, def)
			tm := Time{Hour: 19, Minute: 99}
			im, err := ImportFantasyCalendar(exportBytes(t, c, p.Name+" & co", p.Date, tm))
			if err != nil {
				t.Fatalf("import of the export: %v", err)
			}
			if im.Name != p.Name+" & co" || im.Date != p.Date || im.Time != tm {
				t.Errorf("name %q, date %v, time %v", im.Name, im.Date, im.Time)
			}
			if got, want := canonical(t, im.Definition), canonical(t, def); !reflect.DeepEqual(got, want) {
				t.Errorf("definition changed by the round trip\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// A calendar with each rule the export carries beyond Fantasy-Calendar's fields keeps them.
func TestExportRoundTripLorekeepOnlyFields(t *testing.T) {
	t.Parallel()
	from, day := int64(12), 3
	def := Definition{
		Months:   []Month{{Name: "A", Length: 10}, {Name: "B", Length: 5, Type: Intercalary}, {Name: "C", Length: 7}},
		Weekdays: []string{"x", "y", "z"}, StartOffset: -4, SkipYearZero: true, Suffix: "AR",
		Years:      map[int64]string{-3: "Dark", 7: "Bright"},
		LeapDays:   []LeapDay{{Name: "Odd", Month: 1, Day: &day, Interval: "5,!2", Offset: 1, FromYear: &from, Amount: 3}},
		Moons:      []Moon{{ID: 7, Name: "Blue", Fullmoon: "12.25", Offset: "-1.5", Colour: "blue"}, {ID: 2, Name: "Hex", Fullmoon: "3", Colour: "#abc"}},
		Seasons:    []Season{{Name: "Late", Month: 3, Day: 2}, {Name: "Early", Month: 1, Day: 1}},
		Eras:       []Era{{Name: "First", Abbreviation: "F", Year: -100, Restart: true}},
		DateFormat: "d/m/y s",
	}
	c := mustNew(t, def)
	ex, err := c.ExportFantasyCalendar("X", Date{Year: 5, Month: 2, Day: 3}, Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Odd" comes after day 3`, `"Odd" starts in year 12`, `"Odd" adds 3 days`, "year names", "suffix", "date format"} {
		if !strings.Contains(strings.Join(ex.Warnings, "\n"), want) {
			t.Errorf("no warning containing %q in %q", want, ex.Warnings)
		}
	}
	im, err := ImportFantasyCalendar(exportBytes(t, c, "X", Date{Year: 5, Month: 2, Day: 3}, Time{}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canonical(t, im.Definition), canonical(t, def); !reflect.DeepEqual(got, want) {
		t.Errorf("definition changed by the round trip\n got %+v\nwant %+v", got, want)
	}
	var static map[string]any
	if err := json.Unmarshal(ex.StaticData, &static); err != nil {
		t.Fatal(err)
	}
	moons := static["moons"].([]any)
	if m := moons[0].(map[string]any); m["color"] != "#0000ff" || m["colour"] != "blue" || m["shift"] != 4.625 {
		t.Errorf("a named colour is written as hex for Fantasy-Calendar: %v", m)
	}
	if m := moons[1].(map[string]any); m["color"] != "#abc" || m["colour"] != nil || m["shift"] != 1.5 {
		t.Errorf("a hex colour is written as it is: %v", m)
	}
}

// fcValue reads a path ("static_data.year_data.timespans.0.name") of a decoded export;
// nil when it is absent.
func fcValue(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// Each of Fantasy-Calendar's presets (and the feature-complete test export): what Lorekeep
// imports comes back unchanged from its export (import(export(import(x))) = import(x)), and
// the export keeps the fields of x that Lorekeep models, with their values.
func TestExportRoundTripFantasyCalendarFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/fantasy-calendar-*.json")
	if err != nil || len(files) < 4 {
		t.Fatalf("test exports: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			x, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			im1, err := ImportFantasyCalendar(x)
			if err != nil {
				t.Fatal(err)
			}
			c := mustNew(t, im1.Definition)
			out := exportBytes(t, c, im1.Name, im1.Date, im1.Time)
			im2, err := ImportFantasyCalendar(out)
			if err != nil {
				t.Fatalf("import of the export: %v", err)
			}
			if im2.Name != im1.Name || im2.Date != im1.Date || im2.Time != im1.Time {
				t.Errorf("name %q/%q, date %v/%v, time %v/%v", im2.Name, im1.Name, im2.Date, im1.Date, im2.Time, im1.Time)
			}
			if got, want := canonical(t, im2.Definition), canonical(t, im1.Definition); !reflect.DeepEqual(got, want) {
				t.Errorf("definition changed by the round trip\n got %+v\nwant %+v", got, want)
			}
			var in, back any
			if json.Unmarshal(x, &in) != nil || json.Unmarshal(out, &back) != nil {
				t.Fatal("not JSON")
			}
			// The fields Lorekeep models, for every item of x it imported.
			paths := []string{"name", "static_data.year_data.first_day", "static_data.year_data.overflow", "dynamic_data.year", "dynamic_data.hour", "dynamic_data.minute"}
			for i := range im1.Definition.Months {
				for _, k := range []string{"name", "type", "length", "interval", "week"} {
					paths = append(paths, "static_data.year_data.timespans."+strconv.Itoa(i)+"."+k)
				}
				if !MonthEveryYear(im1.Definition.Months[i]) {
					paths = append(paths, "static_data.year_data.timespans."+strconv.Itoa(i)+".offset")
				}
			}
			for i := range im1.Definition.Weekdays {
				paths = append(paths, "static_data.year_data.global_week."+strconv.Itoa(i))
			}
			for j, i := range im1.From.LeapDays {
				for _, k := range []string{"name", "intercalary", "timespan", "interval", "offset", "adds_week_day", "not_numbered"} {
					paths = append(paths, "static_data.year_data.leap_days."+strconv.Itoa(i)+"."+k+"|"+"static_data.year_data.leap_days."+strconv.Itoa(j)+"."+k)
				}
			}
			for j, i := range im1.From.Moons {
				for _, k := range []string{"name", "cycle", "shift", "color", "custom_phase", "custom_cycle", "hidden", "granularity"} {
					paths = append(paths, "static_data.moons."+strconv.Itoa(i)+"."+k+"|static_data.moons."+strconv.Itoa(j)+"."+k)
				}
			}
			for j, i := range im1.From.Eras {
				for _, k := range []string{"name", "abbreviation", "date.year", "settings.restart", "date.timespan", "date.day", "settings.ends_year"} {
					paths = append(paths, "static_data.eras."+strconv.Itoa(i)+"."+k+"|static_data.eras."+strconv.Itoa(j)+"."+k)
				}
			}
			for j, i := range im1.From.Seasons {
				keys := []string{"name", "time.sunrise.hour", "time.sunrise.minute", "time.sunset.hour", "time.sunset.minute"}
				if im1.Definition.PeriodicSeasons {
					keys = append(keys, "duration", "transition_length")
				} else {
					keys = append(keys, "timespan", "day")
				}
				for _, k := range keys {
					paths = append(paths, "static_data.seasons.data."+strconv.Itoa(i)+"."+k+"|static_data.seasons.data."+strconv.Itoa(j)+"."+k)
				}
			}
			if im1.Definition.PeriodicSeasons {
				paths = append(paths, "static_data.seasons.global_settings.season_offset")
			}
			for j, i := range im1.From.Cycles {
				for _, k := range []string{"length", "names"} {
					paths = append(paths, "static_data.cycles.data."+strconv.Itoa(i)+"."+k+"|static_data.cycles.data."+strconv.Itoa(j)+"."+k)
				}
			}
			if fcValue(in, "static_data.clock.enabled") == true {
				paths = append(paths, "static_data.clock.hours", "static_data.clock.minutes", "static_data.clock.offset")
			}
			for _, p := range paths {
				from, to, ok := strings.Cut(p, "|")
				if !ok {
					to = from
				}
				a, b := fcValue(in, from), fcValue(back, to)
				if from == "static_data.year_data.first_day" && a == nil {
					a = 1.0
				}
				if (from == "dynamic_data.hour" || from == "dynamic_data.minute") && fcValue(in, "static_data.clock.enabled") != true {
					continue // no clock: no time
				}
				if a == nil && fcDefault(from, b) {
					continue // absent in x: Fantasy-Calendar's default, or what Lorekeep derives (a custom moon's cycle)
				}
				if strings.HasSuffix(from, ".granularity") && fcValue(in, strings.TrimSuffix(from, "granularity")+"custom_phase") == true {
					continue // a custom cycle's sprites are sized by the cycle, as Fantasy-Calendar's editor does
				}
				if era := strings.TrimSuffix(from, "date.year"); era != from && fcValue(in, era+"settings.starting_era") == true {
					// Fantasy-Calendar's starting era holds every date before the next one,
					// whatever its date: since the beginning, written back as a starting era.
					if fcValue(back, strings.TrimSuffix(to, "date.year")+"settings.starting_era") != true {
						t.Errorf("%s: a starting era that is not one after the round trip", p)
					}
					continue
				}
				if strings.HasSuffix(from, ".date.day") && fcNorm(a, from) == 0.0 && fcNorm(b, to) == 1.0 {
					continue // day 0 of the first timespan is the year's start
				}
				if !reflect.DeepEqual(fcNorm(a, from), fcNorm(b, to)) {
					t.Errorf("%s: %v (%T) in the export, %v (%T) after the round trip", p, a, a, b, b)
				}
			}
		})
	}
}

// fcNorm reads a value as Fantasy-Calendar does: numbers whether written as numbers or text
// (but intervals, which are text), text HTML-unescaped, a missing abbreviation empty.
func fcNorm(v any, path string) any {
	switch x := v.(type) {
	case nil:
		if strings.HasSuffix(path, "abbreviation") {
			return ""
		}
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil && (!strings.HasSuffix(path, "interval") || strings.Contains(path, "timespans")) {
			return f
		}
		return html.UnescapeString(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = fcNorm(x[i], path)
		}
		return out
	}
	return v
}

// fcDefault reports whether a field absent from an export may come back as b: the value
// Fantasy-Calendar assumes, or one Lorekeep derives.
func fcDefault(path string, b any) bool {
	switch {
	case strings.HasSuffix(path, ".cycle"), strings.HasSuffix(path, ".shift"), strings.HasSuffix(path, ".granularity"),
		strings.HasSuffix(path, ".date.timespan"), strings.HasSuffix(path, ".date.day"), strings.Contains(path, ".time."):
		return true // a season without times gets Fantasy-Calendar's required ones
	case strings.HasSuffix(path, ".interval"), strings.HasSuffix(path, ".offset"):
		return b == 1.0 || b == 0.0 || b == "1"
	}
	return b == nil || b == false || b == ""
}
