package calendars_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Benchmarks go through the API handler against DynamoDB Local (apitest.Env.Bench).

func BenchmarkCalendarShow(b *testing.B) {
	e := apitest.New(b, register)
	id := create(b, e, e.Campaign, e.Admin, fullBody())
	e.Bench(b, cal(e.Campaign, id))
}

// BenchmarkCalendarDays1000ThreeMoons is the largest day view: 1000 days of a calendar with
// three moons, one of which begins a phase every day.
func BenchmarkCalendarDays1000ThreeMoons(b *testing.B) {
	e := apitest.New(b, register)
	id := create(b, e, e.Campaign, e.Admin, with(fullBody(),
		"moon_name", []any{"Selune", "Tiny", "Ghost"}, "moon_fullmoon", []any{29.5, 2.5, "7.25"},
		"moon_offset", []any{0, -1, 3}, "moon_colour", nil, "moon_id", nil))
	// Years 1 to 11 hold 992 days (4 and 8 are leap years): 12-1-8 is the 1000th day.
	path := cal(e.Campaign, id) + "/days?from=1-1-1&to=12-1-8"
	if r := e.Do("GET", path, e.Admin, nil); r.Status != 200 || len(r.List()) != 1000 {
		b.Fatalf("%d, %d days", r.Status, len(r.List()))
	}
	e.Bench(b, path)
}

// The worst inputs the limits allow (issue 16): each benchmark is one request through the API
// handler against DynamoDB Local; ns/op is the request's time on one core, DynamoDB Local's
// work included.

// worstLeapCalendar is the most costly leap description the limits allow: 85 Gregorian rules
// (255 terms, MaxLeapTerms 256) in a calendar of two 1-day months, the most years per day view.
func worstLeapCalendar(b *testing.B, e *apitest.Env) (int64, *calengine.Calendar) {
	id := create(b, e, e.Campaign, e.Admin, with(plainBody("Worst"), "month_length", []any{1, 1}, "leap_days", leapRules("400,!100,4", 85)))
	c, err := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id)
	if err != nil {
		b.Fatal(err)
	}
	eng, err := c.Engine()
	if err != nil {
		b.Fatal(err)
	}
	return id, eng
}

func benchWorstLeapDays(b *testing.B, from calengine.Date) {
	e := apitest.New(b, register)
	id, eng := worstLeapCalendar(b, e)
	n, err := eng.DayNumber(from)
	if err != nil {
		b.Fatal(err)
	}
	path := cal(e.Campaign, id) + "/days?from=" + from.String() + "&to=" + eng.DateOf(n+calendardays.MaxDays-1).String()
	benchStatus(b, e, "GET", path, "", 200)
}

// BenchmarkDaysWorstLeapRulesNearYear1 and ...NearMaxID: 1000 days of the worst leap rules.
func BenchmarkDaysWorstLeapRulesNearYear1(b *testing.B) {
	benchWorstLeapDays(b, calengine.Date{Year: 1, Month: 1, Day: 1})
}

func BenchmarkDaysWorstLeapRulesNearMaxID(b *testing.B) {
	benchWorstLeapDays(b, calengine.Date{Year: 1<<53 - 1001, Month: 1, Day: 1})
}

// BenchmarkDaysWorstMoons: 100 moons beginning all eight phases every day, with names of 191
// characters that JSON escapes six-fold, over the longest range that fits the answer budget.
func BenchmarkDaysWorstMoons(b *testing.B) {
	e := apitest.New(b, register)
	names, periods := make([]any, 100), make([]any, 100)
	for i := range names {
		names[i], periods[i] = strings.Repeat("<", 191), "0.0000000001"
	}
	id := create(b, e, e.Campaign, e.Admin, with(plainBody("Moons"), "moon_name", names, "moon_fullmoon", periods))
	r := e.Do("GET", cal(e.Campaign, id)+"/days?from=1-1-1&to=17-1-30", e.Admin, nil)
	msg, _ := r.Errors()["to"].([]any)
	if r.Status != 422 || len(msg) == 0 {
		b.Fatalf("%d %.300s", r.Status, r.Raw)
	}
	last := strings.TrimSuffix(msg[0].(string)[strings.LastIndex(msg[0].(string), " ")+1:], ".")
	benchStatus(b, e, "GET", cal(e.Campaign, id)+"/days?from=1-1-1&to="+last, "", 200)
}

// BenchmarkDaysRefusedOverBudget: the 990-day range of those moons, refused once the budget ends.
func BenchmarkDaysRefusedOverBudget(b *testing.B) {
	e := apitest.New(b, register)
	names, periods := make([]any, 100), make([]any, 100)
	for i := range names {
		names[i], periods[i] = strings.Repeat("<", 191), "0.0000000001"
	}
	id := create(b, e, e.Campaign, e.Admin, with(plainBody("Moons"), "moon_name", names, "moon_fullmoon", periods))
	benchStatus(b, e, "GET", cal(e.Campaign, id)+"/days?from=1-1-1&to=17-1-30", "", 422)
}

// BenchmarkAdvanceWorstLeapRules: advance by MaxMoveDays on the worst leap rules, near 2^53.
func BenchmarkAdvanceWorstLeapRules(b *testing.B) {
	e := apitest.New(b, register)
	id, _ := worstLeapCalendar(b, e)
	if r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"current_year": 1<<53 - 1001, "current_month": 1, "current_day": 1}); r.Status != 200 {
		b.Fatalf("%d %s", r.Status, r.Raw)
	}
	benchStatus(b, e, "POST", cal(e.Campaign, id)+"/advance", `{"days":1000000}`, 200)
}

// BenchmarkImportHostileNumbers: an export whose every moon cycle is "1e999999" (43 s before
// the digits and exponent were capped), refused.
func BenchmarkImportHostileNumbers(b *testing.B) {
	e := apitest.New(b, register)
	moons := make([]string, 100)
	for i := range moons {
		moons[i] = `{"name":"M","cycle":"1e999999","shift":"9` + strings.Repeat("9", 1000) + `"}`
	}
	body := `{"name":"X","static_data":{"year_data":{"global_week":["a","b"],"timespans":[{"name":"A","length":1},{"name":"B","length":1}]},"moons":[` +
		strings.Join(moons, ",") + `]}}`
	benchStatus(b, e, "POST", apitest.Path(e.Campaign, "/calendars/import"), body, 422)
}

// benchStatus measures one request through the API handler, as Env.Bench does for GETs, and
// reports the process's CPU time per request (cpu-ms/op: ours, not DynamoDB Local's, which runs
// in its own process).
func benchStatus(b *testing.B, e *apitest.Env, method, path, body string, want int) {
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.Admin)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		e.API.ServeHTTP(w, req)
		if w.Code != want {
			b.Fatalf("%d %.300s", w.Code, w.Body)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkImportHostileLeapDays: an export of 100 leap days of twelve coprime intervals (each
// 4,095 terms), refused within the expansion budget.
func BenchmarkImportHostileLeapDays(b *testing.B) {
	e := apitest.New(b, register)
	rules := make([]string, 100)
	for i := range rules {
		rules[i] = `{"name":"L","timespan":0,"interval":"` + hostileInterval + `","offset":` + strconv.Itoa(i) + `}`
	}
	body := `{"name":"X","static_data":{"year_data":{"global_week":["a","b"],"timespans":[{"name":"A","length":30},{"name":"B","length":30}],"leap_days":[` +
		strings.Join(rules, ",") + `]}}}`
	benchStatus(b, e, "POST", apitest.Path(e.Campaign, "/calendars/import"), body, 422)
}

// BenchmarkDaysWorstCycles: 1000 days of two-day years (500 years) under 100 year cycles, the
// most cycles allowed, their format naming a cycle in every place it can: each year the walk
// enters names every cycle once; a day then costs what it did without cycles.
func BenchmarkDaysWorstCycles(b *testing.B) {
	e := apitest.New(b, register)
	cycles := make([]any, 100)
	for i := range cycles {
		cycles[i] = map[string]any{"length": i + 1, "offset": -i, "names": []any{"Rat", "Ox", "Tiger", "Rabbit", "Dragon", "Snake", "Horse", "Goat"}}
	}
	format := strings.Repeat("{{100}}", 27)
	id := create(b, e, e.Campaign, e.Admin, with(plainBody("Cycles"), "month_length", []any{1, 1}, "cycles", cycles, "cycle_format", format))
	benchStatus(b, e, "GET", cal(e.Campaign, id)+"/days?from=1-1-1&to=500-2-1", "", 200)
}
