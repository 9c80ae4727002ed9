package calendars_test

import (
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func TestBadCalendarInputIsRefusedWithTheFieldNamed(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	p := apitest.Path(e.Campaign, "/calendars")
	plain := plainBody("Bad")
	leap := with(plain, "has_leap_year", true, "leap_year_amount", 1, "leap_year_offset", 4, "leap_year_month", 2)
	moons := with(plain, "moon_name", []any{"Selune"}, "moon_fullmoon", []any{29.5})
	many := func(n int, v any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"missing name", with(plain, "name", nil), "name"},
		{"blank name", with(plain, "name", "   "), "name"},
		{"192-character name", with(plain, "name", strings.Repeat("a", 192)), "name"},
		{"name is a number", with(plain, "name", 12), "name"},
		{"192-character format", with(plain, "format", strings.Repeat("d", 192)), "format"},
		{"format is a number", with(plain, "format", 12), "format"},
		{"format is an array", with(plain, "format", []any{"d"}), "format"},
		{"no months", with(plain, "month_name", nil, "month_length", nil), "month_name"},
		{"no weekdays", with(plain, "weekday", nil), "weekday"},
		{"one month", with(plain, "month_name", []any{"A"}, "month_length", []any{30}), "month_name"},
		{"one weekday", with(plain, "weekday", []any{"X"}), "weekday"},
		{"fewer lengths than names", with(plain, "month_length", []any{30}), "month_length"},
		{"more types than names", with(plain, "month_type", []any{"standard", "standard", "standard"}), "month_type"},
		{"names without lengths", with(plain, "month_length", nil), "month_length"},
		{"a 0-length month", with(plain, "month_length", []any{30, 0}), "month_length"},
		{"a negative month length", with(plain, "month_length", []any{-5, 30}), "month_length"},
		{"a month length that is not a number", with(plain, "month_length", []any{30, "long"}), "month_length.1"},
		{"a fractional month length", with(plain, "month_length", []any{30, 1.5}), "month_length.1"},
		{"an unknown month type", with(plain, "month_type", []any{"standard", "leap"}), "month_type"},
		{"month names not an array", with(plain, "month_name", "A,B"), "month_name"},
		{"an empty month name", with(plain, "month_name", []any{"A", ""}), "month_name.1"},
		{"a weekday that is a number", with(plain, "weekday", []any{"X", 2}), "weekday.1"},
		{"101 months", with(plain, "month_name", many(101, "M"), "month_length", many(101, 1)), "month_name"},
		{"101 weekdays", with(plain, "weekday", many(101, "W")), "weekday"},
		{"1001 year names", with(plain, "year_number", many(1001, 1), "year_name", many(1001, "Y")), "year_number"},
		{"day 31 of a 30-day month", with(plain, "current_month", 2, "current_day", 31), "current_day"},
		{"month 3 of 2", with(plain, "current_month", 3), "current_month"},
		{"skipped year zero", with(plain, "skip_year_zero", true, "current_year", 0), "current_year"},
		{"a year that is not a number", with(plain, "current_year", "soon"), "current_year"},
		{"a zero moon period", with(moons, "moon_fullmoon", []any{0}), "moon_fullmoon.0"},
		{"a negative moon period", with(moons, "moon_fullmoon", []any{-29.5}), "moon_fullmoon.0"},
		{"a moon period in words", with(moons, "moon_fullmoon", []any{"monthly"}), "moon_fullmoon.0"},
		{"a moon period with an exponent", with(moons, "moon_fullmoon", []any{"2e1"}), "moon_fullmoon.0"},
		{"a moon period with 11 decimals", with(moons, "moon_fullmoon", []any{"29.12345678901"}), "moon_fullmoon.0"},
		{"a moon period that is a bool", with(moons, "moon_fullmoon", []any{true}), "moon_fullmoon.0"},
		{"moons without periods", with(moons, "moon_fullmoon", nil), "moon_fullmoon"},
		{"periods without moons", with(plain, "moon_fullmoon", []any{29.5}), "moon_name"},
		{"a moon offset that is not a number", with(moons, "moon_offset", []any{"x"}), "moon_offset.0"},
		{"a moon offset with 11 decimals", with(moons, "moon_offset", []any{"0.12345678901"}), "moon_offset.0"},
		{"duplicate moon ids", with(moons, "moon_name", []any{"A", "B"}, "moon_fullmoon", []any{3, 4}, "moon_id", []any{2, 2}), "moon_id.1"},
		{"a season in a missing month", with(plain, "season_name", []any{"S"}, "season_month", []any{3}, "season_day", []any{1}), "season_month"},
		{"a season on a missing day", with(plain, "season_name", []any{"S"}, "season_month", []any{2}, "season_day", []any{31}), "season_day"},
		{"seasons without days", with(plain, "season_name", []any{"S"}, "season_month", []any{2}), "season_day"},
		{"duplicate year numbers", with(plain, "year_number", []any{5, 5}, "year_name", []any{"A", "B"}), "year_number"},
		{"year names without numbers", with(plain, "year_name", []any{"A"}), "year_number"},
		{"leap years of no days", with(leap, "leap_year_amount", 0), "leap_year_amount"},
		{"leap years every 0 years", with(leap, "leap_year_offset", 0), "leap_year_offset"},
		{"leap days in a missing month", with(leap, "leap_year_month", 3), "leap_year_month"},
		{"leap years without settings", with(plain, "has_leap_year", true), "leap_year_amount"},
		{"has_leap_year is a word", with(plain, "has_leap_year", "often"), "has_leap_year"},
		{"is_private is a word", with(plain, "is_private", "maybe"), "is_private"},
		{"tags not an array", with(plain, "tags", 5), "tags"},
		{"image_url not a URL", with(plain, "image_url", "javascript:alert(1)"), "image_url"},
		{"entry that grows past the bound once sanitised", with(plain, "entry", strings.Repeat("<", 60_000)), "entry"},
		{"a calendar larger than an item", with(plain, "entry", strings.Repeat("e", 199_000), "year_number", manyInts(1000), "year_name", many(1000, strings.Repeat("y", 191))), "year_name"},
		{"malformed JSON", `{"name": "A",`, "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", p, e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %q", r.Status, r.Raw, c.field)
			}
			if msg, _ := r.Body["message"].(string); !strings.HasPrefix(msg, "The ") {
				t.Fatalf("message %q is not a Laravel-style sentence", msg)
			}
		})
	}
	if n := total(t, e, e.Campaign); n != 0 {
		t.Fatalf("refused creates stored %v calendars", n)
	}
}

func manyInts(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestRefusedUpdatesStoreNothing(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, fullBody())
	before := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Raw
	for _, body := range []map[string]any{
		{"name": ""},
		{"month_length": []any{1, 2, 3, 4}},
		{"moon_name": []any{"Only"}},
		{"current_month": 3, "current_day": 3, "name": "Moved"},
		{"leap_year_offset": 0},
		{"weekday": []any{"One"}},
	} {
		r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, body)
		if r.Status != 422 {
			t.Errorf("%v: got %d %s, want 422", body, r.Status, r.Raw)
		}
	}
	if after := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Raw; string(after) != string(before) {
		t.Fatalf("refused updates changed the calendar:\n%s\n%s", before, after)
	}
}
