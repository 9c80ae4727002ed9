package calengine

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

func mustNew(t testing.TB, def Definition) *Calendar {
	t.Helper()
	c, err := New(def)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func d(y int64, m, day int) Date { return Date{Year: y, Month: m, Day: day} }

// calA: 10 + 5 (intercalary) + 10 days, 3 weekdays, no leap years.
// A year has 25 days, 20 of them in the week.
func calA(t testing.TB) *Calendar {
	return mustNew(t, Definition{
		Months: []Month{
			{Name: "First", Length: 10, Type: Standard},
			{Name: "Second", Length: 5, Type: Intercalary},
			{Name: "Third", Length: 10, Type: Standard},
		},
		Weekdays: []string{"A", "B", "C"},
	})
}

// calB: 30 + 28 + 31 = 89 days, 7 weekdays, one leap day appended to month 2
// every 4 years from year 4 (4, 8, 12...; not 0, not -4).
func calB(t testing.TB, skip bool) *Calendar {
	return mustNew(t, Definition{
		Months: []Month{
			{Name: "Alpha", Length: 30},
			{Name: "Beta", Length: 28},
			{Name: "Gamma", Length: 31},
		},
		Weekdays:       []string{"Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"},
		SkipYearZero:   skip,
		HasLeapYear:    true,
		LeapYearAmount: 1,
		LeapYearMonth:  2,
		LeapYearOffset: 4,
		LeapYearStart:  4,
	})
}

func TestDayNumberYearZeroAndNegativeYears(t *testing.T) {
	t.Parallel()
	a := calA(t)
	b := calB(t, false)
	tests := []struct {
		name string
		c    *Calendar
		date Date
		want int64
	}{
		{"first day of year 0 is day 0", a, d(0, 1, 1), 0},
		{"year 1 starts after 25 days", a, d(1, 1, 1), 25},
		{"year -1 starts 25 days before", a, d(-1, 1, 1), -25},
		{"last day of year -1 is day -1", a, d(-1, 3, 10), -1},
		// 2*25 + 10 (First) + 2 = 62
		{"intercalary day counts as a day", a, d(2, 2, 3), 62},
		{"year -2 last day", a, d(-2, 3, 10), -26},
		// No leap years before 4: 4*89.
		{"first leap year start", b, d(4, 1, 1), 356},
		{"leap day", b, d(4, 2, 29), 356 + 30 + 28},
		{"day after leap day", b, d(4, 3, 1), 356 + 30 + 29},
		{"year after leap year", b, d(5, 1, 1), 356 + 90},
		// -4 is before the leap start: plain 89-day years.
		{"negative year before leap start", b, d(-4, 1, 1), -356},
		// 249 leap years (4..996) before year 1000.
		{"year 1000", b, d(1000, 1, 1), 89000 + 249},
		// Leap years 4..999999996: (10^9-1-4)/4+1 = 249999999.
		{"year 10^9", b, d(1_000_000_000, 1, 1), 89_000_000_000 + 249_999_999},
		{"year -10^9", b, d(-1_000_000_000, 1, 1), -89_000_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.c.DayNumber(tt.date)
			if err != nil || got != tt.want {
				t.Fatalf("DayNumber(%v) = %d, %v; want %d", tt.date, got, err, tt.want)
			}
			if back := tt.c.DateOf(tt.want); back != tt.date {
				t.Fatalf("DateOf(%d) = %v; want %v", tt.want, back, tt.date)
			}
		})
	}
}

func TestSkipYearZero(t *testing.T) {
	t.Parallel()
	c := calB(t, true)
	for _, tt := range []struct {
		date Date
		want int64
	}{
		{d(1, 1, 1), 0},
		{d(-1, 3, 31), -1},
		{d(-1, 1, 1), -89},
		{d(2, 1, 1), 89},
		{d(4, 1, 1), 3 * 89}, // years 1, 2, 3
		{d(5, 1, 1), 3*89 + 90},
	} {
		got, err := c.DayNumber(tt.date)
		if err != nil || got != tt.want {
			t.Errorf("DayNumber(%v) = %d, %v; want %d", tt.date, got, err, tt.want)
		}
		if back := c.DateOf(tt.want); back != tt.date {
			t.Errorf("DateOf(%d) = %v; want %v", tt.want, back, tt.date)
		}
	}
	if c.Valid(d(0, 1, 1)) {
		t.Error("year 0 must not be valid when skipped")
	}
	if _, err := c.DayNumber(d(0, 1, 1)); err == nil {
		t.Error("DayNumber of year 0 must fail")
	}
	if c.DaysInYear(0) != 0 || c.DaysInMonth(0, 1) != 0 || c.IsLeapYear(0) {
		t.Error("year 0 must have no days")
	}
	if got, _ := c.AddDays(d(-1, 3, 31), 1); got != d(1, 1, 1) {
		t.Errorf("day after -1-3-31 = %v; want 1-1-1", got)
	}
	if got, _ := c.AddDays(d(1, 1, 1), -1); got != d(-1, 3, 31) {
		t.Errorf("day before 1-1-1 = %v; want -1-3-31", got)
	}
}

// Leap years are counted in real year numbers, and a skipped year zero takes
// its leap days with it.
func TestSkipYearZeroWithLeapYears(t *testing.T) {
	t.Parallel()
	def := func(start int64) Definition {
		return Definition{
			Months:       []Month{{Name: "Alpha", Length: 30}, {Name: "Beta", Length: 28}, {Name: "Gamma", Length: 31}},
			Weekdays:     []string{"x", "y"},
			SkipYearZero: true, HasLeapYear: true,
			LeapYearAmount: 1, LeapYearMonth: 2, LeapYearOffset: 4, LeapYearStart: start,
		}
	}
	// Start 0: leap years 4, 8...; 0 would be one but is skipped; -4 is
	// before the start.
	zero := mustNew(t, def(0))
	// Start -8: leap years -8, -4, (0 skipped), 4, 8...
	neg := mustNew(t, def(-8))
	for _, tt := range []struct {
		c    *Calendar
		date Date
		want int64
	}{
		{zero, d(1, 1, 1), 0},
		{zero, d(4, 1, 1), 267}, // 3*89
		{zero, d(5, 1, 1), 357}, // + 90 (4 is leap)
		{zero, d(-1, 1, 1), -89},
		{zero, d(-4, 1, 1), -356},
		{neg, d(1, 1, 1), 0},
		{neg, d(5, 1, 1), 357},
		{neg, d(-1, 1, 1), -89},
		{neg, d(-4, 1, 1), -357},  // -(90 + 3*89)
		{neg, d(-5, 1, 1), -446},  // -357 - 89
		{neg, d(-8, 1, 1), -714},  // -(2*90 + 6*89)
		{neg, d(-8, 2, 29), -656}, // -714 + 58
	} {
		got, err := tt.c.DayNumber(tt.date)
		if err != nil || got != tt.want {
			t.Errorf("start %d: DayNumber(%v) = %d, %v; want %d", tt.c.def.LeapYearStart, tt.date, got, err, tt.want)
		}
		if back := tt.c.DateOf(tt.want); back != tt.date {
			t.Errorf("start %d: DateOf(%d) = %v; want %v", tt.c.def.LeapYearStart, tt.want, back, tt.date)
		}
	}
}

func TestLeapYears(t *testing.T) {
	t.Parallel()
	c := calB(t, false)
	tests := []struct {
		year     int64
		leap     bool
		beta     int
		yearDays int64
	}{
		{-8, false, 28, 89}, // before LeapYearStart: no leap days even though -8 ≡ 4 (mod 4)
		{0, false, 28, 89},
		{3, false, 28, 89},
		{4, true, 29, 90},
		{5, false, 28, 89},
		{8, true, 29, 90},
		{1_000_000, true, 29, 90},
		{1_000_001, false, 28, 89},
	}
	for _, tt := range tests {
		if got := c.IsLeapYear(tt.year); got != tt.leap {
			t.Errorf("IsLeapYear(%d) = %v", tt.year, got)
		}
		if got := c.DaysInMonth(tt.year, 2); got != tt.beta {
			t.Errorf("DaysInMonth(%d, 2) = %d; want %d", tt.year, got, tt.beta)
		}
		if got := c.DaysInYear(tt.year); got != tt.yearDays {
			t.Errorf("DaysInYear(%d) = %d; want %d", tt.year, got, tt.yearDays)
		}
	}
	if c.Valid(d(3, 2, 29)) || !c.Valid(d(4, 2, 29)) {
		t.Error("2-29 must exist in year 4 only")
	}
	if c.DaysInMonth(1, 0) != 0 || c.DaysInMonth(1, 4) != 0 {
		t.Error("months outside 1..3 have no days")
	}
}

func TestWeekdayIntercalaryDaysDoNotAdvance(t *testing.T) {
	t.Parallel()
	a := calA(t)
	tests := []struct {
		date Date
		want int
		ok   bool
	}{
		{d(0, 1, 1), 0, true},
		{d(0, 1, 10), 0, true}, // 9 days later: 9 mod 3
		{d(0, 2, 1), 0, false}, // intercalary
		{d(0, 2, 5), 0, false},
		{d(0, 3, 1), 1, true},   // 10 week days before it
		{d(1, 1, 1), 2, true},   // 20 week days before: 20 mod 3
		{d(-1, 3, 10), 2, true}, // -1 mod 3: the week day before day 0
		{d(-1, 1, 1), 1, true},  // -20 mod 3 = 1
		{d(5, 9, 1), 0, false},  // no such month
	}
	for _, tt := range tests {
		got, ok := a.Weekday(tt.date)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Weekday(%v) = %d, %v; want %d, %v", tt.date, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWeekdayStartOffset(t *testing.T) {
	t.Parallel()
	for _, off := range []int{2, -1, 5} { // all ≡ 2 (mod 3)
		def := calA(t).Definition()
		def.StartOffset = off
		c := mustNew(t, def)
		if w, _ := c.Weekday(d(0, 1, 1)); w != 2 {
			t.Errorf("offset %d: Weekday(0-1-1) = %d; want 2", off, w)
		}
		if w, _ := c.Weekday(d(0, 3, 1)); w != 0 { // (10+2) mod 3
			t.Errorf("offset %d: Weekday(0-3-1) = %d; want 0", off, w)
		}
	}
	// With SkipYearZero the offset applies to 1-1-1.
	def := calB(t, true).Definition()
	def.StartOffset = 3
	c := mustNew(t, def)
	if w, _ := c.Weekday(d(1, 1, 1)); w != 3 {
		t.Errorf("skip: Weekday(1-1-1) = %d; want 3", w)
	}
	if w, _ := c.Weekday(d(-1, 3, 31)); w != 2 {
		t.Errorf("skip: Weekday(-1-3-31) = %d; want 2", w)
	}
}

func TestWeekdayLeapDays(t *testing.T) {
	t.Parallel()
	b := calB(t, false)
	// Standard leap month: the leap day has a weekday and advances the week.
	// 5-1-1 is day 446 = 63*7 + 5.
	if w, ok := b.Weekday(d(5, 1, 1)); !ok || w != 5 {
		t.Errorf("Weekday(5-1-1) = %d, %v; want 5", w, ok)
	}
	if w, ok := b.Weekday(d(4, 2, 29)); !ok || w != (356+58)%7 {
		t.Errorf("Weekday(4-2-29) = %d, %v", w, ok)
	}

	// Intercalary leap month: 3 + 1 (intercalary, +2 leap days in years
	// 2, 4, ...) + 3 days; 6 week days a year; leap days stay outside the week.
	c := mustNew(t, Definition{
		Months: []Month{
			{Name: "Winter", Length: 3},
			{Name: "Midwinter", Length: 1, Type: Intercalary},
			{Name: "Summer", Length: 3},
		},
		Weekdays:    []string{"Even", "Odd"},
		HasLeapYear: true, LeapYearAmount: 2, LeapYearMonth: 2, LeapYearOffset: 2, LeapYearStart: 2,
	})
	if got := c.DaysInMonth(2, 2); got != 3 {
		t.Errorf("DaysInMonth(2, 2) = %d; want 3", got)
	}
	if c.DaysInMonth(0, 2) != 1 || c.DaysInMonth(-2, 2) != 1 {
		t.Error("no leap days before LeapYearStart")
	}
	// 2-3-1: days 7+7 (years 0, 1) + 3 + 3 (Midwinter with leap days) = 20.
	if n, _ := c.DayNumber(d(2, 3, 1)); n != 20 {
		t.Errorf("DayNumber(2-3-1) = %d; want 20", n)
	}
	// Week days before 2-3-1: 6+6+3 = 15, odd.
	if w, ok := c.Weekday(d(2, 3, 1)); !ok || w != 1 {
		t.Errorf("Weekday(2-3-1) = %d, %v; want 1", w, ok)
	}
	if _, ok := c.Weekday(d(2, 2, 3)); ok {
		t.Error("a leap day of an intercalary month has no weekday")
	}
	// 3-1-1: 18 week days before it.
	if w, ok := c.Weekday(d(3, 1, 1)); !ok || w != 0 {
		t.Errorf("Weekday(3-1-1) = %d, %v; want 0", w, ok)
	}
}

func TestSeasonWrapsToPreviousYear(t *testing.T) {
	t.Parallel()
	c := mustNew(t, Definition{
		Months:   []Month{{Name: "M1", Length: 10}, {Name: "M2", Length: 10}, {Name: "M3", Length: 10}, {Name: "M4", Length: 10}},
		Weekdays: []string{"a", "b"},
		// Deliberately unsorted.
		Seasons: []Season{{Name: "Winter", Month: 4, Day: 6}, {Name: "Spring", Month: 2, Day: 5}, {Name: "Summer", Month: 3, Day: 1}},
	})
	tests := []struct {
		date Date
		want string
	}{
		{d(1, 1, 1), "Winter"}, // before Spring: last year's winter
		{d(-7, 2, 4), "Winter"},
		{d(1, 2, 5), "Spring"},
		{d(1, 2, 10), "Spring"},
		{d(1, 3, 1), "Summer"},
		{d(1, 4, 5), "Summer"},
		{d(1, 4, 6), "Winter"},
	}
	for _, tt := range tests {
		s, ok := c.Season(tt.date)
		if !ok || s.Name != tt.want {
			t.Errorf("Season(%v) = %q, %v; want %q", tt.date, s.Name, ok, tt.want)
		}
	}
	if _, ok := calA(t).Season(d(1, 1, 1)); ok {
		t.Error("a calendar without seasons has no season")
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	good := []struct {
		in   string
		want Date
	}{
		{"1024-3-7", d(1024, 3, 7)},
		{"-12-3-4", d(-12, 3, 4)},
		{"0-1-1", d(0, 1, 1)},
		{"1024-03-07", d(1024, 3, 7)},
		{"-9223372036854775808-1-1", d(-9223372036854775808, 1, 1)},
	}
	for _, tt := range good {
		got, err := ParseDate(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{
		"", "1", "1-2", "1-2-3-4", "a-1-1", "1-b-1", "1-1-c", "1--1-1", "--1-1-1",
		"+1-1-1", " 1-1-1", "1-1-1 ", "1.5-1-1", "1-1-", "-1-1", "99999999999999999999-1-1",
		"1-99999999999-1", "1-1-1e3",
	} {
		if got, err := ParseDate(in); err == nil {
			t.Errorf("ParseDate(%q) = %v; want an error", in, got)
		}
	}
	for _, dt := range []Date{d(1024, 3, 7), d(-5, 1, 1), d(0, 12, 30)} {
		if back, err := ParseDate(dt.String()); err != nil || back != dt {
			t.Errorf("round trip of %v: %v, %v", dt, back, err)
		}
	}
	if s := d(-5, 1, 1).String(); s != "-5-1-1" {
		t.Errorf("String = %q", s)
	}
}

func TestAge(t *testing.T) {
	t.Parallel()
	death := d(1050, 6, 1)
	tests := []struct {
		name           string
		birth, current Date
		death          *Date
		want           int64
	}{
		{name: "birthday reached", birth: d(1000, 5, 5), current: d(1010, 5, 5), want: 10},
		{name: "day before birthday", birth: d(1000, 5, 5), current: d(1010, 5, 4), want: 9},
		{name: "earlier month", birth: d(1000, 5, 5), current: d(1010, 4, 30), want: 9},
		{name: "newborn", birth: d(1000, 5, 5), current: d(1000, 5, 5), want: 0},
		// Kanka's rule holds for births ahead too: the floor of the exact
		// difference, never its truncation.
		{name: "birth 10.3 years after current date", birth: d(1010, 5, 5), current: d(1000, 1, 1), want: -11},
		{name: "birth 9.7 years after current date", birth: d(1010, 1, 1), current: d(1000, 5, 5), want: -10},
		{name: "birth 9.6 years ahead is -10", birth: d(1009, 12, 1), current: d(1000, 5, 5), want: -10},
		{name: "birth exactly 10 years ahead", birth: d(1010, 5, 5), current: d(1000, 5, 5), want: -10},
		{name: "birth a day after current date", birth: d(1000, 5, 6), current: d(1000, 5, 5), want: -1},
		{name: "age at death", birth: d(1000, 1, 1), current: d(2000, 1, 1), death: &death, want: 50},
		{name: "negative years", birth: d(-20, 3, 3), current: d(5, 3, 2), want: 24},
	}
	for _, tt := range tests {
		if got := Age(tt.birth, tt.death, tt.current); got != tt.want {
			t.Errorf("%s: Age = %d; want %d", tt.name, got, tt.want)
		}
	}
	skip := calB(t, true)
	// -1-5-5 to 1-5-5 is one year when year 0 does not exist.
	if got := skip.Age(d(-1, 5, 5), nil, d(1, 5, 5)); got != 1 {
		t.Errorf("skip-zero Age = %d; want 1", got)
	}
	if got := skip.Age(d(1, 5, 5), nil, d(-1, 5, 5)); got != -1 {
		t.Errorf("skip-zero reverse Age = %d; want -1", got)
	}
	if got := skip.Age(d(1, 5, 5), nil, d(-1, 5, 6)); got != -1 {
		t.Errorf("skip-zero reverse Age short of a year = %d; want -1", got)
	}
	if got := skip.Age(d(-1, 5, 5), nil, d(1, 5, 4)); got != 0 {
		t.Errorf("skip-zero Age short of a year = %d; want 0", got)
	}
	if got := calB(t, false).Age(d(-1, 5, 5), nil, d(1, 5, 5)); got != 2 {
		t.Errorf("Age with year 0 = %d; want 2", got)
	}
}

func TestValidation(t *testing.T) {
	t.Parallel()
	base := func() Definition {
		return Definition{
			Months:   []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}},
			Weekdays: []string{"x", "y"},
		}
	}
	tests := []struct {
		name  string
		edit  func(*Definition)
		field string
		msg   string
	}{
		{"one month", func(d *Definition) { d.Months = d.Months[:1] }, "month_name", "The month name must have at least 2 items."},
		{"zero length", func(d *Definition) { d.Months[1].Length = 0 }, "month_length", "The month length must be at least 1."},
		{"huge year", func(d *Definition) { d.Months[0].Length = MaxYearLength }, "month_length", "The month lengths must not add up to more than 1000000000 days."},
		{"bad type", func(d *Definition) { d.Months[0].Type = "leap" }, "month_type", "The selected month type is invalid."},
		{"one weekday", func(d *Definition) { d.Weekdays = []string{"x"} }, "weekday", "The weekday must have at least 2 items."},
		{"leap amount", func(d *Definition) {
			d.HasLeapYear, d.LeapYearAmount, d.LeapYearOffset, d.LeapYearMonth = true, 0, 4, 1
		}, "leap_year_amount", "The leap year amount must be at least 1."},
		{"leap offset", func(d *Definition) {
			d.HasLeapYear, d.LeapYearAmount, d.LeapYearOffset, d.LeapYearMonth = true, 1, 0, 1
		}, "leap_year_offset", "The leap year offset must be at least 1."},
		{"leap month", func(d *Definition) {
			d.HasLeapYear, d.LeapYearAmount, d.LeapYearOffset, d.LeapYearMonth = true, 1, 4, 3
		}, "leap_year_month", "The selected leap year month is invalid."},
		{"season month", func(d *Definition) { d.Seasons = []Season{{Name: "S", Month: 3, Day: 1}} }, "season_month", "The selected season month is invalid."},
		{"season day", func(d *Definition) { d.Seasons = []Season{{Name: "S", Month: 2, Day: 11}} }, "season_day", "The season day must be a day of the season's month."},
		{"moon exponent", func(d *Definition) { d.Moons = []Moon{{Name: "M", Fullmoon: "1e3"}} }, "moon_fullmoon.0", "The moon fullmoon must be a positive number with at most 10 decimal places."},
		{"moon zero", func(d *Definition) { d.Moons = []Moon{{Name: "M", Fullmoon: "0.0"}} }, "moon_fullmoon.0", "The moon fullmoon must be a positive number with at most 10 decimal places."},
		{"moon 11 decimals", func(d *Definition) { d.Moons = []Moon{{Name: "M", Fullmoon: "1.00000000001"}} }, "moon_fullmoon.0", "The moon fullmoon must be a positive number with at most 10 decimal places."},
		{"moon huge", func(d *Definition) { d.Moons = []Moon{{Name: "M", Fullmoon: "100000000.5"}} }, "moon_fullmoon.0", "The moon fullmoon must not be greater than 100000000."},
		{"moon duplicate id", func(d *Definition) {
			d.Moons = []Moon{{ID: 2, Name: "M", Fullmoon: "3"}, {ID: 2, Name: "N", Fullmoon: "4"}}
		}, "moon_id.1", "The moon id field has a duplicate value."},
	}
	for _, tt := range tests {
		def := base()
		tt.edit(&def)
		_, err := New(def)
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v; want a ValidationError", tt.name, err)
			continue
		}
		if !slices.Contains(ve.Problems, Problem{Field: tt.field, Message: tt.msg}) {
			t.Errorf("%s: problems = %v; want %s: %q", tt.name, ve.Problems, tt.field, tt.msg)
		}
	}
	def := base()
	def.Months = nil
	def.Weekdays = nil
	_, err := New(def)
	if err == nil || err.Error() != "The month name must have at least 2 items. (and 1 more error)" {
		t.Errorf("summary = %v", err)
	}
	// Accepted edge cases.
	def = base()
	def.Months[0].Type = ""
	def.Moons = []Moon{{Name: "M", Fullmoon: "0.0000000001"}, {Name: "N", Fullmoon: "100000000"}, {Name: "O", Fullmoon: "029.50"}}
	def.StartOffset = -7
	c, err := New(def)
	if err != nil {
		t.Fatalf("valid definition rejected: %v", err)
	}
	got := c.Definition()
	if got.Months[0].Type != Standard || got.Moons[1].ID != 2 {
		t.Errorf("defaults not filled: %+v", got)
	}
}

func TestDefinitionIsACopy(t *testing.T) {
	t.Parallel()
	def := Definition{
		Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}}, Weekdays: []string{"x", "y"},
		Years: map[int64]string{1: "One"},
	}
	c := mustNew(t, def)
	def.Months[0].Length = 99
	def.Years[1] = "Changed"
	got := c.Definition()
	got.Weekdays[0] = "changed"
	if c.DaysInMonth(1, 1) != 10 || c.Definition().Years[1] != "One" || c.Definition().Weekdays[0] != "x" {
		t.Error("the calendar shares memory with its definition")
	}
}

func TestMoonPhaseDays(t *testing.T) {
	t.Parallel()
	c := mustNew(t, Definition{
		Months:   []Month{{Name: "A", Length: 100}, {Name: "B", Length: 100}},
		Weekdays: []string{"x", "y"},
		Moons: []Moon{
			{Name: "Luna", Fullmoon: "29.5"},
			{Name: "Late", Fullmoon: "29.5", Offset: "5"},
			{Name: "Early", Fullmoon: "29.5", Offset: "-3"},
			{Name: "Quick", Fullmoon: "2.5"},
			{Name: "Shifted", Fullmoon: "29.5", Offset: "0.75"},
			{Name: "Back", Fullmoon: "29.5", Offset: "-0.5"},
		},
	})
	phaseDays := func(id int, phase string, from, to int64) ([]int64, error) {
		m, err := c.moon(id)
		if err != nil {
			return nil, err
		}
		p, ok := PhaseIndex(phase)
		if !ok {
			return nil, errUnknownPhase
		}
		var out []int64
		m.phaseDays(p, from, to, func(d int64) bool {
			out = append(out, d)
			return true
		})
		return out, nil
	}
	tests := []struct {
		name     string
		moon     int
		phase    string
		from, to int64
		want     []int64
	}{
		// Full moons at floor(29.5k): -30 (k=-1), 0, 29, 59, 88, 118.
		{"29.5 full", 1, "full", -30, 118, []int64{-30, 0, 29, 59, 88, 118}},
		// New moons at floor(14.75 + 29.5k): -15, 14, 44, 73.
		{"29.5 new", 1, "new", -20, 80, []int64{-15, 14, 44, 73}},
		// floor(3.6875 + 29.5k): 3, 33.
		{"29.5 waning gibbous", 1, "waning_gibbous", 0, 40, []int64{3, 33}},
		{"offset 5", 2, "full", 0, 70, []int64{5, 34, 64}},
		{"offset -3", 3, "full", -40, 60, []int64{-33, -3, 26, 56}},
		// floor(2.5k): -5 (k=-2), -3 (k=-1), 0, 2, 5, 7, 10.
		{"2.5 full", 4, "full", -5, 10, []int64{-5, -3, 0, 2, 5, 7, 10}},
		// floor(1.25 + 2.5k): -2, 1, 3, 6, 8.
		{"2.5 new", 4, "new", -2, 9, []int64{-2, 1, 3, 6, 8}},
		{"empty window", 1, "full", 1, 28, nil},
		// Decimal shifts: floor(0.75 + 29.5k) and floor(-0.5 + 29.5k).
		{"offset 0.75", 5, "full", -1, 90, []int64{0, 30, 59, 89}},
		{"offset -0.5", 6, "full", -1, 90, []int64{-1, 29, 58, 88}},
	}
	for _, tt := range tests {
		got, err := phaseDays(tt.moon, tt.phase, tt.from, tt.to)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: PhaseDays = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := phaseDays(9, "full", 0, 1); err == nil {
		t.Error("unknown moon accepted")
	}
	if _, err := phaseDays(1, "gibbous", 0, 1); err == nil {
		t.Error("unknown phase accepted")
	}
}

func TestMoonPhasesMerged(t *testing.T) {
	t.Parallel()
	c := mustNew(t, Definition{
		Months:   []Month{{Name: "A", Length: 100}, {Name: "B", Length: 100}},
		Weekdays: []string{"x", "y"},
		Moons: []Moon{
			{ID: 7, Name: "Quick", Fullmoon: "2.5"},
			{ID: 3, Name: "Daily", Fullmoon: "1"},
		},
	})
	all := PhaseNames[:]
	// Period 2.5: phase j starts on floor(5j/16).
	// day 0: j=0..3; day 1: j=4..6; day 2: j=7..9; day 3: j=10..12.
	want := []MoonDay{
		{0, 7, "Quick", "full", []string{"full", "waning_gibbous", "last_quarter", "waning_crescent"}, 0, 8},
		{0, 3, "Daily", "full", all, 0, 8},
		{1, 7, "Quick", "new", []string{"new", "waxing_crescent", "first_quarter"}, 4, 8},
		{1, 3, "Daily", "full", all, 0, 8},
		{2, 7, "Quick", "waxing_gibbous", []string{"waxing_gibbous", "full", "waning_gibbous"}, 7, 8},
		{2, 3, "Daily", "full", all, 0, 8},
		{3, 7, "Quick", "last_quarter", []string{"last_quarter", "waning_crescent", "new"}, 2, 8},
		{3, 3, "Daily", "full", all, 0, 8},
	}
	got := c.MoonPhases(0, 3)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MoonPhases(0, 3) =\n%v\nwant\n%v", got, want)
	}
	// A very fast moon: 16 events a day still give one entry with 8 phases.
	fast := mustNew(t, Definition{
		Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}}, Weekdays: []string{"x", "y"},
		Moons: []Moon{{Name: "Fast", Fullmoon: "0.5", Offset: "-1"}},
	})
	got = fast.MoonPhases(-100000, 100000)
	if len(got) != 200001 || got[0].Day != -100000 || !slices.Equal(got[5].Phases, all) {
		t.Errorf("fast moon: %d entries, first %+v", len(got), got[0])
	}
	// Phase days are merged too: one entry per day.
	var days []int64
	fast.moons[0].phaseDays(4, 10, 12, func(d int64) bool {
		days = append(days, d)
		return true
	})
	if !slices.Equal(days, []int64{10, 11, 12}) {
		t.Errorf("fast new moons = %v", days)
	}
	// A tiny period must not cost per event.
	tiny := mustNew(t, Definition{
		Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}}, Weekdays: []string{"x", "y"},
		Moons: []Moon{{Name: "Tiny", Fullmoon: "0.0000000001"}},
	})
	if got := tiny.MoonPhases(5_000_000_000_000, 5_000_000_000_002); len(got) != 3 || got[2].Day != 5_000_000_000_002 {
		t.Errorf("tiny moon: %v", got)
	}
	// Its recurrences reserve no more than the window's days: a phase
	// begins at most once a day.
	ev := Event{Start: d(0, 1, 1), Length: 1, Recurrence: Recurrence{Kind: RecurMoon, MoonID: 1, Phase: "full"}}
	occ, err := tiny.Occurrences(ev, d(5, 1, 1), d(5, 1, 2))
	if err != nil || len(occ) != 2 || cap(occ) > 2 {
		t.Errorf("tiny moon recurrence over 2 days: %d occurrences, capacity %d, %v", len(occ), cap(occ), err)
	}
}
