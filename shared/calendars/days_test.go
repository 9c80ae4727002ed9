package calendars_test

import (
	"context"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func TestAdvanceAndRetreatMoveTheCurrentDate(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Member, fullBody()) // 4-2-28; year 4 is a leap year: Thaw has 29 days
	steps := []struct {
		name, op string
		body     any
		want     string
	}{
		{"onto the leap day", "advance", nil, "4-2-29"},
		{"off the leap day into an intercalary month", "advance", map[string]any{}, "4-3-1"},
		{"to the last day of the year", "advance", map[string]any{"days": 31}, "4-4-30"},
		{"across the year end", "advance", map[string]any{"days": "1"}, "5-1-1"},
		{"back across the year end", "retreat", map[string]any{"days": 1}, "4-4-30"},
		{"back onto the leap day", "retreat", map[string]any{"days": 32}, "4-2-29"},
		{"back before the leap day", "retreat", nil, "4-2-28"},
		{"a year without a leap day", "advance", map[string]any{"days": 91}, "5-2-28"},
		{"past the missing leap day", "advance", nil, "5-3-1"},
		// 5-3-1 is day 91+3*90+91+58 = 510; before year 0 no year is a leap year, so day
		// 510-1e6 = -999490 = -11106*90 + 50: the 51st day of year -11106.
		{"far back, before year 0", "retreat", map[string]any{"days": 1_000_000}, "-11106-2-21"},
		{"and forth again", "advance", map[string]any{"days": 1_000_000}, "5-3-1"},
	}
	version := int64(1)
	for _, s := range steps {
		r := e.Do("POST", cal(e.Campaign, id)+"/"+s.op, e.Member, s.body)
		version++
		if r.Status != 200 || r.Data()["date"] != s.want || r.Data()["updated_by"] != float64(e.MemberID) {
			t.Fatalf("%s: %d %s, want date %s", s.name, r.Status, r.Raw, s.want)
		}
		c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id)
		if c.Date.String() != s.want || c.Version != version {
			t.Fatalf("%s: stored %s version %d", s.name, c.Date, c.Version)
		}
		if r.Data()["months"] == nil || len(r.Data()["moons"].([]any)) != 2 {
			t.Fatalf("%s: the reply is not the whole calendar: %s", s.name, r.Raw)
		}
	}
	for _, body := range []any{map[string]any{"days": 0}, map[string]any{"days": -1}, map[string]any{"days": 1_000_001}, map[string]any{"days": "x"}, `{"days":`} {
		r := e.Do("POST", cal(e.Campaign, id)+"/advance", e.Member, body)
		if r.Status != 422 || (r.Errors()["days"] == nil && r.Errors()["body"] == nil) {
			t.Errorf("%v: got %d %s, want 422 naming days", body, r.Status, r.Raw)
		}
	}
	if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); c.Date.String() != "5-3-1" || c.Version != version {
		t.Fatalf("refused moves changed the calendar: %s version %d", c.Date, c.Version)
	}
}

func TestDaysShowWeekdaysMonthsSeasonsAndMoons(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, fullBody())
	// Year 0 is a leap year of 91 days, so 1-2-27 is day 147. Weekdays count the 89 week days of
	// year 0 and the 56 of year 1 before it, from weekday 2: (2+89+56) mod 5 = 2. Festival is
	// intercalary: its days have no weekday and 1-4-1 takes up the week where 1-2-28 left it.
	// Selune (29.5 days) phases begin on floor(j*29.5/8): j=40 (full) on 147, j=41 on 151. Tiny
	// (2.5 days, offset -1) begins phase j on -1+floor(j*0.3125), three or four a day: on 147
	// j=474..476, on 149 (1-3-1) j=480..483. Spring runs 25 days from 1-2-15 to 1-4-10.
	r := e.Do("GET", cal(e.Campaign, id)+"/days?from=1-2-27&to=1-4-2", e.Member, nil)
	if r.Status != 200 {
		t.Fatalf("days: %d %s", r.Status, r.Raw)
	}
	want := []string{
		`{"calendar_weather":null,"cycle":null,"cycle_names":[],"date":"1-2-27","era":null,"events":[],"is_intercalary":false,"is_leap_day":false,"leap_day_name":null,"month_name":"Thaw","moons":[{"id":1,"name":"Selune","phase":"full","phases":["full"]},{"id":7,"name":"Tiny","phase":"last_quarter","phases":["last_quarter","waning_crescent","new"]}],"season":"Spring","season_progress":0.48,"weather":null,"weekday":"Three","weekday_index":2}`,
		`{"calendar_weather":null,"cycle":null,"cycle_names":[],"date":"1-2-28","era":null,"events":[],"is_intercalary":false,"is_leap_day":false,"leap_day_name":null,"month_name":"Thaw","moons":[{"id":7,"name":"Tiny","phase":"waxing_crescent","phases":["waxing_crescent","first_quarter","waxing_gibbous"]}],"season":"Spring","season_progress":0.52,"weather":null,"weekday":"Four","weekday_index":3}`,
		`{"calendar_weather":null,"cycle":null,"cycle_names":[],"date":"1-3-1","era":null,"events":[],"is_intercalary":true,"is_leap_day":false,"leap_day_name":null,"month_name":"Festival","moons":[{"id":7,"name":"Tiny","phase":"full","phases":["full","waning_gibbous","last_quarter","waning_crescent"]}],"season":"Spring","season_progress":0.56,"weather":null,"weekday":null,"weekday_index":null}`,
		`{"calendar_weather":null,"cycle":null,"cycle_names":[],"date":"1-3-2","era":null,"events":[],"is_intercalary":true,"is_leap_day":false,"leap_day_name":null,"month_name":"Festival","moons":[{"id":7,"name":"Tiny","phase":"new","phases":["new","waxing_crescent","first_quarter"]}],"season":"Spring","season_progress":0.6,"weather":null,"weekday":null,"weekday_index":null}`,
		`{"calendar_weather":null,"cycle":null,"cycle_names":[],"date":"1-4-1","era":null,"events":[],"is_intercalary":false,"is_leap_day":false,"leap_day_name":null,"month_name":"Bloom","moons":[{"id":1,"name":"Selune","phase":"waning_gibbous","phases":["waning_gibbous"]},{"id":7,"name":"Tiny","phase":"waxing_gibbous","phases":["waxing_gibbous","full","waning_gibbous"]}],"season":"Spring","season_progress":0.64,"weather":null,"weekday":"Five","weekday_index":4}`,
		`{"calendar_weather":null,"cycle":null,"cycle_names":[],"date":"1-4-2","era":null,"events":[],"is_intercalary":false,"is_leap_day":false,"leap_day_name":null,"month_name":"Bloom","moons":[{"id":7,"name":"Tiny","phase":"last_quarter","phases":["last_quarter","waning_crescent","new"]}],"season":"Spring","season_progress":0.68,"weather":null,"weekday":"One","weekday_index":0}`,
	}
	days := r.List()
	if len(days) != len(want) {
		t.Fatalf("got %d days, want %d: %s", len(days), len(want), r.Raw)
	}
	for i, w := range want {
		if got := jsonOf(days[i]); got != w {
			t.Errorf("day %d:\n got %s\nwant %s", i, got, w)
		}
	}

	one := func(query string) map[string]any {
		t.Helper()
		r := e.Do("GET", cal(e.Campaign, id)+"/days"+query, e.Member, nil)
		if r.Status != 200 || len(r.List()) != 1 {
			t.Fatalf("%s: %d %s", query, r.Status, r.Raw)
		}
		return r.List()[0].(map[string]any)
	}
	if d := one("?from=4-2-29"); d["is_leap_day"] != true || d["date"] != "4-2-29" {
		t.Errorf("leap day: %v", d)
	}
	if d := one("?from=4-2-28&to=4-2-28"); d["is_leap_day"] != false {
		t.Errorf("day before the leap day: %v", d)
	}
	if d := one("?from=1-1-5"); d["season"] != "Winter" {
		t.Errorf("early in the year the season continues from the previous one: %v", d)
	}
	if d := one(""); d["date"] != "4-2-28" {
		t.Errorf("without from the day is the current date: %v", d)
	}

	// A calendar without moons or seasons has none on any day. Years of 60 days: -3-2-30 is day
	// -121, an odd day, so weekday 1; -2-1-1 is day -120.
	plain := create(t, e, e.Campaign, e.Admin, plainBody("Plain"))
	r = e.Do("GET", cal(e.Campaign, plain)+"/days?from=-3-2-30&to=-2-1-1", e.Member, nil)
	if r.Status != 200 || jsonOf(r.List()) != `[{"calendar_weather":null,"cycle":null,"cycle_names":[],"date":"-3-2-30","era":null,"events":[],"is_intercalary":false,"is_leap_day":false,"leap_day_name":null,"month_name":"B","moons":[],"season":null,"weather":null,"weekday":"Y","weekday_index":1},{"calendar_weather":null,"cycle":null,"cycle_names":[],"date":"-2-1-1","era":null,"events":[],"is_intercalary":false,"is_leap_day":false,"leap_day_name":null,"month_name":"A","moons":[],"season":null,"weather":null,"weekday":"X","weekday_index":0}]` {
		t.Fatalf("plain days: %d %s", r.Status, r.Raw)
	}
}

func TestDaysRefuseBadRanges(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, fullBody())
	c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id)
	eng, err := c.Engine()
	if err != nil {
		t.Fatal(err)
	}
	day999 := eng.DateOf(999).String()
	day1000 := eng.DateOf(1000).String()
	if r := e.Do("GET", cal(e.Campaign, id)+"/days?from=0-1-1&to="+day999, e.Admin, nil); r.Status != 200 || len(r.List()) != 1000 {
		t.Fatalf("1000 days: %d, %d days", r.Status, len(r.List()))
	}
	for _, c := range []struct{ query, field string }{
		{"?from=0-1-1&to=" + day1000, "to"},
		{"?from=1-2-3&to=1-2-2", "to"},
		{"?from=abc", "from"},
		{"?from=1-2", "from"},
		{"?from=1-3-3", "from"},
		{"?from=1-5-1", "from"},
		{"?from=1-1-1&to=1-2-29", "to"},
		{"?from=1-1-1&to=+1-1-1", "to"},
	} {
		r := e.Do("GET", cal(e.Campaign, id)+"/days"+c.query, e.Admin, nil)
		if r.Status != 422 || r.Errors()[c.field] == nil {
			t.Errorf("%s: got %d %s, want 422 naming %s", c.query, r.Status, r.Raw, c.field)
		}
	}
}
