package calendar

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
