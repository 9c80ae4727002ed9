package calendar

import (
	"errors"
	"strconv"
	"strings"
)

// RecurrenceKind says how an event repeats.
type RecurrenceKind int

const (
	RecurNone    RecurrenceKind = iota
	RecurYearly                 // same month and day every year
	RecurMonthly                // same day every month, intercalary months included
	RecurMoon                   // every day a given phase of a given moon begins
)

// Recurrence is an event's repetition; MoonID and Phase (a PhaseNames
// entry) are used by RecurMoon only.
type Recurrence struct {
	Kind   RecurrenceKind
	MoonID int
	Phase  string
}

var errPeriodicity = errors.New("calendar: unknown recurring periodicity")

// ParsePeriodicity reads the API's recurring_periodicity: "" (none),
// "yearly" or "year", "monthly" or "month", "<moon_id>_f" (full), "<moon_id>_n"
// (new) or "<moon_id>_<phase name>". It does not check that the moon exists
// (see Calendar.CheckRecurrence).
func ParsePeriodicity(s string) (Recurrence, error) {
	switch s {
	case "":
		return Recurrence{}, nil
	case "yearly", "year":
		return Recurrence{Kind: RecurYearly}, nil
	case "monthly", "month":
		return Recurrence{Kind: RecurMonthly}, nil
	}
	id, phase, ok := strings.Cut(s, "_")
	if !ok || id == "" || strings.TrimLeft(id, "0123456789") != "" {
		return Recurrence{}, errPeriodicity
	}
	n, err := strconv.Atoi(id)
	if err != nil || n < 1 {
		return Recurrence{}, errPeriodicity
	}
	switch phase {
	case "f":
		phase = "full"
	case "n":
		phase = "new"
	}
	if _, ok := PhaseIndex(phase); !ok {
		return Recurrence{}, errPeriodicity
	}
	return Recurrence{Kind: RecurMoon, MoonID: n, Phase: phase}, nil
}

// Periodicity is the API spelling of r, the inverse of ParsePeriodicity:
// "", "yearly", "monthly", "<id>_f", "<id>_n" or "<id>_<phase>".
func (r Recurrence) Periodicity() string {
	switch r.Kind {
	case RecurYearly:
		return "yearly"
	case RecurMonthly:
		return "monthly"
	case RecurMoon:
		p := r.Phase
		switch p {
		case "full":
			p = "f"
		case "new":
			p = "n"
		}
		return strconv.Itoa(r.MoonID) + "_" + p
	}
	return ""
}

// KankaPeriodicity is r as Kanka stores it today: "year" and "month" instead of the spec's
// "yearly" and "monthly"; moon phases are spelled alike. ParsePeriodicity reads both.
func (r Recurrence) KankaPeriodicity() string {
	switch r.Kind {
	case RecurYearly:
		return "year"
	case RecurMonthly:
		return "month"
	}
	return r.Periodicity()
}

// CheckRecurrence reports whether r can be used on this calendar.
func (c *Calendar) CheckRecurrence(r Recurrence) error {
	switch r.Kind {
	case RecurNone, RecurYearly, RecurMonthly:
		return nil
	case RecurMoon:
		if _, err := c.moon(r.MoonID); err != nil {
			return err
		}
		if _, ok := PhaseIndex(r.Phase); !ok {
			return errUnknownPhase
		}
		return nil
	}
	return errPeriodicity
}

// Event is an event anchored on Start lasting Length (>= 1) days. When it
// recurs, occurrences start on or after Start and, if Until is set, in a
// year no later than *Until (inclusive); Until is ignored for RecurNone.
type Event struct {
	Start      Date
	Length     int
	Recurrence Recurrence
	Until      *int64
}

// Occurrence is one run of an event, Start and End (its last day) included.
type Occurrence struct {
	Start, End Date
}

var errLength = errors.New("calendar: event length must be at least 1")

func (c *Calendar) checkEvent(ev Event) (int64, error) {
	if ev.Length < 1 {
		return 0, errLength
	}
	if err := c.CheckRecurrence(ev.Recurrence); err != nil {
		return 0, err
	}
	return c.DayNumber(ev.Start)
}

func (c *Calendar) occurrence(start int64, length int) Occurrence {
	end := i64(start).add64(int64(length) - 1).clamp()
	return Occurrence{Start: c.DateOf(start), End: c.DateOf(end)}
}

// Occurrences lists, in order, every occurrence of ev overlapping [from, to],
// including one that began before from and still runs. The cost is
// proportional to the number of occurrences returned (plus, for yearly and
// monthly events, the number of years the window spans), never to the
// distance from the anchor.
func (c *Calendar) Occurrences(ev Event, from, to Date) ([]Occurrence, error) {
	anchor, err := c.checkEvent(ev)
	if err != nil {
		return nil, err
	}
	f, err := c.DayNumber(from)
	if err != nil {
		return nil, err
	}
	t, err := c.DayNumber(to)
	if err != nil {
		return nil, err
	}
	var out []Occurrence
	if f > t {
		return out, nil
	}
	lo := i64(f).add64(1 - int64(ev.Length)).clamp()
	if ev.Recurrence.Kind == RecurMoon {
		// Size the result up front: long windows hold many phases, and
		// regrowing a large slice would dominate the cost.
		m, _ := c.moon(ev.Recurrence.MoonID)
		n, _ := i64(t).sub(i64(lo)).mul64(m.b).divFloor(8 * m.a)
		out = make([]Occurrence, 0, min(n.clamp(), 1<<20)+1)
	}
	c.eachStart(ev, anchor, lo, t, false, func(n int64) bool {
		out = append(out, c.occurrence(n, ev.Length))
		return true
	})
	return out, nil
}

// NextOccurrence is the first occurrence starting strictly after the date
// `after` (so calling it again with the result's Start walks the series). An
// occurrence already running on `after` is not returned. ok is false when
// there is none or the event or date is invalid.
func (c *Calendar) NextOccurrence(ev Event, after Date) (Occurrence, bool) {
	anchor, err := c.checkEvent(ev)
	if err != nil {
		return Occurrence{}, false
	}
	a, err := c.DayNumber(after)
	if err != nil || a == maxDay {
		return Occurrence{}, false
	}
	var occ Occurrence
	found := false
	c.eachStart(ev, anchor, a+1, maxDay, false, func(n int64) bool {
		occ, found = c.occurrence(n, ev.Length), true
		return false
	})
	return occ, found
}

// PrevOccurrence is the last occurrence starting strictly before the date
// `before`; ok is false when there is none or the event or date is invalid.
func (c *Calendar) PrevOccurrence(ev Event, before Date) (Occurrence, bool) {
	anchor, err := c.checkEvent(ev)
	if err != nil {
		return Occurrence{}, false
	}
	b, err := c.DayNumber(before)
	if err != nil || b == minDay {
		return Occurrence{}, false
	}
	var occ Occurrence
	found := false
	c.eachStart(ev, anchor, minDay, b-1, true, func(n int64) bool {
		occ, found = c.occurrence(n, ev.Length), true
		return false
	})
	return occ, found
}

// eachStart visits the day numbers in [lo, hi] on which an occurrence of ev
// starts, ascending (or descending), until fn returns false.
func (c *Calendar) eachStart(ev Event, anchor, lo, hi int64, desc bool, fn func(int64) bool) {
	lo = max(lo, anchor)
	kind := ev.Recurrence.Kind
	if ev.Until != nil && kind != RecurNone {
		if *ev.Until < ev.Start.Year {
			return
		}
		if *ev.Until < maxDay {
			next := *ev.Until + 1
			if c.skipZero && next == 0 {
				next = 1
			}
			hi = min(hi, c.yearStart(next).add64(-1).clamp())
		}
	}
	if lo > hi {
		return
	}
	switch kind {
	case RecurNone:
		if lo == anchor { // lo was raised to the anchor unless the window starts later
			fn(anchor)
		}
	case RecurYearly:
		m, d := ev.Start.Month, ev.Start.Day
		c.eachYear(lo, hi, d > c.months[m-1].Length, desc, func(y int64, ys i128, leap bool) bool {
			return c.visit(y, ys, leap, m, d, lo, hi, fn)
		})
	case RecurMonthly:
		c.eachMonthly(ev.Start.Day, lo, hi, desc, fn)
	case RecurMoon:
		m, _ := c.moon(ev.Recurrence.MoonID)
		p, _ := PhaseIndex(ev.Recurrence.Phase)
		m.phaseDays(p, lo, hi, desc, fn)
	}
}

// visit calls fn for (y, m, d) if that date exists and lies in [lo, hi];
// it reports whether to go on.
func (c *Calendar) visit(y int64, ys i128, leap bool, m, d int, lo, hi int64, fn func(int64) bool) bool {
	length := c.months[m-1].Length
	cum := c.cumNormal
	if leap {
		cum = c.cumLeap
		if m == c.leapMonth {
			length += int(c.leapDays)
		}
	}
	if d > length {
		return true
	}
	n, ok := ys.add64(cum[m-1] + int64(d) - 1).int64()
	if !ok || n < lo || n > hi {
		return true
	}
	return fn(n)
}

// eachYear visits the years holding days lo..hi (only the leap years when
// leapOnly), with each year's first day number, until fn returns false.
func (c *Calendar) eachYear(lo, hi int64, leapOnly, desc bool, fn func(y int64, start i128, leap bool) bool) {
	ya, yb := c.DateOf(lo).Year, c.DateOf(hi).Year
	step := int64(1)
	if leapOnly {
		if c.leapOffset == 0 {
			return
		}
		step = c.leapOffset
		// Round ya up and yb down to leap years.
		if ya < c.leapStart {
			ya = c.leapStart
		} else if r := (uint64(ya) - uint64(c.leapStart)) % uint64(step); r != 0 {
			// No overflow: years of int64 days are within ±2^62.
			ya += step - int64(r)
		}
		if yb < c.leapStart {
			return
		}
		yb -= int64((uint64(yb) - uint64(c.leapStart)) % uint64(step))
	}
	if ya > yb {
		return
	}
	y := ya
	if desc {
		y = yb
	}
	for ya <= y && y <= yb {
		if !(c.skipZero && y == 0) {
			if !fn(y, c.yearStart(y), c.IsLeapYear(y)) {
				return
			}
		}
		if desc {
			y -= step
		} else {
			y += step
		}
	}
}

// eachMonthly visits the starts of a monthly event on day d. Each year
// holds it in the months at least d days long, plus the leap month in leap
// years when its leap days reach d; when only the latter exists, only leap
// years are visited so the cost stays proportional to occurrences.
func (c *Calendar) eachMonthly(d int, lo, hi int64, desc bool, fn func(int64) bool) {
	var normal, leap []int
	for i, m := range c.months {
		long := m.Length >= d
		if long {
			normal = append(normal, i+1)
		}
		if long || (i+1 == c.leapMonth && m.Length+int(c.leapDays) >= d) {
			leap = append(leap, i+1)
		}
	}
	c.eachYear(lo, hi, len(normal) == 0, desc, func(y int64, ys i128, isLeap bool) bool {
		months := normal
		if isLeap {
			months = leap
		}
		for i := range months {
			m := months[i]
			if desc {
				m = months[len(months)-1-i]
			}
			if !c.visit(y, ys, isLeap, m, d, lo, hi, fn) {
				return false
			}
		}
		return true
	})
}
