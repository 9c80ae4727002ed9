package calengine

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func clockCalendar(t *testing.T, k *Clock) *Calendar {
	t.Helper()
	def := Definition{Months: []Month{{Name: "A", Length: 3}, {Name: "B", Length: 2}}, Weekdays: []string{"x", "y"}, Clock: k}
	return mustNew(t, def)
}

func TestAddMinutes(t *testing.T) {
	t.Parallel()
	c := clockCalendar(t, &Clock{Hours: 24, Minutes: 60})
	tests := []struct {
		name     string
		d        Date
		tm       Time
		n        int64
		wantDate Date
		wantTime Time
	}{
		{"a minute", Date{1, 1, 1}, Time{0, 0}, 1, Date{1, 1, 1}, Time{0, 1}},
		{"into the next day", Date{1, 1, 1}, Time{23, 59}, 1, Date{1, 1, 2}, Time{0, 0}},
		{"into the next year", Date{1, 2, 2}, Time{23, 30}, 45, Date{2, 1, 1}, Time{0, 15}},
		{"back into the previous day", Date{1, 1, 2}, Time{0, 0}, -1, Date{1, 1, 1}, Time{23, 59}},
		{"back across years", Date{1, 1, 1}, Time{0, 0}, -5*1440 - 1, Date{-1, 2, 2}, Time{23, 59}},
		{"days and minutes", Date{1, 1, 1}, Time{12, 0}, 3*1440 + 61, Date{1, 2, 1}, Time{13, 1}},
		{"nothing", Date{7, 2, 1}, Time{5, 5}, 0, Date{7, 2, 1}, Time{5, 5}},
	}
	for _, tt := range tests {
		d, tm, err := c.AddMinutes(tt.d, tt.tm, tt.n)
		if err != nil || d != tt.wantDate || tm != tt.wantTime {
			t.Errorf("%s: %v %v %v; want %v %v", tt.name, d, tm, err, tt.wantDate, tt.wantTime)
		}
	}
	for _, n := range []int64{math.MaxInt64, math.MinInt64} {
		if _, _, err := c.AddMinutes(Date{1, 1, 1}, Time{}, n); err != nil {
			t.Errorf("%d minutes: %v (every day number has a date, so a move of any int64 minutes fits)", n, err)
		}
	}
	if _, _, err := c.AddMinutes(Date{1, 1, 1}, Time{24, 0}, 1); err == nil {
		t.Error("a time past the clock was moved")
	}
	if _, _, err := clockCalendar(t, nil).AddMinutes(Date{1, 1, 1}, Time{}, 1); err == nil {
		t.Error("a calendar without a clock moved its time")
	}
}

// AddMinutes agrees with counting minute by minute, on odd clocks and across a skipped year
// zero.
func TestAddMinutesAgainstMinuteByMinute(t *testing.T) {
	t.Parallel()
	for _, k := range []Clock{{Hours: 1, Minutes: 1}, {Hours: 3, Minutes: 7}, {Hours: 24, Minutes: 60}} {
		def := Definition{Months: []Month{{Name: "A", Length: 2}, {Name: "B", Length: 1, Type: Intercalary}}, Weekdays: []string{"x", "y"},
			Clock: &k, SkipYearZero: true, LeapDays: []LeapDay{{Month: 1, Interval: "3"}}}
		c := mustNew(t, def)
		d, tm := Date{-2, 1, 1}, Time{}
		for step := int64(1); step < 400; step++ {
			if tm.Minute++; tm.Minute == k.Minutes {
				tm.Minute = 0
				if tm.Hour++; tm.Hour == k.Hours {
					tm.Hour = 0
					d, _ = c.AddDays(d, 1)
				}
			}
			gd, gt, err := c.AddMinutes(Date{-2, 1, 1}, Time{}, step)
			if err != nil || gd != d || gt != tm {
				t.Fatalf("clock %+v, %d minutes: %v %v %v; want %v %v", k, step, gd, gt, err, d, tm)
			}
			bd, bt, err := c.AddMinutes(d, tm, -step)
			if err != nil || bd != (Date{-2, 1, 1}) || bt != (Time{}) {
				t.Fatalf("clock %+v, back %d minutes from %v %v: %v %v %v", k, step, d, tm, bd, bt, err)
			}
		}
	}
}

func TestClockAndCycleProblems(t *testing.T) {
	t.Parallel()
	base := func() Definition {
		return Definition{Months: []Month{{Name: "A", Length: 3}, {Name: "B", Length: 2}}, Weekdays: []string{"x", "y"}}
	}
	long := strings.Repeat("é", MaxCycleFormatSize+1)
	names := make([]string, MaxCycleNames+1)
	tests := []struct {
		name  string
		edit  func(*Definition)
		field string
	}{
		{"no hours", func(d *Definition) { d.Clock = &Clock{Hours: 0, Minutes: 60} }, "clock.hours"},
		{"too many hours", func(d *Definition) { d.Clock = &Clock{Hours: MaxClockHours + 1, Minutes: 60} }, "clock.hours"},
		{"no minutes", func(d *Definition) { d.Clock = &Clock{Hours: 24} }, "clock.minutes"},
		{"too many minutes", func(d *Definition) { d.Clock = &Clock{Hours: 24, Minutes: MaxClockMinutes + 1} }, "clock.minutes"},
		{"offset past the hours", func(d *Definition) { d.Clock = &Clock{Hours: 24, Minutes: 60, Offset: 24} }, "clock.offset"},
		{"negative offset", func(d *Definition) { d.Clock = &Clock{Hours: 24, Minutes: 60, Offset: -1} }, "clock.offset"},
		{"cycle without names", func(d *Definition) { d.Cycles = []Cycle{{Length: 1}} }, "cycles.0.names"},
		{"cycle with too many names", func(d *Definition) { d.Cycles = []Cycle{{Length: 1, Names: names}} }, "cycles.0.names"},
		{"cycle of no years", func(d *Definition) { d.Cycles = []Cycle{{Length: 0, Names: []string{"a"}}} }, "cycles.0.length"},
		{"cycle too long", func(d *Definition) { d.Cycles = []Cycle{{Length: MaxCycleLength + 1, Names: []string{"a"}}} }, "cycles.0.length"},
		{"too many cycles", func(d *Definition) { d.Cycles = make([]Cycle, MaxCycles+1) }, "cycles"},
		{"format too long", func(d *Definition) { d.CycleFormat = long }, "cycle_format"},
	}
	for _, tt := range tests {
		def := base()
		tt.edit(&def)
		_, err := New(def)
		ve, ok := err.(*ValidationError)
		if !ok || len(ve.Problems) == 0 || ve.Problems[0].Field != tt.field {
			t.Errorf("%s: %v; want a problem on %s", tt.name, err, tt.field)
		}
	}
	def := base()
	def.Clock = &Clock{Hours: MaxClockHours, Minutes: MaxClockMinutes, Offset: MaxClockHours - 1}
	def.Cycles = []Cycle{{Length: MaxCycleLength, Offset: math.MinInt64, Names: []string{"a"}}}
	if _, err := New(def); err != nil {
		t.Errorf("the limits themselves are refused: %v", err)
	}
}

// fcCycleIndex is Fantasy-Calendar's get_cycle for a year cycle, step by step as its
// JavaScript computes it (ok false where its index is negative and it names nothing).
func fcCycleIndex(year int64, yearZeroExists bool, cy Cycle) (int, bool) {
	data := year
	if !yearZeroExists && year > 0 {
		data = year - 1 // convert_year
	}
	n := int64(len(cy.Names))
	num := floorDiv(data, cy.Length)
	if num < 0 {
		abs := -data
		if abs < 0 {
			abs = data
		}
		num += (abs + n - 1) / n * n
	}
	idx := (num + floorDiv(cy.Offset, cy.Length)) % n // JavaScript's %: the dividend's sign
	return int(idx), idx >= 0
}

func TestCyclesAgainstFantasyCalendar(t *testing.T) {
	t.Parallel()
	cycles := []Cycle{
		{Length: 1, Names: []string{"Rat", "Ox", "Tiger", "Rabbit", "Dragon", "Snake", "Horse", "Goat", "Monkey", "Rooster", "Dog", "Pig"}},
		{Length: 2, Offset: 3, Names: []string{"Wood", "Fire", "Earth", "Metal", "Water"}},
		{Length: 12, Offset: -7, Names: []string{"Peace", "Strife", "War"}},
		{Length: 5, Offset: 1000, Names: []string{"only"}},
	}
	for _, skip := range []bool{false, true} {
		def := Definition{Months: []Month{{Name: "A", Length: 3}, {Name: "B", Length: 2}}, Weekdays: []string{"x", "y"}, SkipYearZero: skip, Cycles: cycles}
		c := mustNew(t, def)
		checked := 0
		for y := int64(-3000); y <= 3000; y++ {
			got := c.CycleIndices(y)
			for i, cy := range cycles {
				want, ok := fcCycleIndex(y, !skip, cy)
				if !ok {
					continue
				}
				checked++
				if got[i] != want {
					t.Fatalf("skip zero %v, year %d, cycle %d: index %d, Fantasy-Calendar %d", skip, y, i, got[i], want)
				}
			}
		}
		if checked < 20000 {
			t.Errorf("only %d indices compared", checked)
		}
	}
	c := mustNew(t, Definition{Months: []Month{{Name: "A", Length: 3}, {Name: "B", Length: 2}}, Weekdays: []string{"x", "y"},
		SkipYearZero: true, Cycles: cycles[:2], CycleFormat: "Year of the {{{2}}} {{1}} ($1, $2, {{3}})"})
	if got := c.CycleText(1); got != "Year of the Fire Rat (Rat, Fire, {{3}})" {
		t.Errorf("cycle text of year 1: %q", got)
	}
	if got := c.CycleNames(13); !reflect.DeepEqual(got, []string{"Rat", "Earth"}) {
		t.Errorf("cycle names of year 13: %q", got)
	}
	if c := mustNew(t, Definition{Months: []Month{{Name: "A", Length: 3}, {Name: "B", Length: 2}}, Weekdays: []string{"x", "y"}}); c.CycleText(1) != "" || c.CycleNames(1) != nil {
		t.Error("a calendar without cycles names its years")
	}
}

// The world clock: seconds since the epoch and the date, time and second they name, both ways,
// exactly, on both sides of the epoch and at the ends of int64.
func TestWorldClock(t *testing.T) {
	t.Parallel()
	c := clockCalendar(t, &Clock{Hours: 20, Minutes: 50}) // 60,000 seconds a day
	first, _ := c.DayNumber(Date{1, 1, 1})
	tests := []struct {
		name string
		d    Date
		tm   Time
		sec  int
		want int64
	}{
		{"the epoch", c.DateOf(0), Time{0, 0}, 0, 0},
		{"a second after it", c.DateOf(0), Time{0, 0}, 1, 1},
		{"an hour and a minute", c.DateOf(0), Time{1, 1}, 5, 50*60 + 60 + 5},
		{"the last second of day 0", c.DateOf(0), Time{19, 49}, 59, 59_999},
		{"the next day", c.DateOf(1), Time{0, 0}, 0, 60_000},
		{"before the epoch", c.DateOf(-1), Time{19, 49}, 59, -1},
		{"year one", Date{1, 1, 1}, Time{0, 0}, 0, first * 60_000},
	}
	for _, tt := range tests {
		got, err := c.SecondsOf(tt.d, tt.tm, tt.sec)
		if err != nil || got != tt.want {
			t.Errorf("%s: SecondsOf = %d, %v; want %d", tt.name, got, err, tt.want)
		}
		d, tm, sec, err := c.AtSeconds(tt.want)
		if err != nil || d != tt.d || tm != tt.tm || sec != tt.sec {
			t.Errorf("%s: AtSeconds(%d) = %v %v %d %v", tt.name, tt.want, d, tm, sec, err)
		}
	}
	for _, n := range []int64{math.MaxInt64, math.MinInt64, 123_456_789_012, -987_654_321} {
		d, tm, sec, err := c.AtSeconds(n)
		if err != nil {
			t.Fatalf("AtSeconds(%d): %v", n, err)
		}
		if back, err := c.SecondsOf(d, tm, sec); err == nil && back != n {
			t.Errorf("%d -> %v %v %d -> %d", n, d, tm, sec, back)
		}
	}
	if _, err := c.SecondsOf(Date{1, 1, 1}, Time{0, 0}, 60); err == nil {
		t.Error("second 60 accepted")
	}
	if _, err := clockCalendar(t, nil).SecondsOf(Date{1, 1, 1}, Time{0, 0}, 0); err == nil {
		t.Error("a calendar without a clock answered seconds")
	}
}
