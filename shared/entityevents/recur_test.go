package entityevents_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Issue 21: events and reminders with a time of day and a recurrence beyond Kanka's.

// clockFixture is the fixture whose calendar keeps a clock of 24 hours of 60 minutes.
func clockFixture(t *testing.T) fixture {
	f := newFixture(t)
	body := calendarBody()
	body["clock_hours"] = 24
	f.cal, f.calEntity = makeCalendar(t, f.Env, f.Campaign, body)
	return f
}

// viewDays reads the day view as raw days.
func (f fixture) viewDays(t *testing.T, from, to string) []map[string]any {
	_, raw := f.dayView(t, f.Member, from, to)
	out := make([]map[string]any, len(raw))
	for i, d := range raw {
		out[i] = d.(map[string]any)
	}
	return out
}

// TestRuleOccurrencesInTheDayView places one event per rule unit and checks the days the day
// view shows it on against what the same day view says of each day (weekday, month, moons):
// a second model, day by day, of the rules. The fixture's year: First 31, Second 28 (+1 every
// 4 years), Third 30, Feast 1 (intercalary); a week of 7; a moon of 10 days.
func TestRuleOccurrencesInTheDayView(t *testing.T) {
	t.Parallel()
	f := clockFixture(t)
	const from, to = "100-1-1", "102-4-1"
	days := f.viewDays(t, from, to)
	// The model: the dates of each month's 2nd weekday 2, of each year's last weekday 6, and
	// the moon's full-moon days.
	var secondC, lastG, fulls []string
	perMonth := map[string][]string{}
	perYear := map[string][]string{}
	var months, years []string
	for _, d := range days {
		date := d["date"].(string)
		parts := strings.Split(date, "-")
		month, year := parts[0]+"-"+parts[1], parts[0]
		if len(months) == 0 || months[len(months)-1] != month {
			months = append(months, month)
		}
		if len(years) == 0 || years[len(years)-1] != year {
			years = append(years, year)
		}
		if w, ok := d["weekday_index"].(float64); ok {
			if w == 2 {
				perMonth[month] = append(perMonth[month], date)
			}
			if w == 6 {
				perYear[year] = append(perYear[year], date)
			}
		}
		for _, m := range d["moons"].([]any) {
			for _, p := range m.(map[string]any)["phases"].([]any) {
				if p == "full" {
					fulls = append(fulls, date)
				}
			}
		}
	}
	for _, m := range months {
		if l := perMonth[m]; len(l) >= 2 {
			secondC = append(secondC, l[1])
		}
	}
	for _, y := range years {
		if l := perYear[y]; len(l) > 0 {
			lastG = append(lastG, l[len(l)-1])
		}
	}
	var everyOtherFull []string
	for i := 0; i < len(fulls) && len(everyOtherFull) < 3; i += 2 {
		everyOtherFull = append(everyOtherFull, fulls[i])
	}

	cases := []struct {
		name string
		body map[string]any
		want []string
	}{
		{"every 10 days, 3 times", f.event("day", 5, "month", 1, "year", 100, "recurrence", "days", "recurrence_interval", 10, "recurrence_count", 3),
			[]string{"100-1-5", "100-1-15", "100-1-25"}},
		// Every other month of four: First and Third each year.
		{"every other month", f.event("day", 30, "month", 1, "year", 100, "recurrence", "months", "recurrence_interval", 2),
			[]string{"100-1-30", "100-3-30", "101-1-30", "101-3-30", "102-1-30", "102-3-30"}},
		{"every 2 years until", f.event("day", 3, "month", 3, "year", 100, "recurrence", "years", "recurrence_interval", 2, "recurrence_until", "101-4-1"),
			[]string{"100-3-3"}},
		{"second weekday 2 of the month", f.event("day", 1, "month", 1, "year", 100, "recurrence", "weekday_of_month", "recurrence_weekday", 2, "recurrence_ordinal", 2),
			secondC},
		{"last weekday 6 of the year", f.event("day", 1, "month", 1, "year", 100, "recurrence", "weekday_of_year", "recurrence_weekday", 6, "recurrence_ordinal", -1),
			lastG},
		{"every other full moon, 3 times", f.event("day", 1, "month", 1, "year", 100, "recurrence", "moon", "recurrence_moon_id", 1, "recurrence_phase", "full", "recurrence_interval", 2, "recurrence_count", 3),
			everyOtherFull},
	}
	ids := map[string]float64{}
	for _, c := range cases {
		ids[c.name] = f.create(t, f.entity, f.Member, c.body)["id"].(float64)
	}
	if len(secondC) < 8 || len(lastG) != 3 || len(everyOtherFull) != 3 {
		t.Fatalf("model: %v %v %v", secondC, lastG, everyOtherFull)
	}
	f.Counter.Reset()
	view, _ := f.dayView(t, f.Member, from, to)
	if n := f.Counter.N(); n != 1+3 {
		t.Errorf("%d DynamoDB calls, want 4 (access, two concurrent Queries, the days' weather)", n)
	}
	for _, c := range cases {
		if got := datesWith(view, ids[c.name]); !reflect.DeepEqual(got, sortedCopy(c.want)) {
			t.Errorf("%s: on %v, want %v", c.name, got, c.want)
		}
	}
	f.audit(t)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out { // dates sort as datesWith sorts them: as strings
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestRuleAndTimeAnswered: both shapes, the calendar's reminders and the day view answer the
// rule and the time as written; a Kanka client's periodicity replaces the rule.
func TestRuleAndTimeAnswered(t *testing.T) {
	t.Parallel()
	f := clockFixture(t)
	r := f.Do("POST", remindersOf(f.Campaign, f.entity), f.Member, map[string]any{
		"calendar_id": f.cal, "day": 1, "month": 1, "year": 100, "hour": 9, "minute": 5,
		"recurrence": "weekday_of_month", "recurrence_weekday": 3, "recurrence_ordinal": -1, "recurrence_count": 12, "recurrence_until": "105-1-1",
	})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	id := r.Data()["id"].(float64)
	want := map[string]any{"hour": float64(9), "minute": float64(5), "recurrence": "weekday_of_month", "recurrence_interval": float64(1),
		"recurrence_weekday": float64(3), "recurrence_ordinal": float64(-1), "recurrence_count": float64(12), "recurrence_until": "105-1-1",
		"recurrence_moon_id": nil, "recurrence_phase": nil, "is_recurring": true, "recurring_periodicity": nil}
	one := fmt.Sprintf("%s/%v", eventsOf(f.Campaign, f.entity), id)
	cal := f.remindersPage(t, f.Member, "limit=10")
	for name, got := range map[string]map[string]any{"reminder": r.Data(), "entity event": f.Do("GET", one, f.Member, nil).Data(), "calendar's reminders": cal.List()[0].(map[string]any)} {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", name, k, got[k], v)
			}
		}
	}
	// The day view: the last weekday 3 of 100-1 carries the time.
	var found bool
	for _, d := range f.viewDays(t, "100-1-1", "100-1-31") {
		for _, ev := range d["events"].([]any) {
			e := ev.(map[string]any)
			if e["id"] == id {
				found = true
				if e["time"] != "9:05" || d["weekday_index"] != float64(3) {
					t.Errorf("day view: %v on %v", e, d)
				}
			}
		}
	}
	if !found {
		t.Fatal("not in the day view")
	}
	// Changing one part keeps the rest; the periodicity of a Kanka client replaces the rule.
	if u := f.Do("PATCH", one, f.Member, map[string]any{"recurrence_ordinal": 2, "hour": nil}); u.Status != 200 ||
		u.Data()["recurrence_ordinal"] != float64(2) || u.Data()["recurrence_weekday"] != float64(3) || u.Data()["hour"] != nil || u.Data()["minute"] != nil {
		t.Fatalf("patch a part: %d %s", u.Status, u.Raw)
	}
	// Counted from the last: -2 is the one before the last (what a Fantasy-Calendar import writes).
	if u := f.Do("PATCH", one, f.Member, map[string]any{"recurrence_ordinal": -2}); u.Status != 200 || u.Data()["recurrence_ordinal"] != float64(-2) {
		t.Fatalf("patch an ordinal from the last: %d %s", u.Status, u.Raw)
	}
	if u := f.Do("PATCH", one, f.Member, map[string]any{"recurring_periodicity": "monthly"}); u.Status != 200 ||
		u.Data()["recurrence"] != nil || u.Data()["recurring_periodicity"] != "monthly" {
		t.Fatalf("kanka periodicity: %d %s", u.Status, u.Raw)
	}
	if u := f.Do("PATCH", one, f.Member, map[string]any{"recurrence": "years", "recurrence_interval": 3}); u.Status != 200 ||
		u.Data()["recurrence"] != "years" || u.Data()["recurring_periodicity"] != nil || u.Data()["is_recurring"] != true {
		t.Fatalf("back to a rule: %d %s", u.Status, u.Raw)
	}
	if u := f.Do("PATCH", one, f.Member, map[string]any{"recurrence": nil}); u.Status != 200 || u.Data()["recurrence"] != nil || u.Data()["is_recurring"] != false {
		t.Fatalf("rule removed: %d %s", u.Status, u.Raw)
	}
	f.audit(t)
}

// TestRuleAndTimeRefused: each bad part is a 422 naming its field, and nothing is written.
func TestRuleAndTimeRefused(t *testing.T) {
	t.Parallel()
	f := clockFixture(t)
	plain := newFixture(t) // its calendar keeps no clock
	base := f.create(t, f.entity, f.Member, f.event("recurrence", "days", "recurrence_interval", 2))
	one := fmt.Sprintf("%s/%v", eventsOf(f.Campaign, f.entity), base["id"])
	cases := []struct {
		name   string
		fx     fixture
		method string
		body   map[string]any
		field  string
	}{
		{"unknown unit", f, "POST", f.event("recurrence", "weekly"), "recurrence"},
		{"unit not a string", f, "POST", f.event("recurrence", 3), "recurrence"},
		{"interval 0", f, "POST", f.event("recurrence", "days", "recurrence_interval", 0), "recurrence_interval"},
		{"interval huge", f, "POST", f.event("recurrence", "days", "recurrence_interval", 1e12), "recurrence_interval"},
		{"interval text", f, "POST", f.event("recurrence", "days", "recurrence_interval", "two"), "recurrence_interval"},
		{"weekday beyond the week", f, "POST", f.event("recurrence", "weekday_of_month", "recurrence_weekday", 7, "recurrence_ordinal", 1), "recurrence_weekday"},
		{"weekday negative", f, "POST", f.event("recurrence", "weekday_of_month", "recurrence_weekday", -1, "recurrence_ordinal", 1), "recurrence_weekday"},
		{"ordinal missing", f, "POST", f.event("recurrence", "weekday_of_year", "recurrence_weekday", 1), "recurrence_ordinal"},
		{"ordinal 0", f, "POST", f.event("recurrence", "weekday_of_year", "recurrence_weekday", 1, "recurrence_ordinal", 0), "recurrence_ordinal"},
		{"ordinal 101", f, "POST", f.event("recurrence", "weekday_of_year", "recurrence_weekday", 1, "recurrence_ordinal", 101), "recurrence_ordinal"},
		{"ordinal -101", f, "POST", f.event("recurrence", "weekday_of_year", "recurrence_weekday", 1, "recurrence_ordinal", -101), "recurrence_ordinal"},
		{"moon missing", f, "POST", f.event("recurrence", "moon", "recurrence_phase", "full"), "recurrence_moon_id"},
		{"moon of no calendar", f, "POST", f.event("recurrence", "moon", "recurrence_moon_id", 9, "recurrence_phase", "full"), "recurrence_moon_id"},
		{"phase unknown", f, "POST", f.event("recurrence", "moon", "recurrence_moon_id", 1, "recurrence_phase", "gibbous"), "recurrence_phase"},
		{"count 0", f, "POST", f.event("recurrence", "days", "recurrence_count", 0), "recurrence_count"},
		{"count huge", f, "POST", f.event("recurrence", "days", "recurrence_count", 1e7), "recurrence_count"},
		{"until not a date", f, "POST", f.event("recurrence", "days", "recurrence_until", "tomorrow"), "recurrence_until"},
		{"until before the start", f, "POST", f.event("recurrence", "days", "recurrence_until", "99-1-1"), "recurrence_until"},
		{"until not of the calendar", f, "POST", f.event("recurrence", "days", "recurrence_until", "101-2-29"), "recurrence_until"},
		{"a part without a rule", f, "POST", f.event("recurrence_interval", 2), "recurrence"},
		{"a part with the rule removed", f, "PATCH", map[string]any{"recurrence": "", "recurrence_count": 2}, "recurrence_count"},
		{"with a Kanka periodicity", f, "POST", f.event("recurrence", "days", "recurring_periodicity", "yearly"), "recurrence"},
		{"hour past the clock", f, "POST", f.event("hour", 24), "hour"},
		{"hour past any clock", f, "POST", f.event("hour", 5000), "hour"},
		{"hour text", f, "POST", f.event("hour", "noon"), "hour"},
		{"minute past the clock", f, "POST", f.event("hour", 1, "minute", 60), "minute"},
		{"minute without hour", f, "POST", f.event("minute", 5), "hour"},
		{"a time without a clock", plain, "POST", plain.event("hour", 3), "hour"},
		{"a patched weekday beyond the week", f, "PATCH", map[string]any{"recurrence": "weekday_of_month", "recurrence_weekday": 9, "recurrence_ordinal": 1}, "recurrence_weekday"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := eventsOf(c.fx.Campaign, c.fx.entity)
			if c.method == "PATCH" {
				path = one
			}
			before := c.fx.Do("GET", eventsOf(c.fx.Campaign, c.fx.entity), c.fx.Admin, nil)
			r := c.fx.Do(c.method, path, c.fx.Member, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("%d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
			if after := c.fx.Do("GET", eventsOf(c.fx.Campaign, c.fx.entity), c.fx.Admin, nil); !reflect.DeepEqual(after.Body["data"], before.Body["data"]) {
				t.Fatalf("the events changed:\n%s\n%s", before.Raw, after.Raw)
			}
		})
	}
}

// TestRuleEventsAreRecurLinks: a rule makes the event a RECUR# link, found by a day view far
// from its start at the cost of the recurring events, not all events.
func TestRuleEventsAreRecurLinks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	far := f.create(t, f.entity, f.Member, f.event("day", 1, "month", 1, "year", -1000, "recurrence", "years", "recurrence_interval", 100))["id"].(float64)
	for i := range 60 {
		f.create(t, f.entity, f.Member, f.event("day", 1+i%28, "month", 2, "year", 700+i))
	}
	f.Counter.Reset()
	view, _ := f.dayView(t, f.Member, "500-1-1", "500-1-3")
	if n := f.Counter.N(); n != 1+3 {
		t.Errorf("%d DynamoDB calls, want 4", n)
	}
	if n := f.Counter.Scanned(); n > 5 {
		t.Errorf("evaluated %d items, want the recurring link and the calendar", n)
	}
	if got := datesWith(view, far); !reflect.DeepEqual(got, []string{"500-1-1"}) {
		t.Errorf("on %v", got)
	}
}

// TestDayEventsOrderedByTime: a day lists its whole-day events first, then the timed ones by
// time, whatever order they were made in.
func TestDayEventsOrderedByTime(t *testing.T) {
	t.Parallel()
	f := clockFixture(t)
	late := f.create(t, f.entity, f.Member, f.event("name", "Late", "hour", 20))["id"].(float64)
	early := f.create(t, f.entity, f.Member, f.event("name", "Early", "hour", 9, "minute", 5, "recurrence", "days"))["id"].(float64)
	allDay := f.create(t, f.entity, f.Member, f.event("name", "All day"))["id"].(float64)
	noon := f.create(t, f.entity, f.Member, f.event("name", "Noon", "hour", 12))["id"].(float64)
	view, _ := f.dayView(t, f.Member, "100-1-5", "100-1-5")
	if got, want := view["100-1-5"], []float64{allDay, early, noon, late}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}
