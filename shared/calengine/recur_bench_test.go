package calengine

import "testing"

// BenchmarkRulesDayViewWindow is a day view's work for the rules: one event per unit,
// anchored in year 1, over a 1000-day window a billion years later. It reports the
// occurrences per op: the cost follows them, not the distance from the anchor.
func BenchmarkRulesDayViewWindow(b *testing.B) {
	c := benchCalendar(b)
	rules := []Rule{
		{Unit: UnitDays, Interval: 7}, {Unit: UnitMonths, Interval: 1}, {Unit: UnitYears, Interval: 1},
		{Unit: UnitMonthWeekday, Interval: 1, Weekday: 3, Ordinal: 2},
		{Unit: UnitYearWeekday, Interval: 1, Weekday: 9, Ordinal: LastOrdinal},
		{Unit: UnitMoon, Interval: 1, MoonID: 1, Phase: "full"},
	}
	from := d(1_000_000_000, 1, 1)
	n, _ := c.DayNumber(from)
	to := c.DateOf(n + 999)
	total := 0
	for b.Loop() {
		total = 0
		for i := range rules {
			occ, err := c.Occurrences(Event{Start: d(1, 1, 5), Length: 1, Rule: &rules[i]}, from, to)
			if err != nil {
				b.Fatal(err)
			}
			total += len(occ)
		}
	}
	b.ReportMetric(float64(total), "occurrences/op")
}
