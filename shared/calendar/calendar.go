// Package calendar is the fantasy-calendar engine behind Lorekeep's
// calendars and entity events: custom months (standard or intercalary),
// weekdays, leap days, skipped year zero, seasons and moons, and the dates on
// which events recur.
//
// Every date maps to one absolute day number (int64): day 0 is the first day
// of year 0, or of year 1 when year zero is skipped. All arithmetic is exact
// integer arithmetic (128-bit where products need it); nothing is a loop over
// years or days, so years of ±10^9 and beyond cost the same as year 1.
//
// The package is pure: no storage, no HTTP. A Calendar is immutable after New
// and safe for concurrent use.
package calendar

import (
	"errors"
	"math"
	"sort"
	"strconv"
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
}

// Season starts on a 1-based month and day and lasts until the next one.
type Season struct {
	Name       string
	Month, Day int
}

// Moon is a moon whose full moon recurs every Fullmoon days (a positive
// decimal string such as "29.5"), shifted by Offset days.
type Moon struct {
	ID       int
	Name     string
	Fullmoon string
	Offset   int
	Colour   string
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

	HasLeapYear    bool
	LeapYearAmount int   // leap days added
	LeapYearMonth  int   // 1-based month the leap days are appended to
	LeapYearOffset int   // every how many years
	LeapYearStart  int64 // first leap year
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
	// 1..i, so month m starts at cum[m-1]; *Leap include the leap days.
	cumNormal, cumLeap       []int64
	cumStdNormal, cumStdLeap []int64

	yearLen, stdLen     int64 // a normal year's days and weekday-advancing days
	leapDays, leapStd   int64 // extra days (and weekday-advancing extra days) of a leap year; 0 without leap years
	leapMonth           int
	leapOffset          int64
	leapStart           int64
	skipZero            bool
	leaps0              i128  // leap years before raw year 0
	zeroLen, zeroStdLen int64 // length of year 0, removed when it is skipped
	leapBase            i128  // raw day number of the first day of leapStart
	cycle               int64 // days in leapOffset years starting at a leap year

	nWeekdays   int64
	startOffset int64
	seasons     []Season // sorted by start; ties keep definition order
	moons       []moonCalc
	moonIndex   map[int]int
}

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
	for i := range def.Moons {
		if def.Moons[i].ID == 0 {
			def.Moons[i].ID = i + 1
		}
	}
	moons, probs := validate(def)
	if len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}

	c := &Calendar{def: def, months: def.Months, skipZero: def.SkipYearZero, moons: moons}
	n := len(def.Months)
	c.cumNormal = make([]int64, n+1)
	c.cumStdNormal = make([]int64, n+1)
	for i, m := range def.Months {
		c.cumNormal[i+1] = c.cumNormal[i] + int64(m.Length)
		std := int64(0)
		if m.Type == Standard {
			std = int64(m.Length)
		}
		c.cumStdNormal[i+1] = c.cumStdNormal[i] + std
	}
	c.yearLen, c.stdLen = c.cumNormal[n], c.cumStdNormal[n]
	c.cumLeap, c.cumStdLeap = c.cumNormal, c.cumStdNormal
	if def.HasLeapYear {
		c.leapDays = int64(def.LeapYearAmount)
		c.leapMonth = def.LeapYearMonth
		if def.Months[c.leapMonth-1].Type == Standard {
			c.leapStd = c.leapDays
		}
		c.leapOffset = int64(def.LeapYearOffset)
		c.leapStart = def.LeapYearStart
		c.cumLeap = make([]int64, n+1)
		c.cumStdLeap = make([]int64, n+1)
		for i := range c.cumLeap {
			c.cumLeap[i], c.cumStdLeap[i] = c.cumNormal[i], c.cumStdNormal[i]
			if i >= c.leapMonth {
				c.cumLeap[i] += c.leapDays
				c.cumStdLeap[i] += c.leapStd
			}
		}
		c.cycle = c.leapOffset*c.yearLen + c.leapDays
	}
	c.leaps0 = c.leapsBefore(0)
	c.zeroLen, c.zeroStdLen = c.yearLen, c.stdLen
	if c.isLeapRaw(0) {
		c.zeroLen += c.leapDays
		c.zeroStdLen += c.leapStd
	}
	c.leapBase = c.rawYearStart(c.leapStart, c.yearLen, c.leapDays)

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
	return c, nil
}

func validate(def Definition) ([]moonCalc, []Problem) {
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
	if def.HasLeapYear {
		if def.LeapYearAmount < 1 {
			add("leap_year_amount", "The leap year amount must be at least 1.")
		} else if def.LeapYearAmount > MaxLeapAmount {
			add("leap_year_amount", "The leap year amount must not be greater than "+strconv.Itoa(MaxLeapAmount)+".")
		}
		if def.LeapYearOffset < 1 {
			add("leap_year_offset", "The leap year offset must be at least 1.")
		} else if def.LeapYearOffset > MaxLeapOffset {
			add("leap_year_offset", "The leap year offset must not be greater than "+strconv.Itoa(MaxLeapOffset)+".")
		}
		if def.LeapYearMonth < 1 || def.LeapYearMonth > n {
			add("leap_year_month", "The selected leap year month is invalid.")
		}
	}
	badMonth, badDay := false, false
	for _, s := range def.Seasons {
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
	badPeriod, bigPeriod, badID, dupID := false, false, false, false
	for _, m := range def.Moons {
		if m.ID < 1 {
			badID = true
		} else if seen[m.ID] {
			dupID = true
		}
		seen[m.ID] = true
		mc, err := newMoonCalc(m)
		switch {
		case errors.Is(err, errPeriodTooLarge):
			bigPeriod = true
		case err != nil:
			badPeriod = true
		default:
			moons = append(moons, mc)
		}
	}
	if badPeriod {
		add("moon_fullmoon", "The moon fullmoon must be a positive number with at most "+strconv.Itoa(MaxMoonDecimals)+" decimal places.")
	}
	if bigPeriod {
		add("moon_fullmoon", "The moon fullmoon must not be greater than "+strconv.Itoa(MaxMoonPeriod)+".")
	}
	if badID {
		add("moon_id", "The moon id must be at least 1.")
	}
	if dupID {
		add("moon_id", "The moon id field has a duplicate value.")
	}
	return moons, probs
}

func cloneDefinition(d Definition) Definition {
	d.Months = append([]Month(nil), d.Months...)
	d.Weekdays = append([]string(nil), d.Weekdays...)
	d.Seasons = append([]Season(nil), d.Seasons...)
	d.Moons = append([]Moon(nil), d.Moons...)
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

// isLeapRaw ignores SkipYearZero: year 0 is counted as if it existed, and
// removed afterwards (see yearStart).
func (c *Calendar) isLeapRaw(y int64) bool {
	return c.leapOffset > 0 && y >= c.leapStart && (uint64(y)-uint64(c.leapStart))%uint64(c.leapOffset) == 0
}

// IsLeapYear reports whether year y gets the leap days. A skipped year zero
// is never a leap year.
func (c *Calendar) IsLeapYear(y int64) bool {
	if c.skipZero && y == 0 {
		return false
	}
	return c.isLeapRaw(y)
}

// leapsBefore counts the raw leap years < y in closed form. It can reach
// 2^64-1, hence the 128-bit result.
func (c *Calendar) leapsBefore(y int64) i128 {
	if c.leapOffset == 0 || y <= c.leapStart {
		return i128{}
	}
	d := uint64(y) - uint64(c.leapStart) - 1
	return u64(d/uint64(c.leapOffset) + 1)
}

// rawYearStart is the number of days (or, with the std lengths, of
// weekday-advancing days) from the start of year 0 to the start of year y,
// as if year 0 existed.
func (c *Calendar) rawYearStart(y, base, extra int64) i128 {
	return i64(y).mul64(base).add(c.leapsBefore(y).sub(c.leaps0).mul64(extra))
}

func (c *Calendar) yearStart(y int64) i128 {
	r := c.rawYearStart(y, c.yearLen, c.leapDays)
	if c.skipZero && y > 0 {
		r = r.sub(i64(c.zeroLen))
	}
	return r
}

func (c *Calendar) stdYearStart(y int64) i128 {
	r := c.rawYearStart(y, c.stdLen, c.leapStd)
	if c.skipZero && y > 0 {
		r = r.sub(i64(c.zeroStdLen))
	}
	return r
}

// DaysInMonth is the length of month m in year y (leap days included), or 0
// when the month or year does not exist.
func (c *Calendar) DaysInMonth(y int64, m int) int {
	if m < 1 || m > len(c.months) || (c.skipZero && y == 0) {
		return 0
	}
	n := c.months[m-1].Length
	if m == c.leapMonth && c.IsLeapYear(y) {
		n += int(c.leapDays)
	}
	return n
}

// DaysInYear is the length of year y, or 0 for a skipped year zero.
func (c *Calendar) DaysInYear(y int64) int64 {
	if c.skipZero && y == 0 {
		return 0
	}
	if c.isLeapRaw(y) {
		return c.yearLen + c.leapDays
	}
	return c.yearLen
}

// MonthCount is the number of months in a year.
func (c *Calendar) MonthCount() int { return len(c.months) }

func (c *Calendar) exists(d Date) bool {
	return d.Day >= 1 && d.Day <= c.DaysInMonth(d.Year, d.Month)
}

func (c *Calendar) dayNumber128(d Date) i128 {
	cum := c.cumNormal
	if c.IsLeapYear(d.Year) {
		cum = c.cumLeap
	}
	return c.yearStart(d.Year).add64(cum[d.Month-1] + int64(d.Day) - 1)
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
	cum := c.cumNormal
	if c.isLeapRaw(y) {
		cum = c.cumLeap
	}
	i := sort.Search(len(c.months), func(i int) bool { return cum[i+1] > doy })
	return Date{Year: y, Month: i + 1, Day: int(doy-cum[i]) + 1}
}

// rawYearOf finds the year (as if year 0 existed) holding raw day r and the
// 0-based day within it. Before leapStart every year has yearLen days; from
// leapStart on, years come in cycles of leapOffset years, the first of which
// is the leap year.
func (c *Calendar) rawYearOf(r i128) (int64, int64) {
	var y i128
	var doy int64
	switch {
	case c.leapOffset == 0:
		y, doy = r.divFloor(c.yearLen)
	case r.less(c.leapBase):
		var q i128
		q, doy = r.sub(c.leapBase).divFloor(c.yearLen)
		y = i64(c.leapStart).add(q)
	default:
		q, rr := r.sub(c.leapBase).divFloor(c.cycle)
		j := int64(0)
		if first := c.yearLen + c.leapDays; rr < first {
			doy = rr
		} else {
			rr -= first
			j = 1 + rr/c.yearLen
			doy = rr % c.yearLen
		}
		y = i64(c.leapStart).add(q.mul64(c.leapOffset)).add64(j)
	}
	yy, ok := y.int64()
	if !ok {
		// Years are at least 2 days long, so the year of an int64 day fits.
		panic("calendar: year out of range")
	}
	return yy, doy
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

// Compare orders dates; see the package function Compare.
func (c *Calendar) Compare(a, b Date) int { return Compare(a, b) }

// Weekday is the index into Weekdays of d's weekday. Intercalary days have
// none (ok false), and neither do dates that do not exist.
func (c *Calendar) Weekday(d Date) (index int, ok bool) {
	if !c.exists(d) || c.months[d.Month-1].Type == Intercalary {
		return 0, false
	}
	cum := c.cumStdNormal
	if c.IsLeapYear(d.Year) {
		cum = c.cumStdLeap
	}
	s := c.stdYearStart(d.Year).add64(cum[d.Month-1] + int64(d.Day) - 1 + c.startOffset)
	_, w := s.divFloor(c.nWeekdays)
	return int(w), true
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

// YearName is the name given to year y, if any.
func (c *Calendar) YearName(y int64) (string, bool) {
	s, ok := c.def.Years[y]
	return s, ok
}

// Format writes d for readers: "<day> <month name>, <year name or number>"
// followed by " <suffix>" when there is one, e.g. "3 Second, Year of Mist AD".
// Parts are concatenated, never substituted into a template, so names
// containing placeholders are printed as they are. A month that does not
// exist is written as its number.
func (c *Calendar) Format(d Date) string {
	month := strconv.Itoa(d.Month)
	if d.Month >= 1 && d.Month <= len(c.months) {
		month = c.months[d.Month-1].Name
	}
	year, ok := c.def.Years[d.Year]
	if !ok {
		year = strconv.FormatInt(d.Year, 10)
	}
	s := strconv.Itoa(d.Day) + " " + month + ", " + year
	if c.def.Suffix != "" {
		s += " " + c.def.Suffix
	}
	return s
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
		if birth.Year < 0 && end.Year > 0 && a > 0 {
			a--
		} else if end.Year < 0 && birth.Year > 0 && a < 0 {
			a++
		}
	}
	return a
}
