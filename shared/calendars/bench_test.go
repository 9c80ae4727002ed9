package calendars_test

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Benchmarks go through the API handler against DynamoDB Local (apitest.Env.Bench).

func BenchmarkCalendarShow(b *testing.B) {
	e := apitest.New(b, calendars.Register)
	id := create(b, e, e.Campaign, e.Admin, fullBody())
	e.Bench(b, cal(e.Campaign, id))
}

// BenchmarkCalendarDays1000ThreeMoons is the largest day view: 1000 days of a calendar with
// three moons, one of which begins a phase every day.
func BenchmarkCalendarDays1000ThreeMoons(b *testing.B) {
	e := apitest.New(b, calendars.Register)
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
