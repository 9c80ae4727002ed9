package calengine

import (
	"errors"
	"math"
	"strconv"
)

// Bounds of a clock: far above any world's day, and small enough that a day's minutes and
// a move of a million days in minutes stay well within int64.
const (
	MaxClockHours   = 1000 // hours in a day
	MaxClockMinutes = 1000 // minutes in an hour
)

// Clock divides a day into Hours hours of Minutes minutes (Fantasy-Calendar's clock). Offset
// is Fantasy-Calendar's clock offset: the hour its clock face starts at, a display setting
// kept as given (0 to Hours-1); it does not shift dates or times.
type Clock struct {
	Hours, Minutes, Offset int
}

// Time is a time of day on a clock: 0 <= Hour < Hours, 0 <= Minute < Minutes.
type Time struct {
	Hour, Minute int
}

// String writes the time as "H:MM" (minutes padded to the width of the clock's last minute).
func (t Time) String(k Clock) string {
	m := strconv.Itoa(t.Minute)
	for w := len(strconv.Itoa(k.Minutes - 1)); len(m) < w; {
		m = "0" + m
	}
	return strconv.Itoa(t.Hour) + ":" + m
}

// clockProblems checks a clock, naming fields under prefix ("clock").
func clockProblems(k Clock, prefix string) []Problem {
	var probs []Problem
	if k.Hours < 1 || k.Hours > MaxClockHours {
		probs = append(probs, Problem{prefix + ".hours", "The hours must be between 1 and " + strconv.Itoa(MaxClockHours) + "."})
	}
	if k.Minutes < 1 || k.Minutes > MaxClockMinutes {
		probs = append(probs, Problem{prefix + ".minutes", "The minutes must be between 1 and " + strconv.Itoa(MaxClockMinutes) + "."})
	}
	if k.Offset < 0 || (k.Hours >= 1 && k.Offset >= k.Hours) {
		probs = append(probs, Problem{prefix + ".offset", "The offset must be an hour of the clock (0 to the hours less one)."})
	}
	return probs
}

// ValidTime reports whether t is a time of the calendar's clock (false without a clock).
func (c *Calendar) ValidTime(t Time) bool {
	k := c.def.Clock
	return k != nil && t.Hour >= 0 && t.Hour < k.Hours && t.Minute >= 0 && t.Minute < k.Minutes
}

var errNoClock = errors.New("calendar: the calendar has no clock")

// AddMinutes moves the date and time d, t by n minutes of the calendar's clock (n may be
// negative): whole days carried by the clock's day length, then AddDays. Its cost does not
// depend on n.
func (c *Calendar) AddMinutes(d Date, t Time, n int64) (Date, Time, error) {
	if !c.ValidTime(t) {
		return Date{}, Time{}, errNoClock
	}
	k := c.def.Clock
	perDay := int64(k.Hours) * int64(k.Minutes)
	// n splits into whole days and a remainder first, so that no sum can overflow.
	within := int64(t.Hour)*int64(k.Minutes) + int64(t.Minute) + n%perDay
	days := n/perDay + floorDiv(within, perDay)
	within = mod(within, perDay)
	nd, err := c.AddDays(d, days)
	if err != nil {
		return Date{}, Time{}, err
	}
	return nd, Time{Hour: int(within / int64(k.Minutes)), Minute: int(within % int64(k.Minutes))}, nil
}

// floorDiv is a/b rounded down.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// SecondsPerMinute is a clock's: its hours and minutes are the calendar's, its minutes have 60
// seconds, as Fantasy-Calendar's and every VTT's game clock.
const SecondsPerMinute = 60

var errSecondsRange = errors.New("calendar: the seconds are out of range")

// SecondsOf is the count of seconds since the calendar's epoch (day 0 at 0:00, DayNumber's) of
// date d at time t and second sec: the world clock a virtual tabletop keeps game time in.
func (c *Calendar) SecondsOf(d Date, t Time, sec int) (int64, error) {
	if !c.ValidTime(t) {
		return 0, errNoClock
	}
	if sec < 0 || sec >= SecondsPerMinute {
		return 0, errSecondsRange
	}
	day, err := c.DayNumber(d)
	if err != nil {
		return 0, err
	}
	k := c.def.Clock
	perDay := int64(k.Hours) * int64(k.Minutes) * SecondsPerMinute
	within := (int64(t.Hour)*int64(k.Minutes)+int64(t.Minute))*SecondsPerMinute + int64(sec)
	if day > 0 && day > (math.MaxInt64-within)/perDay || day < 0 && day < (math.MinInt64+perDay)/perDay {
		return 0, errSecondsRange
	}
	return day*perDay + within, nil
}

// AtSeconds is the date, time and second of n seconds since the calendar's epoch (SecondsOf's
// inverse; every int64 is some instant).
func (c *Calendar) AtSeconds(n int64) (Date, Time, int, error) {
	k := c.def.Clock
	if k == nil {
		return Date{}, Time{}, 0, errNoClock
	}
	perDay := int64(k.Hours) * int64(k.Minutes) * SecondsPerMinute
	day, within := floorDiv(n, perDay), mod(n, perDay)
	minutes := within / SecondsPerMinute
	return c.DateOf(day), Time{Hour: int(minutes / int64(k.Minutes)), Minute: int(minutes % int64(k.Minutes))}, int(within % SecondsPerMinute), nil
}
