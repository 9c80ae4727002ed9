package calendars_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// clockBody is plainBody with a clock of 20 hours of 50 minutes, the time 19:49, and a
// two-name cycle of two-year names.
func clockBody(name string) map[string]any {
	return with(plainBody(name), "clock_hours", 20, "clock_minutes", 50, "clock_offset", 3, "current_hour", 19, "current_minute", 49,
		"cycles", []any{map[string]any{"length": 2, "offset": 1, "names": []any{"Rat", "Ox"}}}, "cycle_format", "Year of the {{1}}")
}

func TestClockAndCyclesAreStoredAndAnswered(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, clockBody("Clocked"))
	r := e.Do("GET", cal(e.Campaign, id), e.Admin, nil)
	d := r.Data()
	want := map[string]any{
		"clock": map[string]any{"hours": 20.0, "minutes": 50.0, "offset": 3.0}, "current_hour": 19.0, "current_minute": 49.0,
		"cycles":       []any{map[string]any{"length": 2.0, "offset": 1.0, "names": []any{"Rat", "Ox"}}},
		"cycle_format": "Year of the {{1}}", "cycle": "Year of the Rat", // year 1 is counted 0 (year zero exists: 1), 0/2 + 1/2 = 0
	}
	for k, v := range want {
		if !reflect.DeepEqual(d[k], v) {
			t.Errorf("%s = %v, want %v", k, d[k], v)
		}
	}
	c, err := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id)
	if err != nil || c.Clock == nil || *c.Clock != (calengine.Clock{Hours: 20, Minutes: 50, Offset: 3}) || c.Time != (calengine.Time{Hour: 19, Minute: 49}) ||
		len(c.Cycles) != 1 || c.CycleFormat != "Year of the {{1}}" {
		t.Fatalf("stored %+v %v", c, err)
	}
	// A calendar without a clock answers null; removing the clock removes the time.
	plain := e.Do("GET", cal(e.Campaign, create(t, e, e.Campaign, e.Admin, plainBody("Plain"))), e.Admin, nil).Data()
	if plain["clock"] != nil || plain["current_hour"] != nil || plain["cycle"] != nil || len(plain["cycles"].([]any)) != 0 {
		t.Errorf("a calendar without clock or cycles: %v", plain)
	}
	r = e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"clock_hours": nil})
	if r.Status != 200 || r.Data()["clock"] != nil || r.Data()["current_minute"] != nil {
		t.Fatalf("removing the clock: %d %s", r.Status, r.Raw)
	}
	if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); c.Clock != nil || c.Time != (calengine.Time{}) {
		t.Errorf("stored after removing the clock: %+v %+v", c.Clock, c.Time)
	}
}

func TestClockAndCycleValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, clockBody("Clocked"))
	plain := create(t, e, e.Campaign, e.Admin, plainBody("Plain"))
	tests := []struct {
		name  string
		id    int64
		body  map[string]any
		field string
	}{
		{"no hours", id, map[string]any{"clock_hours": 0}, "clock_hours"},
		{"too many hours", id, map[string]any{"clock_hours": 1001}, "clock_hours"},
		{"too many minutes", id, map[string]any{"clock_minutes": 1001}, "clock_minutes"},
		{"offset past the hours", id, map[string]any{"clock_offset": 20}, "clock_offset"},
		{"hour past the clock", id, map[string]any{"current_hour": 20}, "current_hour"},
		{"minute past the clock", id, map[string]any{"current_minute": 50}, "current_minute"},
		{"a clock shrunk under the time", id, map[string]any{"clock_hours": 10}, "current_hour"},
		{"a time without a clock", plain, map[string]any{"current_hour": 1}, "current_hour"},
		{"minutes without a clock", plain, map[string]any{"clock_minutes": 30}, "clock_minutes"},
		{"cycles not a list", id, map[string]any{"cycles": "Rat"}, "cycles"},
		{"cycle not an object", id, map[string]any{"cycles": []any{"Rat"}}, "cycles.0"},
		{"cycle without names", id, map[string]any{"cycles": []any{map[string]any{"length": 1}}}, "cycles.0.names"},
		{"cycle of an empty name", id, map[string]any{"cycles": []any{map[string]any{"names": []any{""}}}}, "cycles.0.names.0"},
		{"cycle of no years", id, map[string]any{"cycles": []any{map[string]any{"length": 0, "names": []any{"a"}}}}, "cycles.0.length"},
		{"too many cycles", id, map[string]any{"cycles": make([]any, 101)}, "cycles"},
		{"format too long", id, map[string]any{"cycle_format": strings.Repeat("x", 192)}, "cycle_format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.Do("PATCH", cal(e.Campaign, tt.id), e.Admin, tt.body)
			if r.Status != 422 || r.Errors()[tt.field] == nil {
				t.Fatalf("got %d %s, want a 422 naming %s", r.Status, r.Raw, tt.field)
			}
		})
	}
	for _, cid := range []int64{id, plain} {
		if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, cid); c.Version != 1 {
			t.Errorf("calendar %d changed by refused updates: version %d", cid, c.Version)
		}
	}
}

func TestAdvanceAndRetreatByHoursAndMinutes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, clockBody("Clocked")) // 1-1-1 19:49 on a 20x50 clock
	steps := []struct {
		name, route string
		body        map[string]any
		date        string
		hour, min   float64
	}{
		{"a minute into the next day", "/advance", map[string]any{"minutes": 1}, "1-1-2", 0, 0},
		{"back an hour and a minute", "/retreat", map[string]any{"hours": 1, "minutes": 1}, "1-1-1", 18, 49},
		// 18:49 + 21:51 is two days and 1:00 on a clock of 20 hours of 50 minutes.
		{"days, hours and minutes at once", "/advance", map[string]any{"days": 30, "hours": 21, "minutes": 51}, "1-2-3", 1, 0},
		{"a day by default, the time kept", "/advance", nil, "1-2-4", 1, 0},
		// Day 33 of year 1, less 64, is day 29 of year 0 (60 days): 0-1-30.
		{"back across the year", "/retreat", map[string]any{"days": 64, "minutes": 41}, "0-1-30", 0, 9},
	}
	for _, s := range steps {
		var body any // no body at all for the default move
		if s.body != nil {
			body = s.body
		}
		r := e.Do("POST", cal(e.Campaign, id)+s.route, e.Admin, body)
		d := r.Data()
		if r.Status != 200 || d["date"] != s.date || d["current_hour"] != s.hour || d["current_minute"] != s.min {
			t.Fatalf("%s: %d %v %v:%v, want %s %v:%v", s.name, r.Status, d["date"], d["current_hour"], d["current_minute"], s.date, s.hour, s.min)
		}
		if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); c.Date.String() != s.date || c.Time != (calengine.Time{Hour: int(s.hour), Minute: int(s.min)}) {
			t.Fatalf("%s: stored %v %+v", s.name, c.Date, c.Time)
		}
	}
	plain := create(t, e, e.Campaign, e.Admin, plainBody("Plain"))
	for _, tt := range []struct {
		id    int64
		body  map[string]any
		field string
	}{
		{plain, map[string]any{"hours": 1}, "hours"},
		{plain, map[string]any{"minutes": 5}, "minutes"},
		{id, map[string]any{"hours": 1_000_001}, "hours"},
		{id, map[string]any{"minutes": -1}, "minutes"},
		{id, map[string]any{"minutes": "soon"}, "minutes"},
	} {
		before, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, tt.id)
		r := e.Do("POST", cal(e.Campaign, tt.id)+"/advance", e.Admin, tt.body)
		if r.Status != 422 || r.Errors()[tt.field] == nil {
			t.Errorf("%v: got %d %s, want a 422 naming %s", tt.body, r.Status, r.Raw, tt.field)
		}
		if after, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, tt.id); after.Version != before.Version {
			t.Errorf("%v: the refused move changed the calendar", tt.body)
		}
	}
}

func TestDayViewShowsTheYearsCycle(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, clockBody("Clocked")) // 60-day years
	r := e.Do("GET", cal(e.Campaign, id)+"/days?from=2-2-30&to=3-1-1", e.Admin, nil)
	days := r.List()
	if r.Status != 200 || len(days) != 2 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	// Year 2 counts 2: 2/2 + 1/2 = 1 (Ox); year 3 counts 3: 1 (Ox).
	for i, want := range []string{"Year of the Ox", "Year of the Ox"} {
		d := days[i].(map[string]any)
		if d["cycle"] != want || !reflect.DeepEqual(d["cycle_names"], []any{"Ox"}) {
			t.Errorf("day %v: cycle %v %v, want %s", d["date"], d["cycle"], d["cycle_names"], want)
		}
	}
	r = e.Do("GET", cal(e.Campaign, id)+"/days?from=4-1-1&to=4-1-1", e.Admin, nil)
	if d := r.List()[0].(map[string]any); d["cycle"] != "Year of the Rat" {
		t.Errorf("year 4: %v", d["cycle"])
	}
	plain := create(t, e, e.Campaign, e.Admin, plainBody("Plain"))
	d := e.Do("GET", cal(e.Campaign, plain)+"/days", e.Admin, nil).List()[0].(map[string]any)
	if d["cycle"] != nil || !reflect.DeepEqual(d["cycle_names"], []any{}) {
		t.Errorf("a calendar without cycles: %v %v", d["cycle"], d["cycle_names"])
	}
}

// Every Lorekeep preset, given a clock and a cycle, comes back from GET export through POST
// import as the same calendar; and an import's export imports as the same calendar again.
func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	same := func(t *testing.T, a, b map[string]any) {
		t.Helper()
		for _, k := range []string{"id", "entity_id", "created_at", "updated_at", "warnings", "entry", "entry_parsed", "type"} {
			delete(a, k)
			delete(b, k)
		}
		if jsonOf(a) != jsonOf(b) {
			t.Errorf("the round trip changed the calendar\n got %s\nwant %s", jsonOf(b), jsonOf(a))
		}
	}
	for _, p := range calengine.Presets() {
		t.Run(p.Key, func(t *testing.T) {
			body := with(clockBody(p.Name+" & co"), "preset", p.Key, "month_name", nil, "month_length", nil, "weekday", nil)
			id := create(t, e, e.Campaign, e.Admin, body)
			orig := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()
			ex := e.Do("GET", cal(e.Campaign, id)+"/export", e.Admin, nil)
			if ex.Status != 200 {
				t.Fatalf("export: %d %s", ex.Status, ex.Raw)
			}
			im := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, ex.Data())
			if im.Status != 200 {
				t.Fatalf("import of the export: %d %s", im.Status, im.Raw)
			}
			same(t, orig, im.Data())
		})
	}
	// A Fantasy-Calendar export, imported, exported and imported again.
	first := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, readExport(t, "../calengine/testdata/fantasy-calendar-harptos.json"))
	if first.Status != 200 {
		t.Fatalf("import: %d %s", first.Status, first.Raw)
	}
	ex := e.Do("GET", cal(e.Campaign, int64(first.Data()["id"].(float64)))+"/export", e.Admin, nil)
	again := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, ex.Data())
	if again.Status != 200 {
		t.Fatalf("import of the export: %d %s", again.Status, again.Raw)
	}
	same(t, first.Data(), again.Data())
}

func readExport(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The world clock answers a calendar's instant both ways, as its engine counts it; bad input
// and a calendar without a clock are 422s naming the field; a hidden calendar is a 404.
func TestWorldClockRoute(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, clockBody("Clocked"))
	plain := create(t, e, e.Campaign, e.Admin, plainBody("Plain"))
	hidden := create(t, e, e.Campaign, e.Admin, with(clockBody("Hidden"), "is_private", true))
	path := func(cid int64, q string) string { return cal(e.Campaign, cid) + "/clock?" + q }
	r := e.Do("GET", path(id, "date=1-2-3&hour=4&minute=5&second=6"), e.Member, nil)
	if r.Status != 200 {
		t.Fatalf("date to seconds: %d %s", r.Status, r.Raw)
	}
	d := r.Data()
	secs := int64(d["seconds"].(float64))
	if d["seconds_per_day"] != float64(20*50*60) || d["date"] != "1-2-3" || d["hour"] != 4.0 || d["minute"] != 5.0 || d["second"] != 6.0 {
		t.Fatalf("answer: %v", d)
	}
	back := e.Do("GET", path(id, fmt.Sprintf("seconds=%d", secs)), e.Member, nil).Data()
	if back["date"] != "1-2-3" || back["hour"] != 4.0 || back["minute"] != 5.0 || back["second"] != 6.0 {
		t.Fatalf("seconds to date: %v", back)
	}
	for _, c := range []struct {
		cid   int64
		q     string
		field string
	}{
		{id, "", "seconds"},
		{id, "seconds=1&date=1-1-1", "seconds"},
		{id, "seconds=x", "seconds"},
		{id, "date=1-13-1", "date"},
		{id, "date=1-1-1&hour=20", "hour"},
		{id, "date=1-1-1&second=60", "second"},
		{plain, "seconds=0", "seconds"},
	} {
		if r := e.Do("GET", path(c.cid, c.q), e.Member, nil); r.Status != 422 || r.Errors()[c.field] == nil {
			t.Errorf("%q: %d %s, want 422 naming %s", c.q, r.Status, r.Raw, c.field)
		}
	}
	if r := e.Do("GET", path(hidden, "seconds=0"), e.Member, nil); r.Status != 404 {
		t.Errorf("a member's clock of a private calendar: %d", r.Status)
	}
}
