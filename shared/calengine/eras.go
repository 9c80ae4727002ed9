package calengine

import (
	"sort"
	"strconv"
)

// Eras starting within their year (DESIGN.md section 5, "Calendar structure"): an era's Month
// and Day place its first day; dates before it in that year belong to the era before.
//
// An era may end its year early (EndsYear, Fantasy-Calendar's ends_year, after its
// calendar_functions.js: does_timespan_appear, does_day_appear, evaluate_calendar_start): the
// era's date is the last day of its year, the months after it and the days of its month after
// it do not exist that year, and the next year starts the day after. Day numbers stay
// continuous (moons, weekdays and periodic seasons run on); every later year starts earlier by
// the days cut. Each such year is a yearCut: monthLen, before and monthRuns read it from the
// year's leapSet, rawYearStart subtracts the cuts of the years before.

// yearCut is a year an era ends early.
type yearCut struct {
	year    int64
	month   int     // 0-based month of the era's date
	day     int     // the era's day: the month's last day that year
	days    int64   // the days removed (after the era's date)
	std     int64   // of them, the weekday-advancing ones
	stdKept int64   // the weekday-advancing days of the month up to the era's day
	full    leapSet // the year's rules without the cut
	cumDays int64   // the days removed by this cut and the ones before it
	cumStd  int64
}

// eraProblems checks where the eras start within their years and the eras that end them.
func eraProblems(def Definition) []Problem {
	var probs []Problem
	ends := map[int64]int{}
	for i, e := range def.Eras {
		at := "eras." + strconv.Itoa(i) + "."
		switch {
		case e.Month == 0 && e.Day != 0:
			probs = append(probs, Problem{at + "month", "The month is required when the day is present."})
		case e.Month < 0 || e.Month > len(def.Months):
			probs = append(probs, Problem{at + "month", "The month must be a month of the calendar (1 to " + strconv.Itoa(len(def.Months)) + ")."})
		case e.Month > 0 && (e.Day < 1 || e.Day > def.Months[e.Month-1].Length):
			probs = append(probs, Problem{at + "day", "The day must be a day of the era's month (1 to " + strconv.Itoa(def.Months[e.Month-1].Length) + ")."})
		}
		if !e.EndsYear {
			continue
		}
		switch {
		case e.Month == 0:
			probs = append(probs, Problem{at + "ends_year", "An era that ends its year needs its month and day (the year's last day)."})
		case def.SkipYearZero && e.Year == 0:
			probs = append(probs, Problem{at + "year", "The year 0 is skipped: an era cannot end it."})
		}
		if j, dup := ends[e.Year]; dup {
			probs = append(probs, Problem{at + "ends_year", "Era " + strconv.Itoa(j+1) + " already ends year " + strconv.FormatInt(e.Year, 10) + "."})
		} else {
			ends[e.Year] = i
		}
	}
	return probs
}

// setCuts builds the calendar's cuts from the eras that end their year, once everything else
// is in place (a cut is measured on the year as it would be). An era's date must be a day of
// its year.
func (c *Calendar) setCuts() []Problem {
	var probs []Problem
	var cuts []yearCut
	for i, e := range c.def.Eras {
		if !e.EndsYear {
			continue
		}
		s := c.activeRaw(e.Year)
		m := e.Month - 1
		if int64(e.Day) > c.monthLen(s, m) {
			probs = append(probs, Problem{"eras." + strconv.Itoa(i) + ".day",
				"The era's date must be a day of its year: month " + strconv.Itoa(e.Month) + " has " +
					strconv.FormatInt(c.monthLen(s, m), 10) + " days in year " + strconv.FormatInt(e.Year, 10) + "."})
			continue
		}
		cut := yearCut{year: e.Year, month: m, day: e.Day, full: s}
		all, allStd := c.before(s, len(c.months), false), c.before(s, len(c.months), true)
		if c.months[m].Type == Standard && !c.local[m] {
			cut.stdKept = int64(e.Day)
			s2 := s
			s2[4] = 1 // monthRuns truncated at the era's day: a cut of just this month
			c.cuts = []yearCut{cut}
			var buf [8]leapRun
			for _, r := range c.monthRuns(s2, m, buf[:0]) {
				if !r.week {
					cut.stdKept -= r.last - r.first + 1
				}
			}
			c.cuts = nil
		}
		cut.days = all - c.before(s, m, false) - int64(e.Day)
		cut.std = allStd - c.before(s, m, true) - cut.stdKept
		cuts = append(cuts, cut)
	}
	if len(probs) > 0 {
		return probs
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].year < cuts[j].year })
	var sum, sumStd int64
	for i := range cuts {
		sum, sumStd = sum+cuts[i].days, sumStd+cuts[i].std
		cuts[i].cumDays, cuts[i].cumStd = sum, sumStd
	}
	c.cuts, c.cutTotal = cuts, sum
	return nil
}

// cutIndex finds the cut of raw year y.
func (c *Calendar) cutIndex(y int64) (int, bool) {
	k := sort.Search(len(c.cuts), func(i int) bool { return c.cuts[i].year >= y })
	return k, k < len(c.cuts) && c.cuts[k].year == y
}

// cutOf is the cut of the year whose rules are s, or nil.
func (c *Calendar) cutOf(s leapSet) *yearCut {
	if s[4] == 0 {
		return nil
	}
	return &c.cuts[s[4]-1]
}

// cutBefore is the days (std: weekday-advancing days) the years before raw year y lost.
func (c *Calendar) cutBefore(y int64, std bool) int64 {
	k := sort.Search(len(c.cuts), func(i int) bool { return c.cuts[i].year >= y })
	if k == 0 {
		return 0
	}
	if std {
		return c.cuts[k-1].cumStd
	}
	return c.cuts[k-1].cumDays
}

// EraAtDate is EraAt on the calendar's eras.
func (c *Calendar) EraAtDate(d Date) (Era, int64, bool) { return EraAt(c.eras, c.skipZero, d) }
