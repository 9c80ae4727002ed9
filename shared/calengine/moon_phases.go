package calengine

import (
	"slices"
	"strconv"
)

// How a moon is displayed (DESIGN.md section 5, "Moon phases"): its phases are counted in
// eighths for recurrences whatever its display, and the day view divides its cycle into
// Granularity phases (Fantasy-Calendar's sprite counts) or follows its custom cycle, one phase
// per day as Fantasy-Calendar does: day n shows CustomCycle[|n mod len|].

// Granularities are the phase counts a moon may be displayed with, as Fantasy-Calendar's.
var Granularities = []int{4, 8, 16, 24, 32, 40}

// MaxCustomCycle bounds a moon's custom cycle.
const MaxCustomCycle = 1000

// MoonRoundings are the values of Moon.Rounding: Lorekeep's ("") and Fantasy-Calendar's
// cycle_rounding.
var MoonRoundings = []string{"", "round", "floor", "ceil"}

// fcRounding moves m's phase days to Fantasy-Calendar's rounding. Fantasy-Calendar gives day e
// the phase J(e) = R((e - shift)·g/P) mod g, R its rounding; Lorekeep's event j, at the instant
// t = (j·a + u)/b (a/b = P/g), begins on floor(t). Phase j thus begins, in Fantasy-Calendar, on
// the first day e with J(e) >= j: ceil(t - P/2g) when rounding (Math.round takes halves up),
// ceil(t) flooring, floor(t - P/g) + 1 ceiling. With integer numerators each is again a floor
// of (j·a' + u')/b' (ceil(x/b) = floor((x + b - 1)/b)), so nothing else in the engine changes:
// round doubles a and b to keep the half step whole (2a <= 2·10^18, within int64).
func fcRounding(m *moonCalc) {
	switch m.Rounding {
	case "floor":
		m.u = m.u.add64(m.b - 1)
	case "ceil":
		m.u = m.u.add64(m.b - m.a)
	case "round":
		m.u = m.u.mul64(2).add64(2*m.b - 1 - m.a)
		m.a, m.b = 2*m.a, 2*m.b
	}
}

// moonGranularity is m's phase count.
func moonGranularity(m Moon) int {
	if m.Granularity == 0 {
		return 8
	}
	return m.Granularity
}

// PhaseName names phase k (0: full) of a cycle of g phases: one of PhaseNames, the principal
// phase it is at or most recently past (a cycle of 16 has two "full", the second just after).
func PhaseName(g, k int) string {
	return PhaseNames[(k*8/g)%8]
}

// displayProblems checks m's display and sets it up on mc.
func displayProblems(mc *moonCalc, at string) []Problem {
	m := mc.Moon
	g := moonGranularity(m)
	if !slices.Contains(MoonRoundings, m.Rounding) {
		return []Problem{{"moon_rounding" + at, "The moon rounding must be one of round, floor or ceil (or null)."}}
	}
	if !slices.Contains(Granularities, g) {
		return []Problem{{"moon_granularity" + at, "The moon granularity must be one of 4, 8, 16, 24, 32 or 40."}}
	}
	if len(m.CustomCycle) > MaxCustomCycle {
		return []Problem{{"moon_custom_cycle" + at, "The moon custom cycle must not have more than " + strconv.Itoa(MaxCustomCycle) + " items."}}
	}
	for _, p := range m.CustomCycle {
		if p < 0 || p >= g {
			return []Problem{{"moon_custom_cycle" + at, "The moon custom cycle's phases must be from 0 to the granularity less one (" + strconv.Itoa(g-1) + ")."}}
		}
	}
	switch {
	case len(m.CustomCycle) > 0:
		mc.cyc = m.CustomCycle
	case g != 8:
		d, err := newMoonCalcG(m, int64(g))
		if err != nil {
			return nil // the period's problem is reported by the caller
		}
		mc.disp = &d
	}
	return nil
}

// display lists the days in [from, to] on which one of m's displayed phases begins.
func (m *moonCalc) display(from, to int64) []MoonDay {
	var out []MoonDay
	if m.cyc != nil {
		n := int64(len(m.cyc))
		g := moonGranularity(m.Moon)
		at := func(day int64) int { // Fantasy-Calendar's |day mod n|, mirrored below day 0
			r := day % n
			if r < 0 {
				r = -r
			}
			return m.cyc[r]
		}
		prev := -1
		if from > minDay {
			prev = at(from - 1)
		}
		for day := from; ; day++ {
			if p := at(day); p != prev {
				out = append(out, MoonDay{Day: day, MoonID: m.ID, Name: m.Name, Phase: PhaseName(g, p), Phases: []string{PhaseName(g, p)}, PhaseIndex: p, PhaseCount: g})
				prev = p
			}
			if day == to {
				return out
			}
		}
	}
	mc := m
	if m.disp != nil {
		mc = m.disp
	}
	mc.days(from, to, func(day int64, j, jn i128) bool {
		md := mc.moonDay(day, j, jn)
		md.MoonID, md.Name = m.ID, m.Name
		out = append(out, md)
		return true
	})
	return out
}
