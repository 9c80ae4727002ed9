package calendars_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// structureBody has every structure beyond Kanka's. A normal year: First (4 days, its own
// week Un/Deux/Trois), Rare (3 days, in years 4k+1 only), Last (5 days); weeks restart with
// each month; a leap day "Extra" after First's day 2 in even years, with its own weekday
// "Extraday"; an unnumbered intercalary leap day closing Last every third year.
func structureBody() map[string]any {
	return map[string]any{
		"name":       "Structured",
		"month_name": []any{"First", "Rare", "Last"}, "month_length": []any{4, 3, 5},
		"month_interval": []any{nil, "4", ""}, "month_offset": []any{nil, 1, 0},
		"month_weekdays": []any{[]any{"Un", "Deux", "Trois"}, nil, []any{}},
		"weekday":        []any{"Mo", "Tu"}, "week_restart": true,
		"leap_days": []any{
			map[string]any{"name": "Extra", "month": 1, "day": 2, "interval": "2", "weekday": "Extraday"},
			map[string]any{"name": "Blank", "month": 3, "interval": "3", "intercalary": true, "not_numbered": true},
		},
		"moon_name": []any{"Shown", "Secret"}, "moon_fullmoon": []any{8, 5},
		"moon_granularity": []any{4, nil}, "moon_custom_cycle": []any{nil, []any{0, 0, 4, 4, 2}}, "moon_hidden": []any{false, true},
		"eras":         []any{map[string]any{"name": "Old", "year": -50}, map[string]any{"name": "New", "year": 6, "month": 3, "day": 2, "restart": true}},
		"current_year": 5, "current_month": 2, "current_day": 1,
	}
}

func TestCalendarStructureIsStoredShownAndWalked(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, structureBody())
	show := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()
	months := show["months"].([]any)
	if jsonOf(months[1]) != `{"interval":"4","length":3,"name":"Rare","offset":1,"type":"standard"}` ||
		jsonOf(months[0]) != `{"length":4,"name":"First","type":"standard","weekdays":["Un","Deux","Trois"]}` {
		t.Errorf("months %s", jsonOf(months))
	}
	if show["week_restart"] != true || jsonOf(item(show["leap_days"], 0)["weekday"]) != `"Extraday"` || item(show["leap_days"], 1)["not_numbered"] != true {
		t.Errorf("week_restart %v, leap days %s", show["week_restart"], jsonOf(show["leap_days"]))
	}
	if m := item(show["moons"], 1); m["granularity"] != nil || jsonOf(m["custom_cycle"]) != "[0,0,4,4,2]" || m["hidden"] != true ||
		item(show["moons"], 0)["granularity"] != 4.0 {
		t.Errorf("moons %s", jsonOf(show["moons"]))
	}
	if era := item(show["eras"], 1); era["month"] != 3.0 || era["day"] != 2.0 {
		t.Errorf("eras %s", jsonOf(show["eras"]))
	}
	stored, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id)
	if stored.Months[1].Interval != "4" || stored.Months[1].Offset != 1 || len(stored.Months[0].Weekdays) != 3 || !stored.WeekRestart ||
		stored.LeapDays[0].Weekday != "Extraday" || !stored.LeapDays[1].NotNumbered || stored.Moons[0].Granularity != 4 ||
		!stored.Moons[1].Hidden || len(stored.Moons[1].CustomCycle) != 5 || stored.Eras[1].Month != 3 {
		t.Errorf("stored %+v", stored)
	}

	// Year 5 (Rare appears: 5-1 divisible by 4), then year 6 (Extra; the era New from 6-3-2).
	r := e.Do("GET", cal(e.Campaign, id)+"/days?from=5-1-1&to=6-3-3", e.Admin, nil)
	if r.Status != 200 {
		t.Fatalf("days: %d %s", r.Status, r.Raw)
	}
	var got []string
	for _, d := range r.Body["data"].([]any) {
		day := d.(map[string]any)
		w := "-"
		if day["weekday"] != nil {
			w = day["weekday"].(string)
		}
		if day["is_numbered"] == false {
			w += "#"
		}
		if era := day["era"].(map[string]any); era["name"] == "New" {
			w += "@"
		}
		got = append(got, day["date"].(string)+" "+w)
	}
	want := "5-1-1 Un,5-1-2 Deux,5-1-3 Trois,5-1-4 Un,5-2-1 Mo,5-2-2 Tu,5-2-3 Mo,5-3-1 Mo,5-3-2 Tu,5-3-3 Mo,5-3-4 Tu,5-3-5 Mo," +
		"6-1-1 Un,6-1-2 Deux,6-1-3 Extraday,6-1-4 Trois,6-1-5 Un,6-3-1 Mo,6-3-2 Tu@,6-3-3 Mo@"
	if strings.Join(got, ",") != want {
		t.Errorf("days\n got %s\nwant %s", strings.Join(got, ","), want)
	}
	// Year 3 closes with the unnumbered leap day; 4 has no Rare.
	r = e.Do("GET", cal(e.Campaign, id)+"/days?from=3-3-5&to=4-2-1", e.Admin, nil)
	if r.Status != 422 || r.Errors()["to"] == nil {
		t.Errorf("a month absent that year: %d %s, want 422 naming to", r.Status, r.Raw)
	}
	r = e.Do("GET", cal(e.Campaign, id)+"/days?from=3-3-5&to=4-3-1", e.Admin, nil)
	days := r.Body["data"].([]any)
	if r.Status != 200 || len(days) != 8 || item(days, 1)["date"] != "3-3-6" || item(days, 1)["is_numbered"] != false ||
		item(days, 1)["weekday"] != nil || item(days, 7)["date"] != "4-3-1" {
		t.Errorf("days across an absent month: %d %s", r.Status, r.Raw)
	}

	// Moons: the editor sees both, with their phase counts; a viewer never sees the hidden one.
	moons := func(token string) map[string]bool {
		seen := map[string]bool{}
		r := e.Do("GET", cal(e.Campaign, id)+"/days?from=1-1-1&to=3-1-1", token, nil)
		for _, d := range r.Body["data"].([]any) {
			for _, m := range d.(map[string]any)["moons"].([]any) {
				mm := m.(map[string]any)
				seen[mm["name"].(string)] = true
				if mm["name"] == "Shown" && mm["phase_count"] != 4.0 {
					t.Errorf("Shown's phase count %v", mm["phase_count"])
				}
			}
		}
		return seen
	}
	if s := moons(e.Admin); !s["Shown"] || !s["Secret"] {
		t.Errorf("the admin sees moons %v", s)
	}
	if s := moons(e.Viewer); !s["Shown"] || s["Secret"] {
		t.Errorf("a viewer sees moons %v", s)
	}
	for _, path := range []string{cal(e.Campaign, id), cal(e.Campaign, id) + "/export"} {
		if raw := string(e.Do("GET", path, e.Viewer, nil).Raw); strings.Contains(raw, "Secret") {
			t.Errorf("%s shows the hidden moon to a viewer: %s", path, raw)
		}
	}
}

func TestCalendarStructureRoundTripsThroughExport(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, structureBody())
	ex := e.Do("GET", cal(e.Campaign, id)+"/export", e.Admin, nil).Data()
	r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, map[string]any{
		"name": ex["name"], "static_data": ex["static_data"], "dynamic_data": ex["dynamic_data"]})
	if r.Status != 200 {
		t.Fatalf("import: %d %s", r.Status, r.Raw)
	}
	a := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()
	b := r.Data()
	for _, k := range []string{"months", "weekdays", "week_restart", "leap_days", "moons", "eras", "date"} {
		if jsonOf(a[k]) != jsonOf(b[k]) {
			t.Errorf("%s\n before %s\n after  %s", k, jsonOf(a[k]), jsonOf(b[k]))
		}
	}
}

func TestBadCalendarStructureIsRefused(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	p := apitest.Path(e.Campaign, "/calendars")
	plain := plainBody("Bad")
	moons := with(plain, "moon_name", []any{"M"}, "moon_fullmoon", []any{29.5})
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"an interval in words", with(plain, "month_interval", []any{nil, "often"}), "month_interval.1"},
		{"an interval excluding every year", with(plain, "month_interval", []any{nil, "!4"}), "month_interval.1"},
		{"an interval that is an object", with(plain, "month_interval", []any{nil, map[string]any{}}), "month_interval.1"},
		{"intervals without months", with(plain, "month_name", nil, "month_length", nil, "month_interval", []any{"2"}), "month_name"},
		{"fewer intervals than months", with(plain, "month_interval", []any{"2"}), "month_interval"},
		{"no month every year", with(plain, "month_interval", []any{"2", "3"}), "month_interval"},
		{"an interval of 13 terms", with(plain, "month_interval", []any{nil, "37,31,29,23,19,17,13,11,7,5,3,2,41"}), "month_interval.1"},
		{"an offset in words", with(plain, "month_offset", []any{0, "x"}), "month_offset.1"},
		{"an own week of one day", with(plain, "month_weekdays", []any{[]any{"Solo"}, nil}), "month_weekdays.0"},
		{"an own week that is a string", with(plain, "month_weekdays", []any{"Mo,Tu", nil}), "month_weekdays.0"},
		{"an own week with an empty name", with(plain, "month_weekdays", []any{[]any{"A", ""}, nil}), "month_weekdays.0"},
		{"week_restart is a word", with(plain, "week_restart", "often"), "week_restart"},
		{"a granularity of 5", with(moons, "moon_granularity", []any{5}), "moon_granularity.0"},
		{"a phase beyond the granularity", with(moons, "moon_granularity", []any{4}, "moon_custom_cycle", []any{[]any{0, 4}}), "moon_custom_cycle.0"},
		{"a custom cycle of words", with(moons, "moon_custom_cycle", []any{[]any{"full"}}), "moon_custom_cycle.0"},
		{"moon_hidden is a word", with(moons, "moon_hidden", []any{"secret"}), "moon_hidden.0"},
		{"a leap weekday that is a number", with(plain, "leap_days", []any{map[string]any{"month": 1, "interval": "4", "weekday": 5}}), "leap_days.0.weekday"},
		{"an era starting on a missing day", with(plain, "eras", []any{map[string]any{"name": "E", "year": 1, "month": 2, "day": 31}}), "eras.0.day"},
		{"an era day without a month", with(plain, "eras", []any{map[string]any{"name": "E", "year": 1, "day": 3}}), "eras.0.month"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", p, e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %q", r.Status, r.Raw, c.field)
			}
		})
	}
	if n := total(t, e, e.Campaign); n != 0 {
		t.Fatalf("refused creates stored %v calendars", n)
	}
}

func TestPeriodicSeasonsInTheDayView(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	body := with(plainBody("Seasonal"), "periodic_seasons", true, "season_offset", -2,
		"season_name", []any{"Dry", "Wet"}, "season_duration", []any{4, "1.5"}, "season_transition", []any{2, "0.5"},
		"season_sunrise", []any{"6:00", "8:00"}, "season_sunset", []any{"18:00", nil})
	id := create(t, e, e.Campaign, e.Admin, body)
	show := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()
	if show["periodic_seasons"] != true || show["season_offset"] != -2.0 || jsonOf(show["seasons"]) !=
		`[{"day":0,"duration":4,"month":0,"name":"Dry","sunrise":"6:00","sunset":"18:00","transition":2},{"day":0,"duration":1.5,"month":0,"name":"Wet","sunrise":"8:00","transition":0.5}]` {
		t.Fatalf("seasons %s", jsonOf(show["seasons"]))
	}
	// Cycle of 8 days from day -2 (year 1 day 1 is day 0... with year zero kept, 0-1-1): Dry
	// days -2..3 (its transition from day 2), Wet 4..5.
	r := e.Do("GET", cal(e.Campaign, id)+"/days?from=0-1-1&to=0-1-7", e.Admin, nil)
	var got []string
	for _, d := range r.Body["data"].([]any) {
		day := d.(map[string]any)
		got = append(got, day["season"].(string)+" "+jsonOf(day["season_progress"])+" "+jsonOf(day["sunrise"]))
	}
	want := `Dry 0.3333 "6:00",Dry 0.5 "6:00",Dry 0.6667 "6:00",Dry 0.8333 "7:00",Wet 0 "8:00",Wet 0.5 "8:00",Dry 0 "6:00"`
	if strings.Join(got, ",") != want {
		t.Errorf("days\n got %s\nwant %s", strings.Join(got, ","), want)
	}
	for _, bad := range []struct {
		body  map[string]any
		field string
	}{
		{with(body, "season_duration", []any{-1, 1}), "season_duration.0"},
		{with(body, "season_sunrise", []any{"25:00", nil}), "season_sunrise.0"},
		{with(body, "season_sunrise", []any{"dawn", nil}), "season_sunrise.0"},
		{with(body, "season_duration", []any{0, 0}, "season_transition", []any{0, 0}), "season_duration"},
		{with(body, "periodic_seasons", "often"), "periodic_seasons"},
	} {
		if r := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, bad.body); r.Status != 422 || r.Errors()[bad.field] == nil {
			t.Errorf("%s: %d %s", bad.field, r.Status, r.Raw)
		}
	}
}

// An era that ends its year (Fantasy-Calendar's ends_year): stored and shown, the year ends on
// its date (the days after it are not dates), the week and the day count run on, a restarting
// era counts the next year as its first, and the export carries it back.
func TestErasEndingTheirYear(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	body := map[string]any{
		"name": "Cut", "month_name": []any{"A", "B", "C"}, "month_length": []any{10, 10, 10}, "weekday": []any{"Mo", "Tu", "We"},
		"eras": []any{map[string]any{"name": "Old", "year": -10},
			map[string]any{"name": "Sundering", "year": 3, "month": 2, "day": 4, "restart": true, "ends_year": true}},
		"current_year": 4, "current_month": 1, "current_day": 2,
	}
	id := create(t, e, e.Campaign, e.Admin, body)
	show := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()
	if era := item(show["eras"], 1); era["ends_year"] != true || item(show["eras"], 0)["ends_year"] != nil {
		t.Errorf("eras %s", jsonOf(show["eras"]))
	}
	if era := show["era"].(map[string]any); era["name"] != "Sundering" || era["year"] != 1.0 {
		t.Errorf("the current date's era %v", era)
	}
	if stored, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); !stored.Eras[1].EndsYear || stored.Eras[0].EndsYear {
		t.Errorf("stored eras %+v", stored.Eras)
	}
	// Years 0-2 have 30 days: 3-2-3 is day 102 (weekday 102 mod 3 = Mo); year 3 ends on 3-2-4.
	r := e.Do("GET", cal(e.Campaign, id)+"/days?from=3-2-3&to=4-1-2", e.Admin, nil)
	var got []string
	for _, d := range r.List() {
		day := d.(map[string]any)
		era := day["era"].(map[string]any)
		got = append(got, day["date"].(string)+" "+day["weekday"].(string)+" "+era["name"].(string)+strconv.Itoa(int(era["year"].(float64))))
	}
	if want := "3-2-3 Mo Old3,3-2-4 Tu Sundering0,4-1-1 We Sundering1,4-1-2 Mo Sundering1"; r.Status != 200 || strings.Join(got, ",") != want {
		t.Errorf("days: %d\n got %s\nwant %s", r.Status, strings.Join(got, ","), want)
	}
	for _, q := range []string{"from=3-2-5&to=4-1-1", "from=3-3-1&to=4-1-1"} {
		if r := e.Do("GET", cal(e.Campaign, id)+"/days?"+q, e.Admin, nil); r.Status != 422 || r.Errors()["from"] == nil {
			t.Errorf("%s: a day the era cut: %d %s", q, r.Status, r.Raw)
		}
	}
	if r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"current_year": 3, "current_month": 3, "current_day": 1}); r.Status != 422 {
		t.Errorf("a current date the era cut: %d %s", r.Status, r.Raw)
	}
	// Advancing from the era's date goes to the next year's first day.
	if r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"current_year": 3, "current_month": 2, "current_day": 4}); r.Status != 200 {
		t.Fatalf("the era's date: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("POST", cal(e.Campaign, id)+"/advance", e.Admin, nil); r.Status != 200 || r.Data()["date"] != "4-1-1" {
		t.Errorf("advance from the era's date: %d %s", r.Status, r.Raw)
	}
	// The export says so, and importing it gives the same eras back.
	ex := e.Do("GET", cal(e.Campaign, id)+"/export", e.Admin, nil).Data()
	if v := fcPath(ex, "static_data", "eras", 1, "settings", "ends_year"); v != true {
		t.Errorf("export's ends_year %v", v)
	}
	im := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, map[string]any{
		"name": ex["name"], "static_data": ex["static_data"], "dynamic_data": ex["dynamic_data"]})
	if im.Status != 200 || jsonOf(im.Data()["eras"]) != jsonOf(e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()["eras"]) {
		t.Errorf("import of the export: %d %s", im.Status, im.Raw)
	}
	for _, w := range im.Data()["warnings"].([]any) {
		if strings.Contains(w.(string), "ends its year") {
			t.Errorf("a warning about ends_year: %s", w)
		}
	}

	// Refused: each a 422 naming the part, nothing stored.
	plain := plainBody("Bad")
	era := func(kv ...any) map[string]any {
		m := map[string]any{"name": "E", "year": 2, "month": 2, "day": 3, "ends_year": true}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	before := total(t, e, e.Campaign)
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"ends_year without a date", with(plain, "eras", []any{era("month", nil, "day", nil)}), "eras.0.ends_year"},
		{"ends_year a word", with(plain, "eras", []any{era("ends_year", "yes")}), "eras.0.ends_year"},
		{"two eras ending one year", with(plain, "eras", []any{era(), era("day", 5)}), "eras.1.ends_year"},
		{"ending a skipped year zero", with(plain, "skip_year_zero", true, "eras", []any{era("year", 0)}), "eras.0.year"},
		{"a date its year lacks", with(plain, "month_interval", []any{nil, "2"}, "eras", []any{era("year", 3)}), "eras.0.day"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, c.body); r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %q", r.Status, r.Raw, c.field)
			}
		})
	}
	if n := total(t, e, e.Campaign); n != before {
		t.Fatalf("refused creates stored calendars: %v, was %v", n, before)
	}
}

// fcPath reads a path of a decoded JSON value (nil when absent).
func fcPath(v any, path ...any) any {
	for _, k := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[k.(string)]
		case []any:
			i := k.(int)
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
