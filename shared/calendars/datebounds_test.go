package calendars_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// The current year is accepted between -(2^53-1) and 2^53-1 (a create, update or import past
// that is a 422 on current_year or dynamic_data.year). Advance and retreat must keep to the same
// bound: a move past it is a 422 naming days that changes nothing, never a stored date the API
// itself refuses, which a client cannot write back (a PATCH of the date it read answers 422).
func TestAdvanceAndRetreatKeepTheCurrentYearWithinItsBound(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	const maxYear = 1<<53 - 1
	for _, c := range []struct {
		name, move string
		year       int64
		month, day int
		days       int
	}{
		{"advance one day off the last day", "advance", maxYear, 2, 30, 1},
		{"advance the most days near the end", "advance", maxYear - 1000, 1, 1, 1_000_000},
		{"retreat one day off the first day", "retreat", -maxYear, 1, 1, 1},
		{"retreat the most days near the start", "retreat", -maxYear + 1000, 1, 1, 1_000_000},
	} {
		start := with(plainBody("Edge"), "current_year", c.year, "current_month", c.month, "current_day", c.day)
		id := create(t, e, e.Campaign, e.Member, start)
		want := strconv.FormatInt(c.year, 10) + "-" + strconv.Itoa(c.month) + "-" + strconv.Itoa(c.day)
		r := e.Do("POST", cal(e.Campaign, id)+"/"+c.move, e.Member, map[string]any{"days": c.days})
		if r.Status != 422 {
			t.Errorf("%s: %s answered %d, want 422 naming days: %s", c.name, c.move, r.Status, r.Raw)
		} else if _, ok := r.Errors()["days"]; !ok {
			t.Errorf("%s: errors %v do not name days", c.name, r.Errors())
		}
		got := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()
		date, _ := got["date"].(string)
		if date != want {
			t.Errorf("%s: stored date %s, want it unchanged at %s", c.name, date, want)
		}
		// Whatever was stored, a client can write back the date it read.
		neg := strings.HasPrefix(date, "-")
		parts := strings.Split(strings.TrimPrefix(date, "-"), "-")
		if len(parts) != 3 {
			t.Fatalf("%s: date %q", c.name, date)
		}
		y, _ := strconv.ParseInt(parts[0], 10, 64)
		if neg {
			y = -y
		}
		m, _ := strconv.Atoi(parts[1])
		d, _ := strconv.Atoi(parts[2])
		back := e.Do("PATCH", cal(e.Campaign, id), e.Member, map[string]any{"current_year": y, "current_month": m, "current_day": d})
		if back.Status != 200 {
			t.Errorf("%s: writing back the stored date %s answered %d: %s", c.name, date, back.Status, back.Raw)
		}
	}
}
