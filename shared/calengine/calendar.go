// Package calengine is the fantasy-calendar engine behind Lorekeep's
// calendars and entity events: custom months (standard or intercalary),
// weekdays, leap-day rules (Fantasy-Calendar's intervals such as
// "400,!100,4", named, intercalary or not, placed within a month), skipped
// year zero, eras, seasons and moons, and the dates on which events recur.
//
// Every date maps to one absolute day number (int64): day 0 is the first day
// of year 0, or of year 1 when year zero is skipped. All arithmetic is exact
// integer arithmetic (128-bit where products need it); nothing is a loop over
// years or days: a leap rule counts its years in closed form, so years of
// ±10^18 cost about the same as year 1.
//
// The package is pure: no storage, no HTTP. A Calendar is immutable after New
// and safe for concurrent use.
package calengine

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
)

const (
	minDay = math.MinInt64
	maxDay = math.MaxInt64
)

// Bounds that keep every intermediate value within 128 bits and the leap
// cycle (offset × year length + leap days) within int64. They are far above
// anything a world needs, and New reports them as validation problems.
const (
	MaxYearLength   = 1_000_000_000 // sum of the month lengths
	MaxLeapAmount   = 1_000_000_000
	MaxLeapOffset   = 1_000_000_000
	MaxMoonPeriod   = 100_000_000 // days; keeps the period's numerator in int64
	MaxMoonOffset   = 1_000_000_000
	MaxMoonDecimals = 10
)

// MonthType tells whether a month's days belong to the week.
type MonthType string

const (
	Standard    MonthType = "standard"
	Intercalary MonthType = "intercalary" // days outside the week: no weekday, the week does not advance
)

// Month is one month of a normal (non-leap) year.
type Month struct {
	Name   string
	Length int
	Type   MonthType
	// Interval and Offset make a month that appears only in some years, in the leap rules'
	// grammar ("4", "400,!100,4"); empty: every year. See structure.go.
	Interval string
	Offset   int64
	// Weekdays is the month's own week; empty: the calendar's. A month with its own week starts
	// it anew on its first day.
	Weekdays []string
}

// Season starts on a 1-based month and day and lasts until the next one; a periodic season
// (Definition.PeriodicSeasons) lasts Duration days and turns into the next over Transition
// days instead (seasons.go). Sunrise and Sunset, when set, are its times of day.
type Season struct {
	Name                 string
	Month, Day           int
	Duration, Transition string
	Sunrise, Sunset      *Time
}

// Moon is a moon whose full moon recurs every Fullmoon days (a positive
// decimal string such as "29.5"), shifted by Offset days (a decimal string
// such as "-3.25", Fantasy-Calendar's shift; empty means 0).
type Moon struct {
	ID       int
	Name     string
	Fullmoon string
	Offset   string
	Colour   string
	// Granularity is the number of phases displayed per cycle (Fantasy-Calendar's 4 to 40); 0
	// means 8. CustomCycle, when set, is the phase of each day in turn instead (indices below the
	// granularity, 0 the full moon). Hidden moons are shown to the calendar's editors only.
	// See moon_phases.go.
	Granularity int
	CustomCycle []int
	Hidden      bool
	// Rounding says on which day a phase begins (moon_phases.go): "" (Lorekeep's and Kanka's:
	// the day its instant falls on) or Fantasy-Calendar's cycle_rounding, "round" (its
	// default: the day nearest), "floor" or "ceil".
	Rounding string
}

// Era is a named span of years starting with Year and lasting until the
// next era. A restarting era numbers its years from 1 in displays.
type Era struct {
	Name         string
	Abbreviation string
	Year         int64
	Restart      bool
	// Month and Day start the era within its year (Fantasy-Calendar's era date); 0: with the
	// year. See eras.go.
	Month, Day int
	// EndsYear ends the era's year on the era's date (Fantasy-Calendar's ends_year): the days
	// after it do not exist and the next year starts the day after. See eras.go.
	EndsYear bool
}

// Definition is everything that shapes a calendar.
type Definition struct {
	Months   []Month
	Weekdays []string
	Years    map[int64]string // year number -> year name
	Seasons  []Season
	Moons    []Moon
	Suffix   string
	// StartOffset is the weekday index of day 0 (the first day of year 0, or
	// of year 1 when SkipYearZero). Any integer is accepted and reduced
	// modulo the number of weekdays.
	StartOffset  int
	SkipYearZero bool
	// WeekRestart starts the week anew with every month (Fantasy-Calendar's overflow off).
	WeekRestart bool
	// PeriodicSeasons: the seasons recur by duration from day SeasonOffset (seasons.go).
	PeriodicSeasons bool
	SeasonOffset    int64

	// Kanka's leap fields: one rule, applied before LeapDays.
	HasLeapYear    bool
	LeapYearAmount int   // leap days added
	LeapYearMonth  int   // 1-based month the leap days are appended to
	LeapYearOffset int   // every how many years
	LeapYearStart  int64 // first leap year

	LeapDays []LeapDay
	Eras     []Era

	// Clock divides the day into hours and minutes; nil: the calendar keeps no time.
	Clock *Clock
	// Cycles name the years in turn (zodiacs); CycleFormat writes them ("Year of the {{1}}").
	Cycles      []Cycle
	CycleFormat string
	// DateFormat is Kanka's `format`: how the calendar writes a date (format.go); "": Kanka's
	// default.
	DateFormat string
}

// Problem is one failed rule, named after the API's input field.
type Problem struct {
	Field, Message string
}

// ValidationError lists every problem found in a Definition.
type ValidationError struct {
	Problems []Problem
}

// Error reads like Laravel's summary: the first message, then how many more.
func (e *ValidationError) Error() string {
	if len(e.Problems) == 0 {
		return "The given data was invalid."
	}
	msg := e.Problems[0].Message
	if n := len(e.Problems) - 1; n == 1 {
		msg += " (and 1 more error)"
	} else if n > 1 {
		msg += " (and " + strconv.Itoa(n) + " more errors)"
	}
	return msg
}

// Calendar is a validated Definition with everything precomputed.
type Calendar struct {
	def Definition

	months []Month
	// cum*[i] counts the days (std*: the weekday-advancing days) of months
	// 1..i of a normal year, so month m starts at cum[m-1].
	cumNormal, cumStdNormal []int64
	yearLen, stdLen         int64 // a normal year's days and weekday-advancing days
	maxExtra                int64 // days all rules add together
	slopeDays               int64 // days of years 0..slopeYears-1

	leaps   []leapCalc // the Kanka rule first, then LeapDays in order
	byMonth [][]int    // per month, its rules' indices ordered by placement

	skipZero            bool
	zeroLen, zeroStdLen int64 // length of year 0, removed when it is skipped

	nWeekdays   int64
	startOffset int64
	local       []bool   // per month: its week restarts with it (own weekdays or WeekRestart)
	seasons     []Season // sorted by start; ties keep definition order
	moons       []moonCalc
	moonIndex   map[int]int
	cycle       *seasonCycle // periodic seasons, or nil
	eras        []Era        // sorted by year; ties keep definition order
	cuts        []yearCut    // the years eras end early, by year (eras.go)
	cutTotal    int64        // the days they remove
}

// leapSet marks the rules a year takes (MaxMonthRules + MaxLeapDays + 1 <= 256) in its first
// four words; the fifth is 1 + the index of the year's cut (eras.go), 0 for none.
type leapSet [5]uint64

func (s leapSet) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }

// New validates def and precomputes the calendar. Validation failures are a
// *ValidationError. Empty month types mean standard; moons with ID 0 get
// their 1-based position.
func New(def Definition) (*Calendar, error) {
	def = cloneDefinition(def)
	for i := range def.Months {
		if def.Months[i].Type == "" {
			def.Months[i].Type = Standard
		}
	}
	for i := range def.Eras { // the first day of the first month is the year's start
		if def.Eras[i].Month == 1 && def.Eras[i].Day == 1 && !def.Eras[i].EndsYear {
			def.Eras[i].Month, def.Eras[i].Day = 0, 0
		}
	}
	for i := range def.Moons {
		if def.Moons[i].ID == 0 {
			def.Moons[i].ID = i + 1
		}
	}
	moons, leaps, probs := validate(def)
	if len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}

	c := &Calendar{def: def, months: def.Months, skipZero: def.SkipYearZero, moons: moons, leaps: leaps}
	n := len(def.Months)
	c.cumNormal = make([]int64, n+1)
	c.cumStdNormal = make([]int64, n+1)
	c.local = make([]bool, n)
	for i, m := range def.Months {
		c.local[i] = localWeek(def, i)
		length := int64(m.Length)
		if !MonthEveryYear(m) { // its days come from its own rule (structure.go)
			length = 0
		}
		c.cumNormal[i+1] = c.cumNormal[i] + length
		std := int64(0)
		if m.Type == Standard && !c.local[i] {
			std = length
		}
		c.cumStdNormal[i+1] = c.cumStdNormal[i] + std
	}
	c.yearLen, c.stdLen = c.cumNormal[n], c.cumStdNormal[n]
	c.byMonth = make([][]int, n)
	for i := range c.leaps {
		l := &c.leaps[i]
		c.maxExtra += l.amount
		c.byMonth[l.monthIdx] = append(c.byMonth[l.monthIdx], i)
		l.before0 = l.leapsBefore(0)
	}
	for _, idx := range c.byMonth {
		sort.SliceStable(idx, func(a, b int) bool { return c.leaps[idx[a]].after < c.leaps[idx[b]].after })
	}
	c.slopeDays = c.rawYearStart(slopeYears, false).sub(c.rawYearStart(0, false)).clamp()
	c.zeroLen, c.zeroStdLen = c.yearLen, c.stdLen
	for i := range c.leaps {
		if c.leaps[i].isLeap(0) {
			c.zeroLen += c.leaps[i].amount
			c.zeroStdLen += c.leaps[i].std
		}
	}

	c.nWeekdays = int64(len(def.Weekdays))
	c.startOffset = int64(def.StartOffset) % c.nWeekdays
	if c.startOffset < 0 {
		c.startOffset += c.nWeekdays
	}
	c.seasons = append([]Season(nil), def.Seasons...)
	sort.SliceStable(c.seasons, func(i, j int) bool {
		a, b := c.seasons[i], c.seasons[j]
		return a.Month < b.Month || (a.Month == b.Month && a.Day < b.Day)
	})
	c.moonIndex = make(map[int]int, len(moons))
	for i, m := range moons {
		c.moonIndex[m.ID] = i
	}
	c.eras = SortEras(def.Eras)
	if probs := c.setCuts(); len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}
	if _, cyc := seasonProblems(def); cyc != nil && cyc.total > 0 {
		c.cycle = cyc
	}
	return c, nil
}

// KankaLeapDay is the rule Kanka's leap fields stand for: every `offset`
// years from `start` on, `amount` days appended to month `month`.
func KankaLeapDay(amount, month, offset int, start int64) LeapDay {
	from := start
	return LeapDay{Month: month, Interval: strconv.Itoa(offset), Offset: start, FromYear: &from, Amount: amount}
}

// KankaFields tells whether rules can be written in Kanka's five leap
// fields (one rule, a single interval, from its offset on, appended to the
// month, in the week unless the month is not) and what they are.
func KankaFields(months []Month, rules []LeapDay) (amount, month, offset int, start int64, ok bool) {
	if len(rules) != 1 {
		return 0, 0, 0, 0, false
	}
	l := rules[0]
	ivs, err := parseInterval(l.Interval)
	if err != nil || len(ivs) != 1 || ivs[0].exclude || ivs[0].noOffset || l.Month < 1 || l.Month > len(months) ||
		l.FromYear == nil || *l.FromYear != l.Offset || l.Name != "" ||
		(l.Day != nil && *l.Day != months[l.Month-1].Length) ||
		(l.Intercalary && months[l.Month-1].Type != Intercalary) {
		return 0, 0, 0, 0, false
	}
	amount = max(l.Amount, 1)
	return amount, l.Month, int(ivs[0].n), l.Offset, true
}

// termsProblem is the verdict on rules past MaxLeapTerms, for one rule or for all of them.
var termsProblem = "The leap days' intervals must not combine into more than " + strconv.Itoa(MaxLeapTerms) +
	" terms in all, found in at most " + strconv.Itoa(MaxLeapSteps) +
	" steps (each interval that divides none of the larger ones of its rule doubles the rule's terms; Gregorian's 400,!100,4 is 3)."

func validate(def Definition) ([]moonCalc, []leapCalc, []Problem) {
	var probs []Problem
	add := func(field, msg string) { probs = append(probs, Problem{Field: field, Message: msg}) }
	n := len(def.Months)
	if n < 2 {
		add("month_name", "The month name must have at least 2 items.")
	}
	var total int64
	badLen, badType := false, false
	for _, m := range def.Months {
		if m.Length < 1 {
			badLen = true
		} else {
			total += min(int64(m.Length), MaxYearLength+1)
		}
		if m.Type != Standard && m.Type != Intercalary {
			badType = true
		}
	}
	if badLen {
		add("month_length", "The month length must be at least 1.")
	} else if total > MaxYearLength {
		add("month_length", "The month lengths must not add up to more than "+strconv.Itoa(MaxYearLength)+" days.")
	}
	if badType {
		add("month_type", "The selected month type is invalid.")
	}
	if len(def.Weekdays) < 2 {
		add("weekday", "The weekday must have at least 2 items.")
	}
	var leaps []leapCalc
	steps := MaxLeapSteps // shared by the rules: see expand
	if def.HasLeapYear {
		ok := true
		if def.LeapYearAmount < 1 {
			add("leap_year_amount", "The leap year amount must be at least 1.")
			ok = false
		} else if def.LeapYearAmount > MaxLeapAmount {
			add("leap_year_amount", "The leap year amount must not be greater than "+strconv.Itoa(MaxLeapAmount)+".")
			ok = false
		}
		if def.LeapYearOffset < 1 {
			add("leap_year_offset", "The leap year offset must be at least 1.")
			ok = false
		} else if def.LeapYearOffset > MaxLeapOffset {
			add("leap_year_offset", "The leap year offset must not be greater than "+strconv.Itoa(MaxLeapOffset)+".")
			ok = false
		}
		if def.LeapYearMonth < 1 || def.LeapYearMonth > n {
			add("leap_year_month", "The selected leap year month is invalid.")
			ok = false
		}
		if ok && !badLen {
			l, _ := newLeapCalc(def, KankaLeapDay(def.LeapYearAmount, def.LeapYearMonth, def.LeapYearOffset, def.LeapYearStart), -1, "leap_year", nil, &steps)
			leaps = append(leaps, l)
		}
	}
	if len(def.LeapDays) > MaxLeapDays {
		add("leap_days", "The leap days must not have more than "+strconv.Itoa(MaxLeapDays)+" items.")
	} else {
		for i, ld := range def.LeapDays {
			l, ok := newLeapCalc(def, ld, i, "leap_days."+strconv.Itoa(i), add, &steps)
			if ok && !badLen {
				leaps = append(leaps, l)
			}
		}
	}
	leaps = append(structureRules(def, add, &steps, badLen), leaps...)
	conjoinMonthRules(leaps, add)
	var extra int64
	terms := 0
	for _, l := range leaps {
		extra += l.amount
		if terms += len(l.terms); terms > MaxLeapTerms && terms-len(l.terms) <= MaxLeapTerms {
			field := "leap_days." + strconv.Itoa(l.index) + ".interval"
			if l.monthRule {
				field = "month_interval." + strconv.Itoa(l.monthIdx)
			} else if l.index < 0 {
				field = "leap_year_offset"
			}
			add(field, termsProblem)
		}
	}
	if extra > MaxLeapAmount {
		add("leap_days", "The leap days must not add more than "+strconv.Itoa(MaxLeapAmount)+" days to a year.")
	}
	probs = append(probs, weekProblems(def)...)
	probs = append(probs, eraProblems(def)...)
	sp, _ := seasonProblems(def)
	probs = append(probs, sp...)
	badMonth, badDay := false, false
	for _, s := range def.Seasons {
		if def.PeriodicSeasons {
			continue
		}
		if s.Month < 1 || s.Month > n {
			badMonth = true
		} else if s.Day < 1 || s.Day > def.Months[s.Month-1].Length {
			badDay = true
		}
	}
	if badMonth {
		add("season_month", "The selected season month is invalid.")
	}
	if badDay {
		add("season_day", "The season day must be a day of the season's month.")
	}
	moons := make([]moonCalc, 0, len(def.Moons))
	seen := make(map[int]bool, len(def.Moons))
	// Each moon's problems are named by its index, like every other parallel array's items.
	for i, m := range def.Moons {
		at := "." + strconv.Itoa(i)
		if m.ID < 1 {
			add("moon_id"+at, "The moon id must be at least 1.")
		} else if seen[m.ID] {
			add("moon_id"+at, "The moon id field has a duplicate value.")
		}
		seen[m.ID] = true
		mc, err := newMoonCalc(m)
		if err == nil {
			probs = append(probs, displayProblems(&mc, at)...)
		}
		switch {
		case errors.Is(err, errBadOffset):
			add("moon_offset"+at, "The moon offset must be a number between -"+strconv.Itoa(MaxMoonOffset)+" and "+strconv.Itoa(MaxMoonOffset)+" with at most "+strconv.Itoa(MaxMoonDecimals)+" decimal places.")
		case err != nil:
			add("moon_fullmoon"+at, strings.ReplaceAll(PeriodProblem(m.Fullmoon), ":attribute", "moon fullmoon"))
		default:
			moons = append(moons, mc)
		}
	}
	if def.Clock != nil {
		probs = append(probs, clockProblems(*def.Clock, "clock")...)
	}
	probs = append(probs, cycleProblems(def.Cycles, def.CycleFormat)...)
	probs = append(probs, dateFormatProblems(def.DateFormat)...)
	return moons, leaps, probs
}

// newLeapCalc checks one rule, reporting problems under prefix (add may be
// nil for a rule already checked). Its expansion spends *steps (nil: a budget
// of its own); a rule met with the budget spent fails without a problem of its
// own, the rule that spent it having said so.
func newLeapCalc(def Definition, ld LeapDay, index int, prefix string, add func(field, msg string), steps *int) (leapCalc, bool) {
	if steps == nil {
		own := MaxLeapSteps
		steps = &own
	}
	ok := true
	fail := func(field, msg string) {
		ok = false
		if add != nil {
			add(prefix+"."+field, msg)
		}
	}
	l := leapCalc{LeapDay: ld, index: index, amount: int64(max(ld.Amount, 1)), monthIdx: ld.Month - 1}
	if ld.Amount < 0 || ld.Amount > MaxLeapAmount {
		fail("amount", "The amount must be between 1 and "+strconv.Itoa(MaxLeapAmount)+".")
	}
	if ld.Month < 1 || ld.Month > len(def.Months) {
		fail("month", "The month must be a month of the calendar (1 to "+strconv.Itoa(len(def.Months))+").")
	} else {
		m := def.Months[ld.Month-1]
		l.after = m.Length
		if ld.Day != nil {
			if *ld.Day < 0 || *ld.Day > m.Length {
				fail("day", "The day must be between 0 and the month's length ("+strconv.Itoa(m.Length)+").")
			}
			l.after = *ld.Day
		}
		l.week = !ld.Intercalary && ld.Weekday == "" && m.Type != Intercalary
		if l.week && !localWeek(def, ld.Month-1) {
			l.std = l.amount
		}
	}
	ivs, err := parseInterval(ld.Interval)
	if err != nil {
		fail("interval", "The interval must be comma-separated whole numbers from 1 to "+strconv.Itoa(MaxLeapOffset)+
			", at most "+strconv.Itoa(MaxLeapIntervals)+", each optionally prefixed by ! (excluded) or + (ignores the offset), not all excluded.")
	} else if *steps < 0 {
		ok = false
	} else if l.terms, err = expand(ivs, ld.Offset, steps); errors.Is(err, errTooManyTerms) {
		fail("interval", termsProblem)
	} else if err != nil {
		fail("interval", "The intervals' combined cycle must not be longer than 10^18 years.")
	}
	if ld.FromYear != nil {
		l.hasFrom, l.from = true, *ld.FromYear
		l.fromAt = l.countBelow(i64(l.from))
	}
	return l, ok
}

func cloneDefinition(d Definition) Definition {
	d.Months = append([]Month(nil), d.Months...)
	for i := range d.Months {
		d.Months[i].Weekdays = append([]string(nil), d.Months[i].Weekdays...)
	}
	d.Weekdays = append([]string(nil), d.Weekdays...)
	d.Seasons = d.CloneSeasons()
	d.Moons = append([]Moon(nil), d.Moons...)
	for i := range d.Moons {
		d.Moons[i].CustomCycle = append([]int(nil), d.Moons[i].CustomCycle...)
	}
	d.LeapDays = append([]LeapDay(nil), d.LeapDays...)
	d.Eras = append([]Era(nil), d.Eras...)
	if d.Clock != nil {
		k := *d.Clock
		d.Clock = &k
	}
	d.Cycles = append([]Cycle(nil), d.Cycles...)
	for i := range d.Cycles {
		d.Cycles[i].Names = append([]string(nil), d.Cycles[i].Names...)
	}
	if d.Years != nil {
		y := make(map[int64]string, len(d.Years))
		for k, v := range d.Years {
			y[k] = v
		}
		d.Years = y
	}
	return d
}

// Definition returns a copy of the calendar's definition, with month types
// and moon IDs filled in as New defaulted them.
func (c *Calendar) Definition() Definition { return cloneDefinition(c.def) }

// activeRaw lists the rules raw year y takes, ignoring SkipYearZero: year 0
// is counted as if it existed, and removed afterwards (see yearStart).
func (c *Calendar) activeRaw(y int64) leapSet {
	var s leapSet
	for i := range c.leaps {
		if c.leaps[i].isLeap(y) {
			s[i>>6] |= 1 << (i & 63)
		}
	}
	if len(c.cuts) > 0 {
		if k, ok := c.cutIndex(y); ok {
			s[4] = uint64(k) + 1
		}
	}
	return s
}

// IsLeapYear reports whether year y takes at least one leap rule. A
// skipped year zero is never a leap year.
func (c *Calendar) IsLeapYear(y int64) bool {
	if c.skipZero && y == 0 {
		return false
	}
	for i := range c.leaps {
		if !c.leaps[i].monthRule && c.leaps[i].isLeap(y) {
			return true
		}
	}
	return false
}

// rawYearStart is the number of days (std: of weekday-advancing days) from
// the start of year 0 to the start of year y, as if year 0 existed.
func (c *Calendar) rawYearStart(y int64, std bool) i128 {
	base := c.yearLen
	if std {
		base = c.stdLen
	}
	r := i64(y).mul64(base)
	if len(c.cuts) > 0 { // the days lost between year 0 and y: day 0 stays the first of year 0
		r = r.sub(i64(c.cutBefore(y, std))).add64(c.cutBefore(0, std))
	}
	for i := range c.leaps {
		l := &c.leaps[i]
		amt := l.amount
		if std {
			amt = l.std
		}
		if amt != 0 {
			r = r.add(l.leapsBefore(y).sub(l.before0).mul64(amt))
		}
	}
	return r
}

func (c *Calendar) yearStart(y int64) i128 {
	r := c.rawYearStart(y, false)
	if c.skipZero && y > 0 {
		r = r.sub(i64(c.zeroLen))
	}
	return r
}

func (c *Calendar) stdYearStart(y int64) i128 {
	r := c.rawYearStart(y, true)
	if c.skipZero && y > 0 {
		r = r.sub(i64(c.zeroStdLen))
	}
	return r
}

// extra is the number of days (std: weekday-advancing days) the active
// rules add to month index i.
func (c *Calendar) extra(s leapSet, i int, std bool) int64 {
	var n int64
	for _, k := range c.byMonth[i] {
		if s.has(k) {
			if std {
				n += c.leaps[k].std
			} else {
				n += c.leaps[k].amount
			}
		}
	}
	return n
}

// before is the number of days (std: weekday-advancing days) of the months
// before month index i in a year taking the rules in s.
func (c *Calendar) before(s leapSet, i int, std bool) int64 {
	if cut := c.cutOf(s); cut != nil && i > cut.month {
		if std {
			return c.before(cut.full, cut.month, true) + cut.stdKept
		}
		return c.before(cut.full, cut.month, false) + int64(cut.day)
	}
	n := c.cumNormal[i]
	if std {
		n = c.cumStdNormal[i]
	}
	if s == (leapSet{}) {
		return n
	}
	for k := range c.leaps {
		if c.leaps[k].monthIdx < i && s.has(k) {
			if std {
				n += c.leaps[k].std
			} else {
				n += c.leaps[k].amount
			}
		}
	}
	return n
}

func (c *Calendar) yearSet(y int64) (leapSet, bool) {
	if c.skipZero && y == 0 {
		return leapSet{}, false
	}
	return c.activeRaw(y), true
}

// DaysInMonth is the length of month m in year y (leap days included), or 0
// when the month or year does not exist.
func (c *Calendar) DaysInMonth(y int64, m int) int {
	if m < 1 || m > len(c.months) {
		return 0
	}
	s, ok := c.yearSet(y)
	if !ok {
		return 0
	}
	return int(c.monthLen(s, m-1))
}

// DaysInYear is the length of year y, or 0 for a skipped year zero.
func (c *Calendar) DaysInYear(y int64) int64 {
	s, ok := c.yearSet(y)
	if !ok {
		return 0
	}
	return c.before(s, len(c.months), false)
}

// MonthCount is the number of months in a year.
func (c *Calendar) MonthCount() int { return len(c.months) }

func (c *Calendar) exists(d Date) bool {
	return d.Day >= 1 && d.Day <= c.DaysInMonth(d.Year, d.Month)
}

func (c *Calendar) dayNumber128(d Date) i128 {
	s := c.activeRaw(d.Year)
	return c.yearStart(d.Year).add64(c.before(s, d.Month-1, false) + int64(d.Day) - 1)
}

// Valid reports whether d is a date of the calendar: the month exists, the
// day is within that month's length that year, the year is not a skipped
// year zero, and the day number fits in an int64.
func (c *Calendar) Valid(d Date) bool {
	if !c.exists(d) {
		return false
	}
	_, ok := c.dayNumber128(d).int64()
	return ok
}

var (
	errInvalidDate = errors.New("calendar: not a date of this calendar")
	errOutOfRange  = errors.New("calendar: date out of range")
)

// DayNumber is d's absolute day number: 0 for the first day of year 0 (year
// 1 when year zero is skipped), negative before it.
func (c *Calendar) DayNumber(d Date) (int64, error) {
	if !c.exists(d) {
		return 0, errInvalidDate
	}
	n, ok := c.dayNumber128(d).int64()
	if !ok {
		return 0, errOutOfRange
	}
	return n, nil
}

// DateOf is the inverse of DayNumber; every int64 is the number of some date.
func (c *Calendar) DateOf(n int64) Date {
	r := i64(n)
	if c.skipZero && n >= 0 {
		// Day 0 is the first day of year 1: shift into the space where year
		// 0 exists, so days >= 0 land in years >= 1 and the rest in years <= -1.
		r = r.add64(c.zeroLen)
	}
	y, doy := c.rawYearOf(r)
	s := c.activeRaw(y)
	i := 0
	for ; i < len(c.months)-1; i++ {
		l := c.monthLen(s, i)
		if doy < l {
			break
		}
		doy -= l
	}
	return Date{Year: y, Month: i + 1, Day: int(doy) + 1}
}

// rawYearOf finds the year (as if year 0 existed) holding raw day r and the
// 0-based day within it. Without rules it is one division. With rules the
// start of a year is monotone and close to linear: a guess from the mean
// year length is checked and nudged (a couple of year starts, the usual
// case), and otherwise an interpolation search narrows the bracket
// [r/maxLen, r/minLen]; each year start costs one count per rule term.
func (c *Calendar) rawYearOf(r i128) (int64, int64) {
	if len(c.leaps) == 0 && len(c.cuts) == 0 {
		q, doy := r.divFloor(c.yearLen)
		return narrowYear(q), doy
	}
	q, _ := r.mul64(slopeYears).divFloor(c.slopeDays)
	if g, ok := q.int64(); ok {
		if y, doy, found := c.nudge(g, r); found {
			return y, doy
		}
	}
	// Years that ended early move the starts after them back and those before year 0
	// forward: the uncut year starts, shifted by what was lost between year 0 and the year
	// (-cutBefore(0) to cutTotal-cutBefore(0)), bracket r's year.
	c0 := int64(0)
	if len(c.cuts) > 0 {
		c0 = c.cutBefore(0, false)
	}
	down, up := r.add64(-c0), r.add64(c.cutTotal-c0)
	q1, _ := up.divFloor(c.yearLen)
	q2, _ := down.divFloor(c.yearLen + c.maxExtra)
	q3, _ := down.divFloor(c.yearLen)
	q4, _ := up.divFloor(c.yearLen + c.maxExtra)
	lo := min(narrowYear(q1), narrowYear(q2), narrowYear(q3), narrowYear(q4)) // lo <= year <= hi, whatever r's sign
	hi := max(narrowYear(q1), narrowYear(q2), narrowYear(q3), narrowYear(q4))
	lo, hi = lo-1, hi+1
	sLo, sHi := c.rawYearStart(lo, false), c.rawYearStart(hi+1, false)
	// Invariant: sLo = S(lo) <= r < sHi = S(hi+1).
	for lo < hi {
		width := uint64(hi) - uint64(lo) + 1
		g := lo + int64(width/2)
		if width <= 1<<31 { // interpolate: the product stays within 128 bits
			q, _ := r.sub(sLo).mul64(int64(width)).divFloor(sHi.sub(sLo).clamp())
			g = lo + min(q.clamp(), int64(width)-1)
		}
		sg := c.rawYearStart(g, false)
		if r.less(sg) {
			hi, sHi = g-1, sg
			continue
		}
		sg1 := c.rawYearStart(g+1, false)
		if r.less(sg1) {
			lo, sLo = g, sg
			break
		}
		lo, sLo = g+1, sg1
	}
	doy, _ := r.sub(sLo).int64()
	return lo, doy
}

// rawYearLen is the length of raw year y: cheaper than two year starts.
func (c *Calendar) rawYearLen(y int64) int64 {
	n := c.yearLen
	for i := range c.leaps {
		if c.leaps[i].isLeap(y) {
			n += c.leaps[i].amount
		}
	}
	if len(c.cuts) > 0 {
		if k, ok := c.cutIndex(y); ok {
			n -= c.cuts[k].days
		}
	}
	return n
}

// slopeYears years from year 0 take slopeDays days: the mean year length
// behind rawYearOf's first guess.
const slopeYears = 1 << 24

// nudge checks whether raw day r lies in year g or within two years of it.
func (c *Calendar) nudge(g int64, r i128) (int64, int64, bool) {
	if g < math.MinInt64+4 || g > math.MaxInt64-4 {
		return 0, 0, false
	}
	s := c.rawYearStart(g, false)
	for range 2 {
		if !r.less(s) {
			break
		}
		g--
		s = s.sub(i64(c.rawYearLen(g)))
	}
	if r.less(s) {
		return 0, 0, false
	}
	for range 3 {
		next := s.add64(c.rawYearLen(g))
		if r.less(next) {
			doy, _ := r.sub(s).int64()
			return g, doy, true
		}
		g, s = g+1, next
	}
	return 0, 0, false
}

func narrowYear(y i128) int64 {
	yy, ok := y.int64()
	if !ok {
		// Years are at least 2 days long, so the year of an int64 day fits.
		panic("calendar: year out of range")
	}
	return yy
}

// AddDays moves d by n days (n may be negative).
func (c *Calendar) AddDays(d Date, n int64) (Date, error) {
	dn, err := c.DayNumber(d)
	if err != nil {
		return Date{}, err
	}
	r, ok := i64(dn).add64(n).int64()
	if !ok {
		return Date{}, errOutOfRange
	}
	return c.DateOf(r), nil
}

// leapAt finds the rule whose leap day d is, if any, and counts the
// intercalary leap days of d's month before it.
func (c *Calendar) leapAt(s leapSet, d Date) (rule *leapCalc, interBefore int64) {
	var shift int64
	for _, k := range c.byMonth[d.Month-1] {
		l := &c.leaps[k]
		if !s.has(k) || l.monthRule {
			continue
		}
		first := int64(l.after) + shift + 1
		last := first + l.amount - 1
		p := int64(d.Day)
		switch {
		case p < first:
			return nil, interBefore
		case p <= last:
			return l, interBefore
		}
		if !l.week {
			interBefore += l.amount
		}
		shift += l.amount
	}
	return nil, interBefore
}

// LeapDay reports whether d is a day added by a leap rule, and that rule's
// name.
func (c *Calendar) LeapDay(d Date) (name string, ok bool) {
	if !c.exists(d) {
		return "", false
	}
	if l, _ := c.leapAt(c.activeRaw(d.Year), d); l != nil {
		return l.Name, true
	}
	return "", false
}

// Weekday is the index into Weekdays of d's weekday. Intercalary days (of
// intercalary months, or intercalary leap days) have none (ok false), and
// neither do dates that do not exist.
func (c *Calendar) Weekday(d Date) (index int, ok bool) {
	if !c.exists(d) || c.months[d.Month-1].Type == Intercalary {
		return 0, false
	}
	s := c.activeRaw(d.Year)
	l, inter := c.leapAt(s, d)
	if l != nil && !l.week {
		return 0, false
	}
	if c.local[d.Month-1] {
		return int(mod(int64(d.Day)-1-inter, int64(len(c.weekOf(d.Month-1))))), true
	}
	n := c.stdYearStart(d.Year).add64(c.before(s, d.Month-1, true) + int64(d.Day) - 1 - inter + c.startOffset)
	_, w := n.divFloor(c.nWeekdays)
	return int(w), true
}

// EraOf is the era year y belongs to (the latest starting on or before it)
// and the year's number in it: counted from 1 when the era restarts
// (a skipped year zero not counted), y itself otherwise.
func (c *Calendar) EraOf(y int64) (Era, int64, bool) { return EraOf(c.eras, c.skipZero, y) }

// EraOf is Calendar.EraOf for eras sorted by SortEras, without building a calendar. An era
// starting within year y is its era from its first day on (EraAt); the year as a whole belongs
// to the era it begins in.
func EraOf(eras []Era, skipZero bool, y int64) (Era, int64, bool) {
	return EraAt(eras, skipZero, Date{Year: y, Month: 0, Day: 0})
}

// EraAt is the era date d belongs to (the latest starting on or before it) and d's year's
// number in it.
func EraAt(eras []Era, skipZero bool, d Date) (Era, int64, bool) {
	y := d.Year
	i := sort.Search(len(eras), func(i int) bool { return eraAfter(eras[i], d) })
	if i == 0 {
		return Era{}, 0, false
	}
	e := eras[i-1]
	if !e.Restart {
		return e, y, true
	}
	n := y - e.Year + 1
	if skipZero && e.Year < 0 && y > 0 {
		n--
	}
	if e.EndsYear { // its first year is the next one: its own last day is its year 0, as Fantasy-Calendar counts
		n--
	}
	return e, n, true
}

// SortEras orders eras by their first year, keeping the given order among
// equals: what EraOf expects.
func SortEras(eras []Era) []Era {
	out := append([]Era(nil), eras...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Year < b.Year || (a.Year == b.Year && (a.Month < b.Month || (a.Month == b.Month && a.Day < b.Day)))
	})
	return out
}

// eraAfter reports whether era e starts after date d.
func eraAfter(e Era, d Date) bool {
	if e.Year != d.Year {
		return e.Year > d.Year
	}
	if e.Month != d.Month {
		return e.Month > d.Month
	}
	return e.Day > d.Day
}

// Season is the season d falls in: the one with the latest start on or
// before d's (month, day), or else the latest-starting one, continuing from
// the previous year. Of seasons starting on the same day the one listed
// last wins. ok is false only when there are no seasons.
func (c *Calendar) Season(d Date) (Season, bool) {
	if len(c.seasons) == 0 {
		return Season{}, false
	}
	i := sort.Search(len(c.seasons), func(i int) bool {
		s := c.seasons[i]
		return s.Month > d.Month || (s.Month == d.Month && s.Day > d.Day)
	})
	if i == 0 {
		i = len(c.seasons)
	}
	return c.seasons[i-1], true
}

// Age is like the package function Age, but when year zero is skipped a
// span across it is one year shorter (year -1 is followed by year 1).
func (c *Calendar) Age(birth Date, death *Date, current Date) int64 {
	end := current
	if death != nil {
		end = *death
	}
	a := Age(birth, nil, end)
	if c.skipZero {
		if birth.Year < 0 && end.Year > 0 {
			a--
		} else if end.Year < 0 && birth.Year > 0 {
			a++
		}
	}
	return a
}
