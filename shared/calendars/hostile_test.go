package calendars_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Issue 16, items 2-4: inputs that cost unbounded work or answers. Each is refused with a 422
// naming the field and the limit, changes nothing, or answers within the limits.

// hostileInterval: 12 coprime intervals, each doubling its rule's terms (4,095 in all).
const hostileInterval = "37,31,29,23,19,17,13,11,7,5,3,2"

// leapRules is n leap_days rules of one interval, spread over the months of plainBody.
func leapRules(interval string, n int) []any {
	rules := make([]any, n)
	for i := range rules {
		rules[i] = map[string]any{"name": "L", "month": 1 + i%2, "interval": interval, "offset": i}
	}
	return rules
}

// TestLeapRulesPastTheTermsLimitAre422: the calendar (100 rules of 12 coprime
// intervals, whose day view cost 6 to 118 CPU seconds) is refused on create, update and import,
// naming the rule's interval and the limit; nothing is stored. The most the limit allows is
// accepted and its day view answers.
func TestLeapRulesPastTheTermsLimitAre422(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Member, plainBody("Plain"))
	before := total(t, e, e.Campaign)
	limit := "256 terms"
	for _, c := range []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"create with the issue's 100 rules", "POST", apitest.Path(e.Campaign, "/calendars"),
			with(plainBody("Hostile"), "leap_days", leapRules(hostileInterval, 100)), "leap_days.0.interval"},
		{"create with one such rule", "POST", apitest.Path(e.Campaign, "/calendars"),
			with(plainBody("Hostile"), "leap_days", leapRules(hostileInterval, 1)), "leap_days.0.interval"},
		{"86 Gregorian rules: 258 terms", "POST", apitest.Path(e.Campaign, "/calendars"),
			with(plainBody("Hostile"), "leap_days", leapRules("400,!100,4", 86)), "leap_days.85.interval"},
		{"update", "PATCH", cal(e.Campaign, id), map[string]any{"leap_days": leapRules(hostileInterval, 100)}, "leap_days.0.interval"},
		{"import", "POST", apitest.Path(e.Campaign, "/calendars/import"), exportBody(t, func(_, _, yd map[string]any) {
			rules := make([]any, 100)
			for i := range rules {
				rules[i] = map[string]any{"name": "L", "timespan": 0, "interval": hostileInterval, "offset": i}
			}
			yd["leap_days"] = rules
		}), "static_data.year_data.leap_days.0.interval"},
	} {
		r := e.Do(c.method, c.path, e.Member, c.body)
		msgs, _ := r.Errors()[c.field].([]any)
		if r.Status != 422 || len(msgs) == 0 || !strings.Contains(msgs[0].(string), limit) {
			t.Errorf("%s: %d %.300s, want 422 naming %s and %q", c.name, r.Status, r.Raw, c.field, limit)
		}
	}
	if got := total(t, e, e.Campaign); got != before {
		t.Fatalf("refused writes stored calendars: %v, was %v", got, before)
	}
	if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); len(c.LeapDays) != 0 || c.Version != 1 {
		t.Fatalf("refused update changed the calendar: %d rules, version %d", len(c.LeapDays), c.Version)
	}

	// The most the limit allows: 85 Gregorian rules (255 terms) in a calendar of 2-day years,
	// viewed for 1000 days near year 1 and near 2^53-1.
	worst := with(plainBody("Worst"), "month_length", []any{1, 1}, "leap_days", leapRules("400,!100,4", 85))
	wid := create(t, e, e.Campaign, e.Member, worst)
	stored, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, wid)
	eng, err := stored.Engine()
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []calengine.Date{{Year: 1, Month: 1, Day: 1}, {Year: 1<<53 - 1001, Month: 1, Day: 1}} {
		n, err := eng.DayNumber(from)
		if err != nil {
			t.Fatal(err)
		}
		q := "?from=" + from.String() + "&to=" + eng.DateOf(n+calendardays.MaxDays-1).String()
		r := e.Do("GET", cal(e.Campaign, wid)+"/days"+q, e.Member, nil)
		if r.Status != 200 || len(r.List()) != calendardays.MaxDays {
			t.Fatalf("%s: %d, %d days %.300s", q, r.Status, len(r.List()), r.Raw)
		}
	}
	if r := e.Do("POST", cal(e.Campaign, wid)+"/advance", e.Member, map[string]any{"days": calendars.MaxMoveDays}); r.Status != 200 {
		t.Fatalf("advance: %d %s", r.Status, r.Raw)
	}
}

// TestImportNumbersAreCappedBeforeExactArithmetic: an export's numbers pass through big.Rat
// only within MaxImportDigits digits and an exponent of MaxImportExponent; past them (a cycle
// of "1e999999" cost 43 s, a 900 KB integer 2.8 s) the import is a 422 naming the export's
// field and the limits.
func TestImportNumbersAreCappedBeforeExactArithmetic(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	path := apitest.Path(e.Campaign, "/calendars/import")
	before := total(t, e, e.Campaign)
	huge := json.Number("9" + strings.Repeat("0", 900_000))
	for _, c := range []struct {
		name  string
		edit  func(ex, sd, yd map[string]any)
		field string
	}{
		{"a cycle of 1e999999 as text", func(_, sd, _ map[string]any) { item(sd["moons"], 0)["cycle"] = "1e999999" }, "static_data.moons.0.cycle"},
		{"a cycle of 1e999999 as a number", func(_, sd, _ map[string]any) { item(sd["moons"], 0)["cycle"] = json.Number("1e999999") }, "static_data.moons.0.cycle"},
		{"a shift of -1E-999999", func(_, sd, _ map[string]any) { item(sd["moons"], 0)["shift"] = "-1E-999999" }, "static_data.moons.0.shift"},
		{"a 900 KB length", func(_, _, yd map[string]any) { item(yd["timespans"], 1)["length"] = huge }, "static_data.year_data.timespans.1.length"},
		{"a 900 KB year", func(ex, _, _ map[string]any) { ex["dynamic_data"] = map[string]any{"year": huge} }, "dynamic_data.year"},
		{"41 digits", func(_, sd, _ map[string]any) {
			item(sd["eras"], 0)["date"] = map[string]any{"year": json.Number(strings.Repeat("1", 41))}
		}, "static_data.eras.0.date.year"},
	} {
		r := e.Do("POST", path, e.Member, exportBody(t, c.edit))
		msgs, _ := r.Errors()[c.field].([]any)
		if r.Status != 422 || len(msgs) == 0 || !strings.Contains(msgs[0].(string), "at most 40 digits with an exponent between -40 and 40") {
			t.Errorf("%s: %d %.300s, want 422 naming %s and the limits", c.name, r.Status, r.Raw, c.field)
		}
	}
	if got := total(t, e, e.Campaign); got != before {
		t.Fatalf("refused imports stored calendars: %v, was %v", got, before)
	}
	// Within the limits the exact arithmetic still reads exponents and long fractions.
	r := e.Do("POST", path, e.Member, exportBody(t, func(_, sd, _ map[string]any) {
		item(sd["moons"], 0)["cycle"] = "2.95e1"
		item(sd["moons"], 0)["shift"] = json.Number("0.000000000000000000000000000000000000001")
	}))
	if r.Status != 200 || item(r.Data()["moons"], 0)["fullmoon"] != "29.5" {
		t.Fatalf("import within the limits: %d %.400s", r.Status, r.Raw)
	}
}

// TestDaysAnswerWithinTheBudget: 100 moons with tiny periods and long names made 990 days a
// 34 MB answer (Lambda refuses 6 MB). A range whose answer would pass httpapi.MaxPageBytes is
// a 422 naming `to`, the limit and the last date that fits, and that range answers.
func TestDaysAnswerWithinTheBudget(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	names, periods := make([]any, 100), make([]any, 100)
	for i := range names {
		names[i] = strings.Repeat("<", 190) + string(rune('A'+i%26))
		periods[i] = "0.0000000001" // all eight phases every day
	}
	id := create(t, e, e.Campaign, e.Admin, with(plainBody("Moons"), "moon_name", names, "moon_fullmoon", periods))
	r := e.Do("GET", cal(e.Campaign, id)+"/days?from=1-1-1&to=17-1-30", e.Member, nil) // 990 days
	msgs, _ := r.Errors()["to"].([]any)
	limit := "more than 5242880 bytes; ask for to at most "
	if r.Status != 422 || len(msgs) == 0 || !strings.Contains(msgs[0].(string), limit) {
		t.Fatalf("990 days of 100 moons: %d, %d bytes %.300s; want 422 naming to and the limit", r.Status, len(r.Raw), r.Raw)
	}
	last := strings.TrimSuffix(msgs[0].(string)[strings.Index(msgs[0].(string), limit)+len(limit):], ".")
	r = e.Do("GET", cal(e.Campaign, id)+"/days?from=1-1-1&to="+last, e.Member, nil)
	if r.Status != 200 || len(r.List()) < 2 || len(r.Raw) > httpapi.MaxPageBytes {
		t.Fatalf("to %s: %d, %d days, %d bytes", last, r.Status, len(r.List()), len(r.Raw))
	}
	if d, err := calengine.ParseDate(last); err != nil || d.Year != 1 {
		t.Fatalf("last date that fits: %q %v", last, err)
	}
}
