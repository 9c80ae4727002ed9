package calengine

import (
	"sort"
	"strconv"
	"strings"
)

// Periodic seasons (DESIGN.md section 5, "Seasons"): Fantasy-Calendar's seasons that recur by
// duration rather than on a date. Each lasts Duration days and then turns into the next over
// Transition days (decimals, like moon periods); the cycle of all of them repeats from day
// SeasonOffset on. A day's place is exact: durations are counted in units of 10^-10 day.
// Dated seasons and periodic ones both may carry a sunrise and a sunset: the day view shows
// them, interpolated across a periodic season's transition.

// MaxSeasonDays bounds a season's duration and transition, keeping a cycle of MaxSeasons
// seasons within int64 units.
const MaxSeasonDays = 1_000_000

// seasonUnit is the day's fraction season lengths are counted in: 10^MaxMoonDecimals.
const seasonUnit = 10_000_000_000

// SeasonDay is what the seasons say about a day.
type SeasonDay struct {
	Season Season
	Index  int // in the definition
	// Progress is how far through the season the day is, from 0 (its first day) to below 1;
	// -1 when unknown (a dated season whose next start does not exist that year).
	Progress        float64
	Sunrise, Sunset *Time
}

// seasonCycle is the periodic seasons precomputed.
type seasonCycle struct {
	starts []int64 // units from the cycle's start to each season's
	dur    []int64
	trans  []int64
	total  int64
	offset int64
}

// seasonUnits reads a season length (decimal days, at most MaxSeasonDays) in units.
func seasonUnits(s string) (int64, bool) {
	if s == "" {
		return 0, true
	}
	whole, frac, den, ok := splitDecimal(s, 7)
	if !ok || whole > MaxSeasonDays || (whole == MaxSeasonDays && frac > 0) {
		return 0, false
	}
	return whole*seasonUnit + frac*(seasonUnit/den), true
}

// seasonProblems checks the seasons: dated ones' months and days, periodic ones' lengths, and
// everyone's sunrise and sunset on the clock (24 hours of 60 minutes without one).
func seasonProblems(def Definition) ([]Problem, *seasonCycle) {
	var probs []Problem
	hours, minutes := 24, 60
	if def.Clock != nil {
		hours, minutes = max(def.Clock.Hours, 1), max(def.Clock.Minutes, 1)
	}
	var cyc *seasonCycle
	if def.PeriodicSeasons {
		cyc = &seasonCycle{offset: def.SeasonOffset}
	}
	for i, s := range def.Seasons {
		at := "." + strconv.Itoa(i)
		for _, t := range []struct {
			name string
			v    *Time
		}{{"season_sunrise", s.Sunrise}, {"season_sunset", s.Sunset}} {
			if t.v != nil && (t.v.Hour < 0 || t.v.Hour >= hours || t.v.Minute < 0 || t.v.Minute >= minutes) {
				probs = append(probs, Problem{t.name + at, "The " + t.name[7:] + " must be a time of the clock (hours 0 to " +
					strconv.Itoa(hours-1) + ", minutes 0 to " + strconv.Itoa(minutes-1) + ")."})
			}
		}
		if cyc == nil {
			continue
		}
		d, ok1 := seasonUnits(s.Duration)
		t, ok2 := seasonUnits(s.Transition)
		msg := "The :f must be a number of days from 0 to " + strconv.Itoa(MaxSeasonDays) + " with at most " + strconv.Itoa(MaxMoonDecimals) + " decimal places."
		if !ok1 {
			probs = append(probs, Problem{"season_duration" + at, replaceF(msg, "season duration")})
		}
		if !ok2 {
			probs = append(probs, Problem{"season_transition" + at, replaceF(msg, "season transition")})
		}
		cyc.starts, cyc.dur, cyc.trans = append(cyc.starts, cyc.total), append(cyc.dur, d), append(cyc.trans, t)
		cyc.total += d + t
	}
	if cyc != nil && len(def.Seasons) > 0 && cyc.total == 0 && len(probs) == 0 {
		probs = append(probs, Problem{"season_duration", "The periodic seasons must last more than 0 days in all."})
	}
	return probs, cyc
}

func replaceF(msg, name string) string { return "The " + name + msg[len("The :f"):] }

// SeasonOn is what the seasons say about day number n of date d: the season, how far through
// it the day is, and its sunrise and sunset where the seasons give them.
func (c *Calendar) SeasonOn(n int64, d Date) (SeasonDay, bool) {
	if len(c.def.Seasons) == 0 {
		return SeasonDay{}, false
	}
	if c.cycle != nil {
		return c.periodicSeason(n), true
	}
	s, ok := c.Season(d)
	if !ok {
		return SeasonDay{}, false
	}
	out := SeasonDay{Season: s, Index: c.seasonIndex(s), Progress: -1, Sunrise: s.Sunrise, Sunset: s.Sunset}
	// From this season's latest start on or before d to the next season's start after it.
	y := d.Year
	if s.Month > d.Month || (s.Month == d.Month && s.Day > d.Day) {
		y--
	}
	start, err1 := c.DayNumber(Date{Year: y, Month: s.Month, Day: s.Day})
	next := c.nextSeason(s)
	ny := y
	if next.Month < s.Month || (next.Month == s.Month && next.Day <= s.Day) {
		ny++
	}
	end, err2 := c.DayNumber(Date{Year: ny, Month: next.Month, Day: next.Day})
	if err1 == nil && err2 == nil && end > start && n >= start && n < end {
		out.Progress = float64(n-start) / float64(end-start)
	}
	return out, true
}

func (c *Calendar) seasonIndex(s Season) int {
	for i, x := range c.def.Seasons {
		if x.Name == s.Name && x.Month == s.Month && x.Day == s.Day {
			return i
		}
	}
	return 0
}

// nextSeason is the season starting after s in the year's order (wrapping).
func (c *Calendar) nextSeason(s Season) Season {
	for i, x := range c.seasons {
		if x.Month == s.Month && x.Day == s.Day && x.Name == s.Name {
			return c.seasons[(i+1)%len(c.seasons)]
		}
	}
	return s
}

func (c *Calendar) periodicSeason(n int64) SeasonDay {
	k := c.cycle
	_, x := i64(n).sub(i64(k.offset)).mul64(seasonUnit).divFloor(k.total)
	i := sort.Search(len(k.starts), func(i int) bool { return k.starts[i] > x }) - 1
	for k.dur[i]+k.trans[i] == 0 { // a season of no length: the next one that has some
		i = (i + 1) % len(k.starts)
	}
	s := c.def.Seasons[i]
	within := x - k.starts[i]
	out := SeasonDay{Season: s, Index: i, Progress: float64(within) / float64(k.dur[i]+k.trans[i]), Sunrise: s.Sunrise, Sunset: s.Sunset}
	if within >= k.dur[i] && k.trans[i] > 0 { // turning into the next season
		f := float64(within-k.dur[i]) / float64(k.trans[i])
		next := c.def.Seasons[(i+1)%len(c.def.Seasons)]
		out.Sunrise, out.Sunset = c.lerpTime(s.Sunrise, next.Sunrise, f), c.lerpTime(s.Sunset, next.Sunset, f)
	}
	return out
}

// lerpTime is the time a fraction f of the way from a to b, to the nearest minute.
func (c *Calendar) lerpTime(a, b *Time, f float64) *Time {
	if a == nil || b == nil {
		return a
	}
	per := 60
	if c.def.Clock != nil {
		per = c.def.Clock.Minutes
	}
	ma, mb := a.Hour*per+a.Minute, b.Hour*per+b.Minute
	m := ma + int(float64(mb-ma)*f+0.5)
	if float64(mb-ma)*f < 0 {
		m = ma + int(float64(mb-ma)*f-0.5)
	}
	return &Time{Hour: m / per, Minute: m % per}
}

// ParseTimeOfDay reads "H:MM" (a sunrise, a sunset): whole hours and minutes, each at most
// 4 digits; the clock judges them.
func ParseTimeOfDay(s string) (Time, bool) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || h == "" || m == "" || len(h) > 4 || len(m) > 4 || strings.TrimLeft(h+m, "0123456789") != "" {
		return Time{}, false
	}
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(m)
	return Time{Hour: hh, Minute: mm}, true
}

// TimeOfDayText writes t as ParseTimeOfDay reads it.
func TimeOfDayText(t *Time) *string {
	if t == nil {
		return nil
	}
	m := strconv.Itoa(t.Minute)
	if len(m) < 2 {
		m = "0" + m
	}
	s := strconv.Itoa(t.Hour) + ":" + m
	return &s
}

// CloneSeasons copies d's seasons, times included.
func (d Definition) CloneSeasons() []Season {
	out := append([]Season(nil), d.Seasons...)
	for i, s := range out {
		if s.Sunrise != nil {
			t := *s.Sunrise
			out[i].Sunrise = &t
		}
		if s.Sunset != nil {
			t := *s.Sunset
			out[i].Sunset = &t
		}
	}
	return out
}
