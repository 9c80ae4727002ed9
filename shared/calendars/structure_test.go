package calendars_test

import (
	"context"
	"strings"
	"testing"

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
	stored, _ := e.Store.GetCalendar(context.Background(), e.Campaign, id)
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
