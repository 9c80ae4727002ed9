package entityevents_test

import (
	"strconv"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// BenchmarkDays1000With100RecurringEvents is issue 11's load: a 1000-day view of a calendar
// with three moons (one beginning every phase every day, on which no event recurs) and Gregorian leap rules, on which 100
// events recur yearly, monthly or on a moon phase. Through the API, against DynamoDB Local.
func BenchmarkDays1000With100RecurringEvents(b *testing.B) {
	e := apitest.New(b, register)
	body := calendarBody()
	delete(body, "has_leap_year")
	body["leap_days"] = []any{map[string]any{"month": 2, "interval": "400,!100,4", "name": "Leap Day"}}
	body["moon_name"] = []string{"Selune", "Tiny", "Ghost"}
	body["moon_fullmoon"] = []string{"29.5", "0.001", "7.25"}
	body["moon_offset"] = []string{"0", "-1.5", "3.25"}
	r := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, body)
	if r.Status != 200 {
		b.Fatalf("calendar: %d %s", r.Status, r.Raw)
	}
	cal := int64(r.Data()["id"].(float64))
	entity := int64(r.Data()["entity_id"].(float64))
	for i := range 100 {
		periodicity := []string{"yearly", "monthly", "1_f", "3_n", "3_first_quarter"}[i%5]
		r := e.Do("POST", eventsOf(e.Campaign, entity), e.Admin, map[string]any{
			"name": "Event " + strconv.Itoa(i), "calendar_id": cal, "day": 1 + i%28, "month": 1 + i%3, "year": 1,
			"length": 1 + i%3, "recurring_periodicity": periodicity,
		})
		if r.Status != 200 {
			b.Fatalf("event %d: %d %s", i, r.Status, r.Raw)
		}
	}
	path := apitest.Path(e.Campaign, "/calendars/"+strconv.FormatInt(cal, 10)) + "/days?from=2000-1-1&to=2011-1-7"
	if r := e.Do("GET", path, e.Admin, nil); r.Status != 200 || len(r.List()) != 1000 {
		b.Fatalf("%d, %d days: %.300s", r.Status, len(r.List()), r.Raw)
	}
	e.Bench(b, path)
}
