package entityevents_test

import (
	"fmt"
	"net/url"
	"sort"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// dayView returns, for each date of the calendar's day view, the ids of the events on it (and
// the raw days).
func (f fixture) dayView(t *testing.T, token, from, to string) (map[string][]float64, []any) {
	t.Helper()
	r := f.Do("GET", apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d/days?from=%s&to=%s", f.cal, url.QueryEscape(from), url.QueryEscape(to))), token, nil)
	if r.Status != 200 {
		t.Fatalf("days: %d %s", r.Status, r.Raw)
	}
	out := map[string][]float64{}
	for _, d := range r.List() {
		day := d.(map[string]any)
		for _, ev := range day["events"].([]any) {
			out[day["date"].(string)] = append(out[day["date"].(string)], ev.(map[string]any)["id"].(float64))
		}
	}
	return out, r.List()
}

func datesWith(view map[string][]float64, id float64) []string {
	var dates []string
	for d, ids := range view {
		for _, x := range ids {
			if x == id {
				dates = append(dates, d)
			}
		}
	}
	sort.Strings(dates)
	return dates
}

// The fixture calendar: First 31, Second 28 (+1 in years divisible by 4), Third 30, Feast 1
// (intercalary); a moon of 10 days.
func TestRecurringEventsAppearOnTheRightDays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	birthday := f.create(t, f.entity, f.Member, f.event("name", "Leap birthday", "day", 29, "month", 2, "year", 100, "recurring_periodicity", "yearly"))["id"].(float64)
	monthly := f.create(t, f.entity, f.Member, f.event("name", "Month end", "day", 31, "month", 1, "year", 100, "recurring_periodicity", "monthly"))["id"].(float64)
	long := f.create(t, f.entity, f.Member, f.event("name", "Long winter", "day", 20, "month", 3, "year", 100, "length", 40, "colour", "blue"))["id"].(float64)
	private := f.create(t, f.entity, f.Admin, f.event("name", "Secret", "day", 1, "month", 1, "year", 101, "is_private", true))["id"].(float64)

	view, _ := f.dayView(t, f.Member, "100-1-1", "104-3-1")
	cases := []struct {
		name string
		id   float64
		want string
	}{
		// Years 101 to 103 have no 29th of Second: the birthday skips them.
		{"yearly birthday on a leap day", birthday, "[100-2-29 104-2-29]"},
		// Only First has a 31st: Second, Third and Feast are skipped every year.
		{"monthly event on day 31", monthly, "[100-1-31 101-1-31 102-1-31 103-1-31 104-1-31]"},
		{"private event hidden from a member", private, "[]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(datesWith(view, c.id)); got != c.want {
			t.Errorf("%s: on %s, want %s", c.name, got, c.want)
		}
	}
	// 11 days of Third (20..30), the Feast day, then 28 days of First 101: 40 days in all,
	// crossing the year end; a window starting after its start still shows it.
	winter, days := f.dayView(t, f.Member, "101-1-1", "101-1-31")
	for _, d := range days {
		day := d.(map[string]any)
		var on int
		fmt.Sscanf(day["date"].(string), "101-1-%d", &on)
		covered := false
		for _, ev := range day["events"].([]any) {
			e := ev.(map[string]any)
			if e["id"] == long {
				covered = true
				if e["start"] != "100-3-20" || e["end"] != "101-1-28" || e["colour"] != "blue" || e["name"] != "Long winter" {
					t.Errorf("occurrence on %s: %v", day["date"], e)
				}
			}
		}
		if covered != (on <= 28) {
			t.Errorf("40-day event on %s: %v, want %v", day["date"], covered, on <= 28)
		}
	}
	if n := len(datesWith(winter, long)); n != 28 {
		t.Errorf("40-day event covers %d days of 101-1, want 28", n)
	}
	// Admins see the private event.
	adminView, _ := f.dayView(t, f.Admin, "101-1-1", "101-1-1")
	if got := fmt.Sprint(datesWith(adminView, private)); got != "[101-1-1]" {
		t.Errorf("admin view of the private event: %s", got)
	}
}

func TestFullMoonEventStopsAtRecurringUntil(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.create(t, f.entity, f.Member, f.event("name", "Moon rite", "day", 1, "month", 1, "year", 100, "recurring_periodicity", "1_f", "recurring_until", 100))["id"].(float64)
	view, days := f.dayView(t, f.Member, "100-1-1", "101-3-30")
	var fullMoons []string
	for _, d := range days {
		day := d.(map[string]any)
		for _, m := range day["moons"].([]any) {
			for _, p := range m.(map[string]any)["phases"].([]any) {
				if p == "full" && day["date"].(string) < "101" {
					fullMoons = append(fullMoons, day["date"].(string))
				}
			}
		}
	}
	sort.Strings(fullMoons)
	got := datesWith(view, id)
	if len(fullMoons) < 8 || fmt.Sprint(got) != fmt.Sprint(fullMoons) {
		t.Fatalf("moon rite on %v, want the full moons of year 100 %v", got, fullMoons)
	}
}

func TestADayViewOfTooManyOccurrencesIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Monthly and 100,000 days long: thousands of its occurrences overlap on every day.
	f.create(t, f.entity, f.Admin, f.event("recurring_periodicity", "monthly", "length", 100000))
	r := f.Do("GET", apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d/days?from=200-1-1&to=210-1-1", f.cal)), f.Admin, nil)
	if r.Status != 422 || r.Errors()["to"] == nil {
		t.Fatalf("got %d %.300s, want 422 naming to", r.Status, r.Raw)
	}
	if r := f.Do("GET", apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d/days?from=200-1-1&to=200-1-2", f.cal)), f.Admin, nil); r.Status != 200 {
		t.Fatalf("a short range still answers: %d", r.Status)
	}
}

// An era added after the events that ends their year early (issue 21): events on the days it
// cut stay stored and show nowhere, recurring ones go on in the next years, and the day view,
// the reminders and the ages still answer.
func TestEventsOnDaysAnEraCut(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // current date 100-2-10
	lost := f.create(t, f.entity, f.Member, f.event("name", "Lost", "day", 10, "month", 3, "year", 105))["id"].(float64)
	yearly := f.create(t, f.entity, f.Member, f.event("name", "Yearly", "day", 10, "month", 3, "year", 101, "recurring_periodicity", "yearly"))["id"].(float64)
	monthly := f.create(t, f.entity, f.Member, f.event("name", "Monthly", "day", 20, "month", 1, "year", 105, "recurring_periodicity", "monthly"))["id"].(float64)
	everyDay := f.create(t, f.entity, f.Member, f.event("name", "Daily", "day", 9, "month", 2, "year", 105, "recurrence", "days", "recurrence_count", 3))["id"].(float64)
	born := makeEntity(t, f.Env, f.Campaign, false)
	f.create(t, born, f.Admin, f.event("type_id", 2, "day", 1, "month", 3, "year", 105))

	r := f.Do("PATCH", apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d", f.cal)), f.Admin, map[string]any{
		"eras": []any{map[string]any{"name": "Sundering", "year": 105, "month": 2, "day": 10, "ends_year": true}}})
	if r.Status != 200 {
		t.Fatalf("adding the era: %d %s", r.Status, r.Raw)
	}
	view, _ := f.dayView(t, f.Member, "105-1-1", "106-3-30")
	for _, tc := range []struct {
		name string
		id   float64
		want string
	}{
		{"an event on a cut day", lost, "[]"},
		{"yearly: 105-3-10 is cut", yearly, "[106-3-10]"},
		{"monthly: 105-2 ends on its 10th", monthly, "[105-1-20 106-1-20 106-2-20 106-3-20]"},
		{"every day across the cut", everyDay, "[105-2-10 105-2-9 106-1-1]"},
	} {
		if got := fmt.Sprint(datesWith(view, tc.id)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	for _, p := range []string{fmt.Sprintf("/calendars/%d/reminders", f.cal), fmt.Sprintf("/entities/%d/ages", born), fmt.Sprintf("/entities/%d/entity_events", f.entity)} {
		if r := f.Do("GET", apitest.Path(f.Campaign, p), f.Admin, nil); r.Status != 200 {
			t.Errorf("%s: %d %s", p, r.Status, r.Raw)
		}
	}
}
