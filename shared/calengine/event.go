package calengine

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
	// Rule, when set, is the recurrence instead of Recurrence (recur.go).
	Rule *Rule
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
	if ev.Rule != nil && len(c.CheckRule(*ev.Rule, ev.Start)) > 0 {
		return 0, errRule
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
	var out []Occurrence
	if m, err := c.moon(ev.Recurrence.MoonID); ev.Recurrence.Kind == RecurMoon && ev.Rule == nil && err == nil {
		// Size the result up front: long windows hold many phases, and regrowing a large
		// slice would dominate the cost. A phase begins at most once a day.
		f, err1 := c.DayNumber(from)
		t, err2 := c.DayNumber(to)
		if err1 == nil && err2 == nil && f <= t {
			lo := i64(f).add64(1 - int64(max(ev.Length, 1))).clamp()
			q, _ := i64(t).sub(i64(lo)).mul64(m.b).divFloor(m.a) // 8·a may pass int64 (a rounding moon's doubled step)
			n, _ := q.divFloor(8)
			days := i64(t).sub(i64(lo)).add64(1).clamp()
			out = make([]Occurrence, 0, min(n.clamp(), days-1, 1<<20)+1)
		}
	}
	err := c.EachOccurrence(ev, from, to, func(o Occurrence) bool {
		out = append(out, o)
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachOccurrence visits, in order, the occurrences Occurrences lists, until fn answers false:
// a caller bounding what it keeps (the day view's entries) stops the walk at its limit, so
// that an every-day event lasting 100,000 days costs the limit, not its 100,000 overlapping
// occurrences.
func (c *Calendar) EachOccurrence(ev Event, from, to Date, fn func(Occurrence) bool) error {
	anchor, err := c.checkEvent(ev)
	if err != nil {
		return err
	}
	f, err := c.DayNumber(from)
	if err != nil {
		return err
	}
	t, err := c.DayNumber(to)
	if err != nil {
		return err
	}
	if f > t {
		return nil
	}
	lo := i64(f).add64(1 - int64(ev.Length)).clamp()
	c.eachStart(ev, anchor, lo, t, func(n int64) bool {
		return fn(c.occurrence(n, ev.Length))
	})
	return nil
}

// eachStart visits, ascending, the day numbers in [lo, hi] on which an
// occurrence of ev starts, until fn answers false.
func (c *Calendar) eachStart(ev Event, anchor, lo, hi int64, fn func(int64) bool) {
	lo = max(lo, anchor)
	kind := ev.Recurrence.Kind
	if ev.Rule != nil {
		kind = -1 // recurring, by the rule
	}
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
	case -1:
		c.ruleStarts(ev.Rule, ev.Start, anchor, lo, hi, fn)
	case RecurNone:
		if lo == anchor { // lo was raised to the anchor unless the window starts later
			fn(anchor)
		}
	case RecurYearly:
		m, d := ev.Start.Month, ev.Start.Day
		c.eachYear(lo, hi, func(y int64, ys i128, s leapSet) bool {
			return c.visit(ys, s, m, d, lo, hi, fn)
		})
	case RecurMonthly:
		d := ev.Start.Day
		c.eachYear(lo, hi, func(y int64, ys i128, s leapSet) bool {
			for m := 1; m <= len(c.months); m++ {
				if !c.visit(ys, s, m, d, lo, hi, fn) {
					return false
				}
			}
			return true
		})
	case RecurMoon:
		m, _ := c.moon(ev.Recurrence.MoonID)
		p, _ := PhaseIndex(ev.Recurrence.Phase)
		m.phaseDays(p, lo, hi, fn)
	}
}

// visit calls fn for day d of month m of the year starting on day ys and
// taking the rules in s, if that date exists and lies in [lo, hi]; it answers fn's answer
// (true when fn was not called).
func (c *Calendar) visit(ys i128, s leapSet, m, d int, lo, hi int64, fn func(int64) bool) bool {
	if int64(d) > c.monthLen(s, m-1) {
		return true
	}
	n, ok := ys.add64(c.before(s, m-1, false) + int64(d) - 1).int64()
	if ok && n >= lo && n <= hi {
		return fn(n)
	}
	return true
}

// eachYear visits the years holding days lo..hi in order, with each year's
// first day number and leap rules, until fn answers false.
func (c *Calendar) eachYear(lo, hi int64, fn func(y int64, start i128, s leapSet) bool) {
	ya, yb := c.DateOf(lo).Year, c.DateOf(hi).Year
	ys := c.yearStart(ya) // then each next start from the year's length, cheaper than a count
	for y := ya; y <= yb; y++ {
		if c.skipZero && y == 0 {
			continue // yearStart(0) is where year 1 starts
		}
		s := c.activeRaw(y)
		if !fn(y, ys, s) {
			return
		}
		ys = ys.add64(c.before(s, len(c.months), false))
	}
}

// MaxNextYears bounds the search of NextStart: a recurrence with no occurrence within this many
// years of the date (a monthly day no month of it has) has none as far as callers are told.
const MaxNextYears = 10_000

// NextStart is the first occurrence of ev starting on or after day from, searched in windows
// growing from a year to MaxNextYears past from: the walk stops at the first start (closed
// forms, EachOccurrence), so the cost is the steps before it, at most those of MaxNextYears.
// ok is false without one (a one-off event before from, or none within the bound).
func (c *Calendar) NextStart(ev Event, from Date) (Date, bool) {
	f, err := c.DayNumber(from)
	if err != nil {
		return Date{}, false
	}
	ev.Length = 1 // starts only: none that began before from is visited
	yearLen := max(c.DaysInYear(from.Year), 1)
	for _, years := range []int64{1, 100, MaxNextYears} {
		to := i64(f).add(i64(yearLen).mul64(years)).clamp()
		var found Date
		ok := false
		err := c.EachOccurrence(ev, from, c.DateOf(to), func(o Occurrence) bool {
			found, ok = o.Start, true
			return false
		})
		if err != nil {
			return Date{}, false
		}
		if ok {
			return found, true
		}
	}
	return Date{}, false
}
