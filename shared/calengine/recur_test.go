package calengine

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// refRuleStarts is the day-by-day model of a rule: it walks every day from the first day of
// the start's year to the end of hi's year, counting days, months and years as it enters them
// and collecting each month's and year's days with the rule's weekday, and keeps the steps'
// occurrences in [lo, hi]. It shares nothing with ruleStarts but the day walk (itself checked
// against the closed forms by checkDayWalk).
func refRuleStarts(t *testing.T, c *Calendar, r Rule, start Date, lo, hi int64) []int64 {
	t.Helper()
	anchor, err := c.DayNumber(start)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := c.DayNumber(Date{Year: start.Year, Month: 1, Day: 1})
	if c.DaysInMonth(start.Year, 1) == 0 {
		from = anchor
	}
	endYear := c.DateOf(hi).Year
	var out []int64
	keep := func(step, n int64) {
		if step%r.Interval != 0 || (r.Count > 0 && step/r.Interval >= r.Count) {
			return
		}
		if r.Until != nil {
			if u, _ := c.DayNumber(*r.Until); n > u {
				return
			}
		}
		if n >= anchor && n >= lo && n <= hi {
			out = append(out, n)
		}
	}
	pick := func(days []int64) (int64, bool) {
		switch {
		case r.Ordinal < 0 && -r.Ordinal <= len(days):
			return days[len(days)+r.Ordinal], true
		case r.Ordinal >= 1 && r.Ordinal <= len(days):
			return days[r.Ordinal-1], true
		}
		return 0, false
	}
	var phaseDays map[int64]bool
	if r.Unit == UnitMoon {
		phaseDays = map[int64]bool{}
		p, _ := PhaseIndex(r.Phase)
		for _, md := range c.MoonPhases(anchor, hi) {
			if md.MoonID != r.MoonID {
				continue
			}
			for _, ph := range md.Phases {
				if ph == PhaseNames[p] {
					phaseDays[md.Day] = true
				}
			}
		}
	}
	monthStep, yearStep, cycles := int64(-1), int64(-1), int64(0)
	var curMonth, curYear Date
	var monthDays, yearDays []int64
	flushMonth := func() {
		if monthStep >= 0 && r.Unit == UnitMonthWeekday {
			if n, ok := pick(monthDays); ok {
				keep(monthStep, n)
			}
		}
		monthDays = monthDays[:0]
	}
	flushYear := func() {
		if yearStep >= 0 && r.Unit == UnitYearWeekday {
			if n, ok := pick(yearDays); ok {
				keep(yearStep, n)
			}
		}
		yearDays = yearDays[:0]
	}
	first := true
	err = c.Days(context.Background(), from, maxDay, func(di DayInfo) bool {
		if di.Date.Year > endYear {
			return false
		}
		d := di.Date
		if first || d.Year != curYear.Year {
			flushMonth()
			flushYear()
			if d.Year >= start.Year {
				yearStep++
			}
		} else if d.Month != curMonth.Month {
			flushMonth()
		}
		if first || d.Year != curYear.Year || d.Month != curMonth.Month {
			// Months count by their place in the years, there that year or not (a month an era
			// cut, or its interval left out, is a step without an occurrence).
			yearOrd := func(y int64) int64 {
				if c.skipZero && y > 0 {
					return y - 1
				}
				return y
			}
			monthStep = (yearOrd(d.Year)-yearOrd(start.Year))*int64(len(c.months)) + int64(d.Month-start.Month)
		}
		first = false
		curMonth, curYear = d, d
		if di.Weekday == r.Weekday {
			monthDays = append(monthDays, di.Number)
			yearDays = append(yearDays, di.Number)
		}
		switch r.Unit {
		case UnitDays:
			if di.Number >= anchor {
				keep(di.Number-anchor, di.Number)
			}
		case UnitMonths:
			if monthStep >= 0 && d.Day == start.Day {
				keep(monthStep, di.Number)
			}
		case UnitYears:
			if d.Month == start.Month && d.Day == start.Day {
				keep(yearStep, di.Number)
			}
		case UnitMoon:
			if phaseDays[di.Number] {
				keep(cycles, di.Number)
				cycles++
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	flushMonth()
	flushYear()
	return out
}

func ruleStartsOf(c *Calendar, r Rule, start Date, lo, hi int64) []int64 {
	var out []int64
	anchor, _ := c.DayNumber(start)
	c.ruleStarts(&r, start, anchor, max(lo, anchor), hi, func(n int64) bool { out = append(out, n); return true })
	return out
}

// randomRule draws a rule valid on c (nil when the unit needs what c lacks: a moon whose
// period is at least a day, as the model counts cycles by the days they begin).
func randomRule(rnd *rand.Rand, c *Calendar, start Date) *Rule {
	r := Rule{Unit: RuleUnits[rnd.IntN(len(RuleUnits))], Interval: 1 + int64(rnd.IntN(4))}
	if rnd.IntN(3) == 0 {
		r.Interval = 1 + int64(rnd.IntN(40))
	}
	r.Weekday = rnd.IntN(int(c.nWeekdays))
	r.Ordinal = 1 + rnd.IntN(6)
	if rnd.IntN(3) == 0 {
		r.Ordinal = LastOrdinal
		if r.Interval%5 == 0 {
			r.Ordinal = -2 // counted from the end: the one before the last
		}
	}
	if rnd.IntN(3) == 0 {
		r.Count = 1 + int64(rnd.IntN(20))
	}
	if r.Unit == UnitMoon {
		var ok []int
		for _, m := range c.def.Moons {
			if n, d, _ := ParsePeriod(m.Fullmoon); n >= d {
				ok = append(ok, m.ID)
			}
		}
		if len(ok) == 0 {
			return nil
		}
		r.MoonID = ok[rnd.IntN(len(ok))]
		r.Phase = PhaseNames[rnd.IntN(8)]
	}
	if rnd.IntN(4) == 0 {
		a, _ := c.DayNumber(start)
		u := c.DateOf(a + int64(rnd.IntN(1500)))
		r.Until = &u
	}
	if p := c.CheckRule(r, start); len(p) > 0 {
		return nil
	}
	return &r
}

// TestRuleStartsAgainstDayByDay compares every rule unit with the day-by-day model on random
// calendars (leap rules, intercalary months and leap days, skipped year zero, negative years)
// and windows at and far from the start.
func TestRuleStartsAgainstDayByDay(t *testing.T) {
	t.Parallel()
	runs := 0
	perUnit := map[RuleUnit]int{}
	nonEmpty := map[RuleUnit]int{}
	for seed := uint64(0); runs < 3000 && seed < 20000; seed++ {
		// A third of the calendars restart their week each month or give months their own
		// week (issue 21): the weekday units count in each month's week, as the day view does.
		def := randomDefinition(seed)
		rw := rand.New(rand.NewPCG(seed, 99))
		switch rw.IntN(6) {
		case 0:
			def.WeekRestart = true
		case 1:
			for i := range def.Months {
				if rw.IntN(2) == 0 {
					for j := range 2 + rw.IntN(9) {
						def.Months[i].Weekdays = append(def.Months[i].Weekdays, "O"+strconv.Itoa(j))
					}
				}
			}
		}
		if rw.IntN(3) == 0 { // an era ending its year among the years the rules run over
			em := 1 + rw.IntN(len(def.Months))
			def.Eras = append(def.Eras, Era{Name: "Cut", Year: int64(rw.IntN(81) - 40), Month: em,
				Day: 1 + rw.IntN(def.Months[em-1].Length), EndsYear: true})
		}
		c, err := New(def)
		if err != nil {
			continue
		}
		rnd := rand.New(rand.NewPCG(seed, 7))
		y := int64(rnd.IntN(81) - 40)
		if c.skipZero && y == 0 {
			y = 1
		}
		m := 1 + rnd.IntN(len(c.months))
		if c.DaysInMonth(y, m) == 0 {
			continue
		}
		start := Date{Year: y, Month: m, Day: 1 + rnd.IntN(c.DaysInMonth(y, m))}
		r := randomRule(rnd, c, start)
		if r == nil {
			continue
		}
		anchor, _ := c.DayNumber(start)
		lo := anchor - 50 + int64(rnd.IntN(2000))
		hi := lo + int64(rnd.IntN(400))
		if c.DaysInYear(c.DateOf(hi).Year)+hi-anchor > 60000 {
			continue // the model walks whole years: keep it quick
		}
		runs++
		got := ruleStartsOf(c, *r, start, lo, hi)
		want := refRuleStarts(t, c, *r, start, lo, hi)
		perUnit[r.Unit]++
		if len(want) > 0 {
			nonEmpty[r.Unit]++
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d rule %v start %v window [%d, %d]:\n got %v\nwant %v", seed, r.String(), start, lo, hi, got, want)
		}
	}
	for _, u := range RuleUnits { // every unit ran, and often found occurrences
		if perUnit[u] < 100 || nonEmpty[u] < perUnit[u]/4 {
			t.Fatalf("unit %s: %d runs, %d with occurrences", u, perUnit[u], nonEmpty[u])
		}
	}
	t.Logf("runs per unit %v, with occurrences %v", perUnit, nonEmpty)
}

// TestRuleExamples pins the rules on a Gregorian-like week: the second Tuesday, the last
// Friday of the year, every 10 days five times, every other month, and until.
func TestRuleExamples(t *testing.T) {
	t.Parallel()
	c := mustNew(t, Definition{
		Months:   []Month{{Name: "A", Length: 30, Type: Standard}, {Name: "B", Length: 31, Type: Standard}, {Name: "I", Length: 2, Type: Intercalary}},
		Weekdays: []string{"Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"},
	})
	// Year 0 starts on a Monday; the year has 61 days in the week (8 weeks and 5 days).
	until := d(0, 2, 20)
	cases := []struct {
		name  string
		start Date
		rule  Rule
		from  Date
		to    Date
		want  []Date
	}{
		{"second tuesday", d(0, 1, 1), Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 1, Ordinal: 2}, d(0, 1, 1), d(1, 1, 30),
			[]Date{d(0, 1, 9), d(0, 2, 14), d(1, 1, 11)}},
		{"last friday of month", d(0, 1, 1), Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 4, Ordinal: LastOrdinal}, d(0, 1, 1), d(0, 3, 2),
			[]Date{d(0, 1, 26), d(0, 2, 31)}},
		{"second to last friday of month", d(0, 1, 1), Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 4, Ordinal: -2}, d(0, 1, 1), d(0, 3, 2),
			[]Date{d(0, 1, 19), d(0, 2, 24)}},
		{"second to last friday of year", d(0, 1, 1), Rule{Unit: UnitYearWeekday, Interval: 1, Weekday: 4, Ordinal: -2}, d(0, 1, 1), d(1, 3, 2),
			[]Date{d(0, 2, 24), d(1, 2, 19)}},
		{"sixth to last friday of a month of five: none", d(0, 1, 1), Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 4, Ordinal: -6}, d(0, 1, 1), d(0, 3, 2),
			nil},
		{"last friday of year", d(0, 1, 1), Rule{Unit: UnitYearWeekday, Interval: 1, Weekday: 4, Ordinal: LastOrdinal}, d(0, 1, 1), d(1, 3, 2),
			[]Date{d(0, 2, 31), d(1, 2, 26)}},
		{"fifth sunday skips short months", d(0, 1, 1), Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 6, Ordinal: 5}, d(0, 1, 1), d(1, 3, 2),
			[]Date{d(1, 1, 30)}},
		{"every 10 days 5 times", d(0, 1, 5), Rule{Unit: UnitDays, Interval: 10, Count: 5}, d(0, 1, 1), d(1, 1, 1),
			[]Date{d(0, 1, 5), d(0, 1, 15), d(0, 1, 25), d(0, 2, 5), d(0, 2, 15)}},
		{"every other month until", d(0, 1, 3), Rule{Unit: UnitMonths, Interval: 2, Until: &until}, d(0, 1, 1), d(2, 1, 30),
			[]Date{d(0, 1, 3)}},
		{"every 2 years from a late start", d(0, 2, 31), Rule{Unit: UnitYears, Interval: 2}, d(0, 1, 1), d(4, 3, 2),
			[]Date{d(0, 2, 31), d(2, 2, 31), d(4, 2, 31)}},
		{"not before the start", d(0, 1, 10), Rule{Unit: UnitMonthWeekday, Interval: 1, Weekday: 1, Ordinal: 1}, d(0, 1, 1), d(0, 2, 10),
			[]Date{d(0, 2, 7)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			occs, err := c.Occurrences(Event{Start: tc.start, Length: 1, Rule: &tc.rule}, tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			var got []Date
			for _, o := range occs {
				got = append(got, o.Start)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRuleStringRoundTrip checks the stored encoding and its refusals.
func TestRuleStringRoundTrip(t *testing.T) {
	t.Parallel()
	u := d(-3, 2, 1)
	rules := []Rule{
		{Unit: UnitDays, Interval: 3},
		{Unit: UnitMonths, Interval: 2, Count: 7},
		{Unit: UnitYearWeekday, Interval: 1, Weekday: 3, Ordinal: LastOrdinal, Until: &u},
		{Unit: UnitMoon, Interval: 4, MoonID: 2, Phase: "waxing_gibbous", Count: 3},
	}
	for _, r := range rules {
		back, err := ParseRule(r.String())
		if err != nil || !reflect.DeepEqual(back, r) {
			t.Fatalf("%q: %+v %v", r.String(), back, err)
		}
	}
	for _, bad := range []string{"", "days", "days/0", "weeks/1", "days/1;x=1", "moon/1;moon=1;phase=gibbous",
		"weekday_of_month/1;weekday=1;ordinal=0", "days/1;until=1-2", "days/1;count=-1", "days/99999999999999999999"} {
		if _, err := ParseRule(bad); err == nil {
			t.Fatalf("%q parsed", bad)
		}
	}
}

// TestRuleFarFromAnchorIsCheap: a window a billion years from the start costs the steps that
// meet it, not the distance (counted through the visits, never timed).
func TestRuleFarFromAnchorIsCheap(t *testing.T) {
	t.Parallel()
	c := calA(t)
	for _, r := range []Rule{
		{Unit: UnitDays, Interval: 3}, {Unit: UnitMonths, Interval: 1}, {Unit: UnitYears, Interval: 1},
		{Unit: UnitMonthWeekday, Interval: 1, Weekday: 0, Ordinal: 1}, {Unit: UnitYearWeekday, Interval: 1, Weekday: 0, Ordinal: LastOrdinal},
	} {
		lo, _ := c.DayNumber(d(1_000_000_000, 1, 1))
		n := 0
		c.ruleStarts(&r, d(0, 1, 1), 0, lo, lo+99, func(int64) bool { n++; return true })
		if n == 0 || n > 100 {
			t.Fatalf("%s: %d starts in 100 days", r.String(), n)
		}
	}
}

// TestEachOccurrenceStops: the walk ends when its visitor says so, whatever the event's
// overlapping occurrences (every day, 100,000 days long: 100,000 overlap each day), for each
// kind of recurrence, so a bounded caller never builds more than its bound.
func TestEachOccurrenceStops(t *testing.T) {
	t.Parallel()
	c := calA(t)
	for _, ev := range []Event{
		{Start: d(0, 1, 1), Length: 100_000, Rule: &Rule{Unit: UnitDays, Interval: 1}},
		{Start: d(0, 1, 1), Length: 100_000, Rule: &Rule{Unit: UnitMonths, Interval: 1}},
		{Start: d(0, 1, 1), Length: 100_000, Rule: &Rule{Unit: UnitMonthWeekday, Interval: 1, Ordinal: 1}},
		{Start: d(0, 1, 1), Length: 100_000, Recurrence: Recurrence{Kind: RecurMonthly}},
		{Start: d(0, 1, 1), Length: 100_000, Recurrence: Recurrence{Kind: RecurYearly}},
	} {
		calls := 0
		if err := c.EachOccurrence(ev, d(200, 1, 1), d(200, 2, 1), func(Occurrence) bool { calls++; return calls < 5 }); err != nil {
			t.Fatal(err)
		}
		all, _ := c.Occurrences(ev, d(200, 1, 1), d(200, 2, 1))
		if calls != 5 || len(all) <= 5 {
			t.Fatalf("%+v: %d visits after asking to stop at 5 (%d in all)", ev, calls, len(all))
		}
	}
}

// FuzzRule: any stored text either parses to a rule whose starts, on a fuzzed calendar and
// window, are ascending, inside the window and never before the start, or is refused.
func FuzzRule(f *testing.F) {
	for _, s := range []string{"days/1", "months/2;count=3", "years/1;until=5-1-1", "weekday_of_month/1;weekday=1;ordinal=2",
		"weekday_of_year/3;weekday=0;ordinal=-1", "moon/1;moon=1;phase=full", "moon/2;moon=2;phase=new;count=4", "weekday_of_month/1;weekday=8;ordinal=-1",
		"weekday_of_year/1;weekday=7;ordinal=3"} {
		f.Add(s, uint64(1), int64(0), int64(100))
		f.Add(s, uint64(4), int64(-50), int64(400))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64, lo int64, width int64) {
		r, err := ParseRule(text)
		if err != nil {
			return
		}
		def := randomDefinition(seed)
		if seed%3 == 1 { // weeks that restart each month, and a month with a longer week of its own
			def.WeekRestart = true
			def.Months[0].Weekdays = []string{"o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9"}
		}
		c, err := New(def)
		if err != nil {
			return
		}
		start := c.DateOf(0)
		if len(c.CheckRule(r, start)) > 0 {
			return
		}
		width = min(max(width, 0), 2000)
		if lo > maxDay-width {
			lo = maxDay - width
		}
		prev := int64(minDay)
		n := 0
		c.ruleStarts(&r, start, 0, max(lo, 0), lo+width, func(day int64) bool {
			if day < max(lo, 0) || day > lo+width || (n > 0 && day <= prev) {
				t.Fatalf("%q: start %d out of order or window [%d, %d] (prev %d)", text, day, lo, lo+width, prev)
			}
			prev = day
			n++
			return true
		})
	})
}

// TestNextStart: the next start on or after a date is the first of the occurrences listed from
// it, for random rules and Kanka's periodicities on random calendars; none for a one-off event
// before the date, and none within the bound for a monthly day no month has.
func TestNextStart(t *testing.T) {
	t.Parallel()
	runs := 0
	for seed := uint64(0); runs < 500 && seed < 5000; seed++ {
		c, err := New(randomDefinition(seed))
		if err != nil {
			continue
		}
		rnd := rand.New(rand.NewPCG(seed, 11))
		start := c.DateOf(int64(rnd.IntN(2000)) - 1000)
		ev := Event{Start: start, Length: 1 + rnd.IntN(5)}
		switch rnd.IntN(3) {
		case 0:
			ev.Rule = randomRule(rnd, c, start)
		case 1:
			ev.Recurrence = Recurrence{Kind: RecurYearly}
		default:
			ev.Recurrence = Recurrence{Kind: RecurMonthly}
		}
		from := c.DateOf(int64(rnd.IntN(4000)) - 2000)
		f, _ := c.DayNumber(from)
		got, ok := c.NextStart(ev, from)
		list, err := c.Occurrences(Event{Start: ev.Start, Length: 1, Recurrence: ev.Recurrence, Rule: ev.Rule}, from, c.DateOf(f+3*c.DaysInYear(from.Year)+400))
		if err != nil {
			continue
		}
		runs++
		if len(list) > 0 && (!ok || got != list[0].Start) {
			t.Fatalf("seed %d %+v from %v: next %v %v, listed %v", seed, ev, from, got, ok, list[0].Start)
		}
		if ok {
			if n, _ := c.DayNumber(got); n < f {
				t.Fatalf("seed %d: next %v before %v", seed, got, from)
			}
		}
	}
	c := calA(t)
	if _, ok := c.NextStart(Event{Start: d(1, 1, 1), Length: 1}, d(2, 1, 1)); ok {
		t.Fatal("a one-off event before the date has a next start")
	}
	if got, ok := c.NextStart(Event{Start: d(1, 1, 1), Length: 1}, d(1, 1, 1)); !ok || got != d(1, 1, 1) {
		t.Fatalf("a one-off event on the date: %v %v", got, ok)
	}
}
