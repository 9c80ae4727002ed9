package calengine

import (
	"reflect"
	"testing"
)

func occ(s, e Date) Occurrence { return Occurrence{Start: s, End: e} }

func until(y int64) *int64 { return &y }

func TestOccurrences(t *testing.T) {
	t.Parallel()
	b := calB(t, false) // 30 + 28(+1 in 4, 8, 12...) + 31 days
	a := calA(t)        // 10 + 5 (intercalary) + 10 days
	// calD: two 10-day months; 5 leap days appended to month 1 every 3 years
	// from 0, so day 12 of a month exists only in 0-1, 3-1, 6-1...
	calD := mustNew(t, Definition{
		Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}}, Weekdays: []string{"x", "y"},
		HasLeapYear: true, LeapYearAmount: 5, LeapYearMonth: 1, LeapYearOffset: 3, LeapYearStart: 0,
	})
	moonCal := mustNew(t, Definition{
		Months: []Month{{Name: "A", Length: 100}, {Name: "B", Length: 100}}, Weekdays: []string{"x", "y"},
		Moons: []Moon{{ID: 4, Name: "Luna", Fullmoon: "29.5"}},
	})
	yearly := Recurrence{Kind: RecurYearly}
	monthly := Recurrence{Kind: RecurMonthly}
	tests := []struct {
		name     string
		c        *Calendar
		ev       Event
		from, to Date
		want     []Occurrence
	}{
		{
			name: "single event in window",
			c:    b, ev: Event{Start: d(10, 1, 5), Length: 3},
			from: d(10, 1, 1), to: d(10, 2, 1),
			want: []Occurrence{occ(d(10, 1, 5), d(10, 1, 7))},
		},
		{
			name: "single event before window",
			c:    b, ev: Event{Start: d(10, 1, 5), Length: 3},
			from: d(10, 1, 8), to: d(10, 2, 1),
		},
		{
			name: "yearly on leap day only in leap years",
			c:    b, ev: Event{Start: d(4, 2, 29), Length: 1, Recurrence: yearly},
			from: d(1, 1, 1), to: d(13, 3, 31),
			want: []Occurrence{occ(d(4, 2, 29), d(4, 2, 29)), occ(d(8, 2, 29), d(8, 2, 29)), occ(d(12, 2, 29), d(12, 2, 29))},
		},
		{
			name: "yearly on leap day far away",
			c:    b, ev: Event{Start: d(4, 2, 29), Length: 1, Recurrence: yearly},
			from: d(999_999, 1, 1), to: d(1_000_003, 3, 31),
			want: []Occurrence{occ(d(1_000_000, 2, 29), d(1_000_000, 2, 29))},
		},
		{
			name: "yearly on leap day with until inclusive",
			c:    b, ev: Event{Start: d(4, 2, 29), Length: 1, Recurrence: yearly, Until: until(8)},
			from: d(1, 1, 1), to: d(20, 1, 1),
			want: []Occurrence{occ(d(4, 2, 29), d(4, 2, 29)), occ(d(8, 2, 29), d(8, 2, 29))},
		},
		{
			name: "yearly until inclusive",
			c:    b, ev: Event{Start: d(1000, 1, 5), Length: 2, Recurrence: yearly, Until: until(1002)},
			from: d(990, 1, 1), to: d(1010, 1, 1),
			want: []Occurrence{occ(d(1000, 1, 5), d(1000, 1, 6)), occ(d(1001, 1, 5), d(1001, 1, 6)), occ(d(1002, 1, 5), d(1002, 1, 6))},
		},
		{
			name: "until the anchor year",
			c:    b, ev: Event{Start: d(1000, 1, 5), Length: 2, Recurrence: yearly, Until: until(1000)},
			from: d(990, 1, 1), to: d(1010, 1, 1),
			want: []Occurrence{occ(d(1000, 1, 5), d(1000, 1, 6))},
		},
		{
			name: "until before the anchor year",
			c:    b, ev: Event{Start: d(1000, 1, 5), Length: 2, Recurrence: yearly, Until: until(999)},
			from: d(990, 1, 1), to: d(1010, 1, 1),
		},
		{
			name: "monthly on day 31 skips shorter months",
			c:    b, ev: Event{Start: d(1, 3, 31), Length: 1, Recurrence: monthly},
			from: d(1, 1, 1), to: d(3, 3, 31),
			want: []Occurrence{occ(d(1, 3, 31), d(1, 3, 31)), occ(d(2, 3, 31), d(2, 3, 31)), occ(d(3, 3, 31), d(3, 3, 31))},
		},
		{
			name: "monthly on day 29 includes the leap day",
			c:    b, ev: Event{Start: d(3, 3, 29), Length: 1, Recurrence: monthly},
			from: d(3, 1, 1), to: d(5, 1, 29),
			want: []Occurrence{
				occ(d(3, 3, 29), d(3, 3, 29)),
				occ(d(4, 1, 29), d(4, 1, 29)), occ(d(4, 2, 29), d(4, 2, 29)), occ(d(4, 3, 29), d(4, 3, 29)),
				occ(d(5, 1, 29), d(5, 1, 29)),
			},
		},
		{
			name: "monthly includes intercalary months",
			c:    a, ev: Event{Start: d(0, 1, 3), Length: 1, Recurrence: monthly},
			from: d(-5, 1, 1), to: d(1, 1, 3),
			want: []Occurrence{occ(d(0, 1, 3), d(0, 1, 3)), occ(d(0, 2, 3), d(0, 2, 3)), occ(d(0, 3, 3), d(0, 3, 3)), occ(d(1, 1, 3), d(1, 1, 3))},
		},
		{
			name: "monthly on a day only leap months have",
			c:    calD, ev: Event{Start: d(0, 1, 12), Length: 1, Recurrence: monthly},
			from: d(0, 1, 1), to: d(7, 2, 10),
			want: []Occurrence{occ(d(0, 1, 12), d(0, 1, 12)), occ(d(3, 1, 12), d(3, 1, 12)), occ(d(6, 1, 12), d(6, 1, 12))},
		},
		{
			// 10-3-20 + 99 days: 12 days to the year end, 89 in year 11
			// (not leap) would overshoot, so it ends on 11-3-30.
			name: "long event crossing the year end found from a later window",
			c:    b, ev: Event{Start: d(10, 3, 20), Length: 100, Recurrence: yearly},
			from: d(11, 1, 1), to: d(11, 1, 1),
			want: []Occurrence{occ(d(10, 3, 20), d(11, 3, 30))},
		},
		{
			// 11-3-20 + 99 days runs through leap year 12 (Beta 29 days):
			// 12 days to 11-3-31, 12-1-1 is +12, 12-3-1 is +71, so 12-3-29.
			name: "overlapping occurrences of a long yearly event",
			c:    b, ev: Event{Start: d(10, 3, 20), Length: 100, Recurrence: yearly},
			from: d(11, 3, 25), to: d(11, 3, 25),
			want: []Occurrence{occ(d(10, 3, 20), d(11, 3, 30)), occ(d(11, 3, 20), d(12, 3, 29))},
		},
		{
			name: "long single event",
			c:    b, ev: Event{Start: d(10, 3, 20), Length: 100},
			from: d(11, 2, 1), to: d(11, 2, 1),
			want: []Occurrence{occ(d(10, 3, 20), d(11, 3, 30))},
		},
		{
			// Full moons at floor(29.5k): 29, 59, 88 (anchor 1-1-1 is day 200).
			// Days 200..: k=7: 206.5 -> 206 = 2-1-7; k=8: 236 = 2-1-37.
			name: "full moon recurrence from the anchor on",
			c:    moonCal, ev: Event{Start: d(1, 1, 1), Length: 2, Recurrence: Recurrence{Kind: RecurMoon, MoonID: 4, Phase: "full"}},
			from: d(0, 1, 1), to: d(1, 1, 40),
			want: []Occurrence{occ(d(1, 1, 7), d(1, 1, 8)), occ(d(1, 1, 37), d(1, 1, 38))},
		},
		{
			// New moons at floor(14.75 + 29.5k); k=-7: -191.75 -> -192 = -1-1-9.
			name: "new moon recurrence before day 0",
			c:    moonCal, ev: Event{Start: d(-1, 1, 1), Length: 1, Recurrence: Recurrence{Kind: RecurMoon, MoonID: 4, Phase: "new"}},
			from: d(-1, 1, 1), to: d(-1, 1, 20),
			want: []Occurrence{occ(d(-1, 1, 9), d(-1, 1, 9))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.c.Occurrences(tt.ev, tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Occurrences = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestOccurrencesErrors(t *testing.T) {
	t.Parallel()
	b := calB(t, false)
	for name, ev := range map[string]Event{
		"zero length":   {Start: d(1, 1, 1), Length: 0},
		"invalid start": {Start: d(3, 2, 29), Length: 1},
		"unknown moon":  {Start: d(1, 1, 1), Length: 1, Recurrence: Recurrence{Kind: RecurMoon, MoonID: 1, Phase: "full"}},
		"unknown kind":  {Start: d(1, 1, 1), Length: 1, Recurrence: Recurrence{Kind: 42}},
	} {
		if _, err := b.Occurrences(ev, d(1, 1, 1), d(2, 1, 1)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := b.Occurrences(Event{Start: d(1, 1, 1), Length: 1}, d(1, 1, 1), d(1, 4, 1)); err == nil {
		t.Error("invalid window end accepted")
	}
}

func TestPeriodicity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, out string
		want    Recurrence
	}{
		{"", "", Recurrence{}},
		{"yearly", "yearly", Recurrence{Kind: RecurYearly}},
		{"year", "yearly", Recurrence{Kind: RecurYearly}},
		{"monthly", "monthly", Recurrence{Kind: RecurMonthly}},
		{"month", "monthly", Recurrence{Kind: RecurMonthly}},
		{"2_f", "2_f", Recurrence{Kind: RecurMoon, MoonID: 2, Phase: "full"}},
		{"2_full", "2_f", Recurrence{Kind: RecurMoon, MoonID: 2, Phase: "full"}},
		{"13_n", "13_n", Recurrence{Kind: RecurMoon, MoonID: 13, Phase: "new"}},
		{"1_first_quarter", "1_first_quarter", Recurrence{Kind: RecurMoon, MoonID: 1, Phase: "first_quarter"}},
	}
	for _, tt := range tests {
		got, err := ParsePeriodicity(tt.in)
		if err != nil || got != tt.want || got.Periodicity() != tt.out {
			t.Errorf("ParsePeriodicity(%q) = %+v, %v (%q)", tt.in, got, err, got.Periodicity())
		}
	}
	for _, in := range []string{"weekly", "_f", "0_f", "-1_f", "1_", "1_x", "x_f", "1_f_", "1"} {
		if _, err := ParsePeriodicity(in); err == nil {
			t.Errorf("ParsePeriodicity(%q) accepted", in)
		}
	}
}
