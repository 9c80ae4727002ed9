package calendar

import "context"

// DayInfo is what a day's place in the calendar says about it: its date, its weekday (Weekday
// -1 for a day outside the week) and, on a day a leap rule adds, that rule's name.
type DayInfo struct {
	Number   int64
	Date     Date
	Weekday  int
	LeapDay  bool
	LeapName string
}

// daysCheckEvery is how many days Days walks between two looks at its context (it also looks
// once per year).
const daysCheckEvery = 256

// Days visits the days from..to (day numbers) in order. Each year's leap rules are evaluated
// once, when the walk enters it, and each month's leap days once, when it enters the month;
// a day then costs a constant, so the cost is the days plus, per year touched, the rules'
// terms and the months: never the rules per day. The walk stops with ctx's error when ctx
// ends (a request past its deadline) or when fn returns false.
func (c *Calendar) Days(ctx context.Context, from, to int64, fn func(DayInfo) bool) error {
	if from > to {
		return nil
	}
	d := c.DateOf(from)
	s := c.activeRaw(d.Year)
	runs := c.monthRuns(s, d.Month-1, nil)
	// week counts the weekday-advancing days from day 0 to d, so the next one has weekday
	// (week + startOffset) mod nWeekdays. Only the first day needs the closed form.
	inMonth := int64(0)
	if c.months[d.Month-1].Type == Standard {
		inMonth = int64(d.Day) - 1
		for _, r := range runs { // less the days outside the week before d
			if !r.std && r.first < int64(d.Day) {
				inMonth -= min(r.last, int64(d.Day)-1) - r.first + 1
			}
		}
	}
	week := c.stdYearStart(d.Year).add64(c.before(s, d.Month-1, true) + inMonth)
	_, next := week.add64(c.startOffset).divFloor(c.nWeekdays) // weekday of the next day in the week

	monthLen := int64(c.months[d.Month-1].Length) + c.extra(s, d.Month-1, false)
	for n, i := from, 0; ; n, i = n+1, i+1 {
		if i%daysCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		info := DayInfo{Number: n, Date: d, Weekday: -1}
		var run *leapRun
		for len(runs) > 0 && int64(d.Day) > runs[0].last {
			runs = runs[1:]
		}
		if len(runs) > 0 && int64(d.Day) >= runs[0].first {
			run = &runs[0]
			info.LeapDay, info.LeapName = true, run.name
		}
		if c.months[d.Month-1].Type == Standard && (run == nil || run.std) {
			info.Weekday = int(next)
			next = (next + 1) % c.nWeekdays
		}
		if !fn(info) || n == to {
			return nil
		}
		// The next day: within the month, the next month, or the next year.
		if int64(d.Day) < monthLen {
			d.Day++
			continue
		}
		d.Day = 1
		if d.Month < len(c.months) {
			d.Month++
		} else {
			d.Month = 1
			d.Year++
			if c.skipZero && d.Year == 0 {
				d.Year = 1
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			s = c.activeRaw(d.Year)
		}
		runs = c.monthRuns(s, d.Month-1, runs[:0])
		monthLen = int64(c.months[d.Month-1].Length) + c.extra(s, d.Month-1, false)
	}
}

// leapRun is the days [first, last] of a month that one leap rule adds in a year.
type leapRun struct {
	first, last int64
	name        string
	std         bool // the days are in the week
}

// monthRuns lists, in order, the leap days the rules in s add to month index i (appended to
// buf).
func (c *Calendar) monthRuns(s leapSet, i int, buf []leapRun) []leapRun {
	var shift int64
	for _, k := range c.byMonth[i] {
		if !s.has(k) {
			continue
		}
		l := &c.leaps[k]
		first := int64(l.after) + shift + 1
		buf = append(buf, leapRun{first: first, last: first + l.amount - 1, name: l.Name, std: l.std != 0})
		shift += l.amount
	}
	return buf
}
