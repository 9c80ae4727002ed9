package calengine

import (
	"testing"
)

func benchCalendar(b *testing.B) *Calendar {
	return mustNew(b, Definition{
		Months: []Month{
			{Name: "Deepwinter", Length: 30}, {Name: "Midwinter", Length: 1, Type: Intercalary},
			{Name: "Claws", Length: 30}, {Name: "Storms", Length: 30}, {Name: "Melting", Length: 30},
			{Name: "Greengrass", Length: 1, Type: Intercalary}, {Name: "Rain", Length: 30},
			{Name: "Flowers", Length: 30}, {Name: "Summertide", Length: 30}, {Name: "Midsummer", Length: 1, Type: Intercalary},
			{Name: "Highsun", Length: 30}, {Name: "Fading", Length: 30}, {Name: "Leaffall", Length: 30},
			{Name: "Highharvest", Length: 1, Type: Intercalary}, {Name: "Rotting", Length: 30},
			{Name: "Moon Feast", Length: 1, Type: Intercalary}, {Name: "Drawing Down", Length: 30},
		},
		Weekdays: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"},
		Seasons:  []Season{{Name: "Spring", Month: 5, Day: 19}, {Name: "Summer", Month: 9, Day: 20}, {Name: "Autumn", Month: 13, Day: 21}, {Name: "Winter", Month: 17, Day: 20}},
		Moons: []Moon{
			{ID: 1, Name: "Selûne", Fullmoon: "30.4375"},
			{ID: 2, Name: "Tears", Fullmoon: "2.5", Offset: "-3"},
			{ID: 3, Name: "Pale", Fullmoon: "91.3333333333", Offset: "12"},
		},
		HasLeapYear: true, LeapYearAmount: 1, LeapYearMonth: 10, LeapYearOffset: 4, LeapYearStart: 0,
		SkipYearZero: true,
	})
}

// benchMoonRecurrence enumerates a full-moon recurrence anchored in year 1
// over `years` years starting in year 1,000,000. Doubling the years should
// double the time (and the occurrence count): the cost does not depend on
// the distance from the anchor.
func benchMoonRecurrence(b *testing.B, years int64) {
	c := benchCalendar(b)
	ev := Event{Start: d(1, 1, 1), Length: 1, Recurrence: Recurrence{Kind: RecurMoon, MoonID: 1, Phase: "full"}}
	from, to := d(1_000_000, 1, 1), d(1_000_000+years-1, 17, 30)
	n := 0
	for b.Loop() {
		occ, err := c.Occurrences(ev, from, to)
		if err != nil {
			b.Fatal(err)
		}
		n = len(occ)
	}
	// 365.25 / 30.4375 = 12 full moons a year.
	if want := int(years) * 12; n < want-1 || n > want+1 {
		b.Fatalf("%d occurrences; want about %d", n, want)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/occurrence")
}

func BenchmarkMoonRecurrence1000Years(b *testing.B)  { benchMoonRecurrence(b, 1000) }
func BenchmarkMoonRecurrence10000Years(b *testing.B) { benchMoonRecurrence(b, 10000) }

// BenchmarkYearlyRecurrenceFarWindow shows a yearly event anchored in year 1
// costs the same in a window a billion years later.
func BenchmarkYearlyRecurrenceFarWindow(b *testing.B) {
	c := benchCalendar(b)
	ev := Event{Start: d(4, 10, 2), Length: 3, Recurrence: Recurrence{Kind: RecurYearly}}
	for b.Loop() {
		occ, err := c.Occurrences(ev, d(1_000_000_000, 1, 1), d(1_000_000_099, 17, 30))
		if err != nil || len(occ) != 25 { // the leap day, every 4 years
			b.Fatalf("%d occurrences, %v", len(occ), err)
		}
	}
}

// BenchmarkDays1000ThreeMoons does what the days endpoint does for 1000
// days: each day's date, weekday and season, and the moon phases of the
// window, on a calendar with three moons.
func BenchmarkDays1000ThreeMoons(b *testing.B) {
	c := benchCalendar(b)
	start, err := c.DayNumber(d(1492, 3, 17))
	if err != nil {
		b.Fatal(err)
	}
	type day struct {
		date    Date
		weekday int
		hasWeek bool
		season  string
		moons   []MoonDay
	}
	days := make([]day, 1000)
	for b.Loop() {
		phases := c.MoonPhases(start, start+999)
		for i := range days {
			dt := c.DateOf(start + int64(i))
			w, ok := c.Weekday(dt)
			s, _ := c.Season(dt)
			days[i] = day{date: dt, weekday: w, hasWeek: ok, season: s.Name}
		}
		for _, p := range phases {
			i := p.Day - start
			days[i].moons = append(days[i].moons[:0:0], p)
		}
	}
}

// benchDaysView does what the days endpoint does for 1000 days on the
// three-moon calendar with 100 recurring events: a third yearly, a third
// monthly, a third on moon phases (one of them on a moon of period 0.001).
func benchDaysView(b *testing.B, c *Calendar, start Date) {
	var evs []Event
	for i := range 100 {
		ev := Event{Start: d(1, 1+i%17, 1), Length: 1 + i%5}
		switch i % 3 {
		case 0:
			ev.Recurrence.Kind = RecurYearly
		case 1:
			ev.Recurrence.Kind = RecurMonthly
		case 2:
			ev.Recurrence = Recurrence{Kind: RecurMoon, MoonID: 1 + i%4, Phase: PhaseNames[i%8]}
		}
		evs = append(evs, ev)
	}
	from, err := c.DayNumber(start)
	if err != nil {
		b.Fatal(err)
	}
	first, last := start, c.DateOf(from+999)
	for b.Loop() {
		phases := c.MoonPhases(from, from+999)
		n := 0
		for _, ev := range evs {
			occ, err := c.Occurrences(ev, first, last)
			if err != nil {
				b.Fatal(err)
			}
			n += len(occ)
		}
		for i := range int64(1000) {
			dt := c.DateOf(from + i)
			c.Weekday(dt)
			c.Season(dt)
			c.LeapDay(dt)
			c.EraOf(dt.Year)
		}
		if n == 0 || len(phases) == 0 {
			b.Fatal("nothing in the window")
		}
	}
}

func BenchmarkDaysView1000Days100Events(b *testing.B) {
	def := benchCalendar(b).Definition()
	def.Moons = append(def.Moons, Moon{ID: 4, Name: "Blink", Fullmoon: "0.001"})
	benchDaysView(b, mustNew(b, def), d(1492, 3, 17))
}

// BenchmarkDaysView1000Days100EventsGregorian is the same on Gregorian
// rules (three leap terms) far from year 0.
func BenchmarkDaysView1000Days100EventsGregorian(b *testing.B) {
	def := benchCalendar(b).Definition()
	def.HasLeapYear = false
	def.LeapDays = []LeapDay{{Month: 10, Interval: "400,!100,4", Name: "Leap"}}
	def.Moons = append(def.Moons, Moon{ID: 4, Name: "Blink", Fullmoon: "0.001"})
	benchDaysView(b, mustNew(b, def), d(1_000_000_000, 3, 17))
}

// BenchmarkShortMoonRecurrenceSmallWindow: 100 recurrences of a very short
// moon in a 10-day window reserve no more than the window.
func BenchmarkShortMoonRecurrenceSmallWindow(b *testing.B) {
	c := mustNew(b, Definition{
		Months: []Month{{Name: "A", Length: 30}, {Name: "B", Length: 30}}, Weekdays: []string{"x", "y"},
		Moons: []Moon{{Name: "Blink", Fullmoon: "0.0001"}},
	})
	ev := Event{Start: d(1, 1, 1), Length: 1, Recurrence: Recurrence{Kind: RecurMoon, MoonID: 1, Phase: "full"}}
	for b.Loop() {
		for range 100 {
			if occ, err := c.Occurrences(ev, d(5, 1, 1), d(5, 1, 10)); err != nil || len(occ) != 10 {
				b.Fatalf("%d occurrences, %v", len(occ), err)
			}
		}
	}
}

// BenchmarkDateOfGregorianFarYears: one date conversion on Gregorian rules
// at years around 10^15 (the binary search's worst practical bracket).
func BenchmarkDateOfGregorianFarYears(b *testing.B) {
	c := mustNew(b, Definition{
		Months: []Month{{Name: "Jan", Length: 31}, {Name: "Feb", Length: 28}, {Name: "Rest", Length: 306}}, Weekdays: []string{"x", "y"},
		LeapDays: []LeapDay{{Month: 2, Interval: "400,!100,4"}},
	})
	n := int64(365_242_500_000_000_000)
	for b.Loop() {
		n++
		c.DateOf(n)
	}
}
