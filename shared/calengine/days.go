package calengine

import (
	"context"
	"math"
)

// DayInfo is what a day's place in the calendar says about it: its date, its weekday (Weekday
// -1 for a day outside the week; an index into its month's week) and the weekday's name (also
// for a leap day adding a weekday of its own), and, on a day a leap rule adds, that rule's name
// and whether the day goes without a number.
type DayInfo struct {
	Number      int64
	Date        Date
	Weekday     int
	WeekdayName string
	LeapDay     bool
	LeapName    string
	NotNumbered bool
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
	// The weekday-advancing days of d's month before d.
	inMonth := int64(0)
	if c.months[d.Month-1].Type == Standard {
		inMonth = int64(d.Day) - 1
		for _, r := range runs { // less the days outside the week before d
			if !r.week && r.first < int64(d.Day) {
				inMonth -= min(r.last, int64(d.Day)-1) - r.first + 1
			}
		}
	}
	// gnext is the calendar-wide weekday of the next day counted in it: the weekday-advancing
	// days from day 0 on, less those of months whose week restarts (they count their own, in
	// lnext). Only the first day needs the closed form.
	week := c.stdYearStart(d.Year).add64(c.before(s, d.Month-1, true))
	local := c.local[d.Month-1]
	var lnext int64
	if local {
		lnext = inMonth % int64(len(c.weekOf(d.Month-1)))
	} else {
		week = week.add64(inMonth)
	}
	_, gnext := week.add64(c.startOffset).divFloor(c.nWeekdays)

	monthLen := c.monthLen(s, d.Month-1)
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
			info.LeapDay, info.LeapName, info.NotNumbered, info.WeekdayName = true, run.name, run.notNumbered, run.weekday
		}
		if c.months[d.Month-1].Type == Standard && (run == nil || run.week) {
			wk := c.weekOf(d.Month - 1)
			if local {
				info.Weekday = int(lnext)
				lnext = (lnext + 1) % int64(len(wk))
			} else {
				info.Weekday = int(gnext)
				gnext = (gnext + 1) % c.nWeekdays
			}
			info.WeekdayName = wk[info.Weekday]
		}
		if !fn(info) || n == to {
			return nil
		}
		// The next day: within the month, the next month appearing, or the next year.
		if int64(d.Day) < monthLen {
			d.Day++
			continue
		}
		d.Day, monthLen = 1, 0
		for monthLen == 0 { // a month absent this year has no days: on to the next
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
			monthLen = c.monthLen(s, d.Month-1)
		}
		runs = c.monthRuns(s, d.Month-1, runs[:0])
		local, lnext = c.local[d.Month-1], 0
	}
}

// leapRun is the days [first, last] of a month that one leap rule adds in a year.
type leapRun struct {
	first, last int64
	name        string
	week        bool // the days have a weekday of the week
	notNumbered bool
	weekday     string // the weekday the days add, if any
}

// monthRuns lists, in order, the leap days the rules in s add to month index i (appended to
// buf).
func (c *Calendar) monthRuns(s leapSet, i int, buf []leapRun) []leapRun {
	end := int64(math.MaxInt64) // the month's last day when an era ends the year in it
	if cut := c.cutOf(s); cut != nil && i >= cut.month {
		if i > cut.month {
			return buf
		}
		end = int64(cut.day)
	}
	var shift int64
	for _, k := range c.byMonth[i] {
		l := &c.leaps[k]
		if !s.has(k) || l.monthRule {
			continue
		}
		first := int64(l.after) + shift + 1
		if first > end {
			break
		}
		buf = append(buf, leapRun{first: first, last: min(first+l.amount-1, end), name: l.Name, week: l.week,
			notNumbered: l.NotNumbered, weekday: l.Weekday})
		shift += l.amount
	}
	return buf
}
