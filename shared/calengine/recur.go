package calengine

import (
	"errors"
	"strconv"
	"strings"
)

// RuleUnit is what a Rule steps by.
type RuleUnit string

// A rule's units. The weekday units take the Ordinal-th (or last) Weekday of each step's
// month or year; the moon unit steps through the cycles of one phase of one moon.
const (
	UnitDays         RuleUnit = "days"
	UnitMonths       RuleUnit = "months"
	UnitYears        RuleUnit = "years"
	UnitMonthWeekday RuleUnit = "weekday_of_month"
	UnitYearWeekday  RuleUnit = "weekday_of_year"
	UnitMoon         RuleUnit = "moon"
)

// RuleUnits lists the units in the order the API documents them.
var RuleUnits = []RuleUnit{UnitDays, UnitMonths, UnitYears, UnitMonthWeekday, UnitYearWeekday, UnitMoon}

// Bounds of a rule: far beyond a world's needs, and small enough that a step's ordinal
// (Interval × Count) stays within int64.
const (
	MaxRuleInterval = 1_000_000
	MaxRuleOrdinal  = 100
	MaxRuleCount    = 1_000_000
	LastOrdinal     = -1
)

// Rule is a recurrence beyond Kanka's periodicities. Its steps are numbered k = 0, 1, ...
// from the event's start: every Interval-th day, month, year or cycle of the moon's phase,
// counted from the start's. Step k's occurrence is, by unit: the start plus k·Interval days;
// the start's day in the step's month or year (none when that month is too short, as Kanka's
// monthly events skip them); the Ordinal-th (LastOrdinal: the last) Weekday of the step's
// month or year, among the days in the week (none when the month is intercalary or too
// short); the day the step's cycle of the phase begins. An occurrence never starts before
// the event's start. Count (0: no limit) keeps the first Count steps, whether or not each
// had an occurrence, so that the last one is a closed form; Until, when set, is the last day
// an occurrence may start.
type Rule struct {
	Unit     RuleUnit
	Interval int64
	Weekday  int
	Ordinal  int
	MoonID   int
	Phase    string
	Count    int64
	Until    *Date
}

var errRule = errors.New("calendar: invalid recurrence rule")

// RuleProblems checks a rule alone (not against a calendar), naming the API's fields
// recurrence_*: what CheckRule adds is that the weekday, the moon and until exist.
func RuleProblems(r Rule) []Problem {
	var probs []Problem
	add := func(f, m string) { probs = append(probs, Problem{"recurrence_" + f, m}) }
	known := false
	for _, u := range RuleUnits {
		known = known || u == r.Unit
	}
	if !known {
		return []Problem{{"recurrence", "The selected recurrence is invalid."}}
	}
	if r.Interval < 1 || r.Interval > MaxRuleInterval {
		add("interval", "The recurrence interval must be between 1 and "+strconv.Itoa(MaxRuleInterval)+".")
	}
	if r.Count < 0 || r.Count > MaxRuleCount {
		add("count", "The recurrence count must be between 1 and "+strconv.Itoa(MaxRuleCount)+".")
	}
	if r.Unit == UnitMonthWeekday || r.Unit == UnitYearWeekday {
		if r.Ordinal == 0 || r.Ordinal < -MaxRuleOrdinal || r.Ordinal > MaxRuleOrdinal {
			add("ordinal", "The recurrence ordinal must be between 1 and "+strconv.Itoa(MaxRuleOrdinal)+", or -1 (the last) to -"+strconv.Itoa(MaxRuleOrdinal)+" counted from the last.")
		}
		if r.Weekday < 0 {
			add("weekday", "The recurrence weekday must be a weekday index of the calendar.")
		}
	}
	if r.Unit == UnitMoon {
		if r.MoonID < 1 {
			add("moon_id", "The recurrence moon id must be a moon of the calendar.")
		}
		if _, ok := PhaseIndex(r.Phase); !ok {
			add("phase", "The recurrence phase must be one of "+strings.Join(PhaseNames[:], ", ")+".")
		}
	}
	return probs
}

// CheckRule is RuleProblems plus what depends on the calendar: the weekday and the moon
// exist, Until is a date of it not before start.
func (c *Calendar) CheckRule(r Rule, start Date) []Problem {
	probs := RuleProblems(r)
	if len(probs) > 0 {
		return probs
	}
	if (r.Unit == UnitMonthWeekday || r.Unit == UnitYearWeekday) && int64(r.Weekday) >= c.maxWeek(r.Unit) {
		probs = append(probs, Problem{"recurrence_weekday", "The recurrence weekday must be a weekday index of the calendar."})
	}
	if r.Unit == UnitMoon {
		if _, err := c.moon(r.MoonID); err != nil {
			probs = append(probs, Problem{"recurrence_moon_id", "The recurrence moon id must be a moon of the calendar."})
		}
	}
	if r.Until != nil {
		u, err := c.DayNumber(*r.Until)
		s, serr := c.DayNumber(start)
		switch {
		case err != nil:
			probs = append(probs, Problem{"recurrence_until", "The recurrence until must be a date of the calendar."})
		case serr == nil && u < s:
			probs = append(probs, Problem{"recurrence_until", "The recurrence until must be a date after or equal to the event's."})
		}
	}
	return probs
}

// String encodes the rule as stored: "unit/interval" then ";key=value" parts for what the
// unit uses. ParseRule reads it back.
func (r Rule) String() string {
	b := []byte(string(r.Unit) + "/" + strconv.FormatInt(r.Interval, 10))
	part := func(k, v string) { b = append(b, ';'); b = append(b, k...); b = append(b, '='); b = append(b, v...) }
	switch r.Unit {
	case UnitMonthWeekday, UnitYearWeekday:
		part("weekday", strconv.Itoa(r.Weekday))
		part("ordinal", strconv.Itoa(r.Ordinal))
	case UnitMoon:
		part("moon", strconv.Itoa(r.MoonID))
		part("phase", r.Phase)
	}
	if r.Count > 0 {
		part("count", strconv.FormatInt(r.Count, 10))
	}
	if r.Until != nil {
		part("until", r.Until.String())
	}
	return string(b)
}

// ParseRule reads String's encoding and checks it with RuleProblems.
func ParseRule(s string) (Rule, error) {
	head, rest, _ := strings.Cut(s, ";")
	unit, iv, ok := strings.Cut(head, "/")
	if !ok {
		return Rule{}, errRule
	}
	r := Rule{Unit: RuleUnit(unit)}
	var err error
	if r.Interval, err = strconv.ParseInt(iv, 10, 64); err != nil {
		return Rule{}, errRule
	}
	for rest != "" {
		var p string
		p, rest, _ = strings.Cut(rest, ";")
		k, v, _ := strings.Cut(p, "=")
		var n int64
		switch k {
		case "weekday", "ordinal", "moon", "count":
			if n, err = strconv.ParseInt(v, 10, 32); err != nil {
				return Rule{}, errRule
			}
		}
		switch k {
		case "weekday":
			r.Weekday = int(n)
		case "ordinal":
			r.Ordinal = int(n)
		case "moon":
			r.MoonID = int(n)
		case "count":
			r.Count = n
		case "phase":
			r.Phase = v
		case "until":
			d, err := ParseDate(v)
			if err != nil {
				return Rule{}, errRule
			}
			r.Until = &d
		default:
			return Rule{}, errRule
		}
	}
	if len(RuleProblems(r)) > 0 {
		return Rule{}, errRule
	}
	return r, nil
}

// yearOrd numbers the years consecutively: a skipped year zero is left out.
func (c *Calendar) yearOrd(y int64) int64 {
	if c.skipZero && y > 0 {
		return y - 1
	}
	return y
}

func (c *Calendar) yearOfOrd(o int64) int64 {
	if c.skipZero && o >= 0 {
		return o + 1
	}
	return o
}

// stepsIn is the steps k in [0, Count) whose ordinal o0 + k·iv lies in [oLo, oHi].
func stepsIn(o0, oLo, oHi i128, iv, count int64) (kLo, kHi int64, ok bool) {
	lo := oLo.sub(o0).ceilDiv(iv)
	hi, _ := oHi.sub(o0).divFloor(iv)
	if lo.less(i64(0)) {
		lo = i64(0)
	}
	limit := i64(maxDay)
	if count > 0 {
		limit = i64(count - 1)
	}
	if limit.less(hi) {
		hi = limit
	}
	if hi.less(lo) {
		return 0, 0, false
	}
	a, _ := lo.int64()
	b, _ := hi.int64()
	return a, b, true
}

// ruleStarts visits, ascending, the days in [lo, hi] (lo at or after anchor, the start's day
// number) on which an occurrence of rule r starts, until fn answers false. Its cost is
// proportional to the steps whose month, year or cycle meets the window, never to the
// distance from the anchor.
func (c *Calendar) ruleStarts(r *Rule, start Date, anchor, lo, hi int64, fn func(int64) bool) {
	if r.Until != nil {
		u, err := c.DayNumber(*r.Until)
		if err != nil {
			return
		}
		hi = min(hi, u)
	}
	if lo > hi {
		return
	}
	iv := max(r.Interval, 1)
	more := true
	emit := func(n int64) {
		if more && n >= lo && n <= hi && n >= anchor {
			more = fn(n)
		}
	}
	switch r.Unit {
	case UnitDays:
		kLo, kHi, ok := stepsIn(i64(anchor), i64(lo), i64(hi), iv, r.Count)
		for k := kLo; ok && more && k <= kHi; k++ {
			emit(anchor + k*iv) // within [lo, hi]: no overflow
		}
	case UnitMonths, UnitMonthWeekday:
		nm := int64(len(c.months))
		ord := func(d Date) i128 { return i64(c.yearOrd(d.Year)).mul64(nm).add64(int64(d.Month - 1)) }
		o0 := ord(start)
		kLo, kHi, ok := stepsIn(o0, ord(c.DateOf(lo)), ord(c.DateOf(hi)), iv, r.Count)
		for k := kLo; ok && more && k <= kHi; k++ {
			yo, mi := o0.add(i64(k).mul64(iv)).divFloor(nm)
			y := c.yearOfOrd(narrowYear(yo))
			if r.Unit == UnitMonths {
				if n, ok := c.dayOfDate(Date{Year: y, Month: int(mi) + 1, Day: start.Day}); ok {
					emit(n)
				}
			} else if n, ok := c.nthWeekdayOfMonth(y, int(mi), r.Weekday, r.Ordinal); ok {
				emit(n)
			}
		}
	case UnitYears, UnitYearWeekday:
		o0 := i64(c.yearOrd(start.Year))
		kLo, kHi, ok := stepsIn(o0, i64(c.yearOrd(c.DateOf(lo).Year)), i64(c.yearOrd(c.DateOf(hi).Year)), iv, r.Count)
		for k := kLo; ok && more && k <= kHi; k++ {
			y := c.yearOfOrd(narrowYear(o0.add(i64(k).mul64(iv))))
			if r.Unit == UnitYears {
				if n, ok := c.dayOfDate(Date{Year: y, Month: start.Month, Day: start.Day}); ok {
					emit(n)
				}
			} else if n, ok := c.nthWeekdayOfYear(y, r.Weekday, r.Ordinal); ok {
				emit(n)
			}
		}
	case UnitMoon:
		m, err := c.moon(r.MoonID)
		p, pok := PhaseIndex(r.Phase)
		if err != nil || !pok {
			return
		}
		pp := int64(p)
		// Cycle k's phase event is 8k+p; k0 is the first cycle beginning on or after the anchor.
		cycle := func(day int64) i128 { return m.firstEvent(i64(day)).add64(-pp).ceilDiv(8) }
		k0 := cycle(anchor)
		cLo := cycle(lo)
		cHi, _ := m.firstEvent(i64(hi).add64(1)).add64(-1 - pp).divFloor(8)
		kLo, kHi, ok := stepsIn(k0, cLo, cHi, iv, r.Count)
		prev := lo - 1
		for k := kLo; ok && more && k <= kHi; k++ {
			d := m.dayOf(k0.add(i64(k).mul64(iv)).mul64(8).add64(pp))
			n, nok := d.int64()
			if nok && n > prev { // a period under a day puts cycles on one day: once
				emit(n)
				prev = n
			}
		}
	}
}

// dayOfDate is d's day number when d exists.
func (c *Calendar) dayOfDate(d Date) (int64, bool) {
	n, err := c.DayNumber(d)
	return n, err == nil
}

// weekIndexDay is the day of month index i (year rules s) that is its k-th (0-based) day in
// the week: the days the month's intercalary leap days hold are stepped over.
func (c *Calendar) weekIndexDay(s leapSet, i int, k int64) int64 {
	day := k + 1
	var buf [8]leapRun
	for _, r := range c.monthRuns(s, i, buf[:0]) {
		if !r.week && r.first <= day {
			day += r.last - r.first + 1
		}
	}
	return day
}

// pickWeekday is the 0-based index, among total consecutive days in a week of n days whose
// first has weekday w0, of the ordinal-th day with weekday w (a negative ordinal counts from
// the last: -1 the last, -2 the one before).
func pickWeekday(w0, total, n int64, w, ordinal int) (int64, bool) {
	if total <= 0 || int64(w) >= n {
		return 0, false
	}
	var k int64
	if ordinal < 0 {
		k = total - 1 - mod(w0+total-1-int64(w), n) + int64(ordinal+1)*n
	} else {
		k = mod(int64(w)-w0, n) + int64(ordinal-1)*n
	}
	return k, k >= 0 && k < total
}

// monthWeek is how month index i of year y (rules s) counts its days in the week: the weekday
// w0 of its first day in the week, the week's length n and its days in the week. A month whose
// week restarts with it (its own week, or week_restart) starts at 0 in that week, as Weekday
// does; the others continue the calendar's running week.
func (c *Calendar) monthWeek(y int64, s leapSet, i int) (w0, n, total int64) {
	n, total = c.nWeekdays, int64(c.months[i].Length)+c.extra(s, i, true)
	if cut := c.cutOf(s); c.local[i] || (cut != nil && i >= cut.month) {
		// Its days are not in the running week's count (std), or an era ends the year in it or
		// before: its own leap runs say.
		total = c.monthLen(s, i)
		var buf [8]leapRun
		for _, r := range c.monthRuns(s, i, buf[:0]) {
			if !r.week {
				total -= r.last - r.first + 1
			}
		}
		if !c.local[i] {
			_, w0 = c.stdYearStart(y).add64(c.before(s, i, true) + c.startOffset).divFloor(c.nWeekdays)
			return w0, n, total
		}
		return 0, int64(len(c.weekOf(i))), total
	}
	_, w0 = c.stdYearStart(y).add64(c.before(s, i, true) + c.startOffset).divFloor(c.nWeekdays)
	return w0, n, total
}

// nthWeekdayOfMonth is the day number of the ordinal-th weekday w of month index i of year y.
func (c *Calendar) nthWeekdayOfMonth(y int64, i, w, ordinal int) (int64, bool) {
	s, ok := c.yearSet(y)
	if !ok || c.months[i].Type == Intercalary {
		return 0, false
	}
	w0, n, total := c.monthWeek(y, s, i)
	k, ok := pickWeekday(w0, total, n, w, ordinal)
	if !ok {
		return 0, false
	}
	return c.dayOfDate(Date{Year: y, Month: i + 1, Day: int(c.weekIndexDay(s, i, k))})
}

// nthWeekdayOfYear is the day number of the ordinal-th weekday w of year y: the months' days
// with weekday w (each in its own week) counted in order, one closed form per month.
func (c *Calendar) nthWeekdayOfYear(y int64, w, ordinal int) (int64, bool) {
	s, ok := c.yearSet(y)
	if !ok {
		return 0, false
	}
	counts := make([]int64, len(c.months))
	var all int64
	for i := range c.months {
		if c.months[i].Type == Intercalary {
			continue
		}
		w0, n, total := c.monthWeek(y, s, i)
		if f := mod(int64(w)-w0, n); int64(w) < n && f < total {
			counts[i] = (total-1-f)/n + 1
		}
		all += counts[i]
	}
	want := int64(ordinal) // the ordinal-th, counted from the year's first
	if ordinal < 0 {
		want = all + 1 + int64(ordinal) // counted from its last
	}
	if want < 1 || want > all {
		return 0, false
	}
	for i, k := range counts {
		if want <= k {
			return c.nthWeekdayOfMonth(y, i, w, int(want))
		}
		want -= k
	}
	return 0, false
}

// maxWeek is the largest week a weekday rule of unit u may name a day of: for the months, the
// longest of their weeks (a month's own week may be longer than the calendar's).
func (c *Calendar) maxWeek(u RuleUnit) int64 {
	n := c.nWeekdays
	if u == UnitMonthWeekday || u == UnitYearWeekday {
		for i := range c.months {
			n = max(n, int64(len(c.weekOf(i))))
		}
	}
	return n
}

// Clock is the calendar's clock, ok false without one (cheaper than Definition's copy).
func (c *Calendar) Clock() (Clock, bool) {
	if c.def.Clock == nil {
		return Clock{}, false
	}
	return *c.def.Clock, true
}
