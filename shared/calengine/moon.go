package calengine

import (
	"errors"
	"strconv"
	"strings"
)

// PhaseNames are the eight moon phases in cycle order; phase p of cycle k
// begins on day floor(Offset + (8k+p)·P/8) for a period of P days.
var PhaseNames = [8]string{
	"full", "waning_gibbous", "last_quarter", "waning_crescent",
	"new", "waxing_crescent", "first_quarter", "waxing_gibbous",
}

// PhaseIndex is the position of a phase name in PhaseNames.
func PhaseIndex(name string) (int, bool) {
	for i, n := range PhaseNames {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

// MoonDay is a day on which at least one phase of a moon begins. When a
// short period puts several phases on one day they are merged: Phase is the
// earliest, Phases lists each distinct phase in the order they begin.
type MoonDay struct {
	Day    int64
	MoonID int
	Name   string
	Phase  string
	Phases []string
	// PhaseIndex is Phase's position in the moon's cycle of PhaseCount phases (0: full).
	PhaseIndex, PhaseCount int
}

var (
	errBadPeriod      = errors.New("calendar: moon period must be a positive decimal")
	errPeriodTooLarge = errors.New("calendar: moon period too large")
	errBadOffset      = errors.New("calendar: moon offset must be a decimal")
)

// moonCalc holds a moon's phase events as one fraction: event j begins on
// day floor((j·a + u)/b), where a/b is the phase step P/8 and u/b the offset.
type moonCalc struct {
	Moon
	a, b int64
	u    i128
	g    int64 // phases per cycle: 8 for recurrences, the moon's granularity for display
	// disp is the moon as displayed when its granularity or custom cycle differs (moon_phases.go).
	disp *moonCalc
	cyc  []int // the custom cycle, one phase per day
}

// ParsePeriod reads a moon period ("29.5") as the exact fraction num/den:
// digits, optionally a point and 1 to 10 more digits; no sign, exponent or
// spaces; greater than zero and at most MaxMoonPeriod.
func ParsePeriod(s string) (num, den int64, err error) {
	whole, frac, den, ok := splitDecimal(s, 9)
	switch {
	case !ok && whole < 0:
		return 0, 0, errBadPeriod
	case !ok || whole > MaxMoonPeriod:
		return 0, 0, errPeriodTooLarge
	}
	num = whole*den + frac
	switch {
	case num == 0:
		return 0, 0, errBadPeriod
	case whole == MaxMoonPeriod && frac > 0:
		return 0, 0, errPeriodTooLarge
	}
	g := gcd(num, den)
	return num / g, den / g, nil
}

// splitDecimal reads unsigned decimal text (digits, optionally a point and 1 to
// MaxMoonDecimals more digits) as whole + frac/den, den a power of ten. Not ok: malformed
// (whole -1) or more than maxDigits whole digits (whole 0).
func splitDecimal(s string, maxDigits int) (whole, frac, den int64, ok bool) {
	ip, fp, hasPoint := strings.Cut(s, ".")
	if ip == "" || strings.TrimLeft(ip, "0123456789") != "" ||
		(hasPoint && (fp == "" || len(fp) > MaxMoonDecimals || strings.TrimLeft(fp, "0123456789") != "")) {
		return -1, 0, 0, false
	}
	ip = strings.TrimLeft(ip, "0")
	if len(ip) > maxDigits {
		return 0, 0, 0, false
	}
	if ip != "" {
		whole, _ = strconv.ParseInt(ip, 10, 64)
	}
	den = 1
	if fp != "" {
		frac, _ = strconv.ParseInt(fp, 10, 64)
		for range len(fp) {
			den *= 10
		}
	}
	return whole, frac, den, true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// parseOffset reads a moon offset ("-3.25") as the exact fraction num/den:
// an optional minus, digits, optionally a point and 1 to 10 more digits; at
// most MaxMoonOffset in magnitude. Empty is 0.
func parseOffset(s string) (num i128, den int64, err error) {
	if s == "" {
		return i128{}, 1, nil
	}
	rest, neg := strings.CutPrefix(s, "-")
	whole, frac, den, ok := splitDecimal(rest, 10)
	if !ok || whole > MaxMoonOffset || (whole == MaxMoonOffset && frac > 0) {
		return i128{}, 0, errBadOffset
	}
	num = i64(whole).mul64(den).add64(frac) // up to 10^19: beyond int64
	if neg {
		num = num.neg()
	}
	return num, den, nil
}

// PeriodProblem says what is wrong with a moon period, with :attribute standing for its name,
// or "" when ParsePeriod takes it: one wording for the create's check and the engine's.
func PeriodProblem(s string) string {
	switch _, _, err := ParsePeriod(s); {
	case err == nil:
		return ""
	case errors.Is(err, errPeriodTooLarge):
		return "The :attribute must not be greater than " + strconv.Itoa(MaxMoonPeriod) + "."
	}
	return "The :attribute must be a positive number with at most " + strconv.Itoa(MaxMoonDecimals) + " decimal places."
}

// CheckOffset reports whether s is a moon offset the engine accepts.
func CheckOffset(s string) error {
	_, _, err := parseOffset(s)
	return err
}

func newMoonCalc(m Moon) (moonCalc, error) { return newMoonCalcG(m, 8) }

func newMoonCalcG(m Moon, g int64) (moonCalc, error) {
	num, den, err := ParsePeriod(m.Fullmoon)
	if err != nil {
		return moonCalc{}, err
	}
	on, od, err := parseOffset(m.Offset)
	if err != nil {
		return moonCalc{}, err
	}
	// The step a/b = P/g and the offset on/od share the denominator l, the
	// lcm of b and od. Both divide g·10^10, so l does, and the step's
	// numerator P·l/g is at most 10^8·10^10: within int64.
	a, b := num, g*den
	k := gcd(a, b)
	a, b = a/k, b/k
	l := b / gcd(b, od) * od
	mc := moonCalc{Moon: m, a: a * (l / b), b: l, u: on.mul64(l / od), g: g}
	fcRounding(&mc)
	return mc, nil
}

// dayOf is the day phase event j (= 8k+p) begins on.
func (m *moonCalc) dayOf(j i128) i128 {
	q, _ := j.mul64(m.a).add(m.u).divFloor(m.b)
	return q
}

// firstEvent is the smallest j beginning on or after day: floor((j·a+u)/b)
// >= day exactly when j·a + u >= day·b, as day is an integer.
func (m *moonCalc) firstEvent(day i128) i128 {
	return day.mul64(m.b).sub(m.u).ceilDiv(m.a)
}

// days visits, per day in [from, to] with at least one phase beginning, the
// range [j, jn) of phase events on it. Consecutive events never skip a day
// they belong to, so the cost is one step per visited day.
func (m *moonCalc) days(from, to int64, fn func(day int64, j, jn i128) bool) {
	j := m.firstEvent(i64(from))
	end := m.firstEvent(i64(to).add64(1))
	for j.less(end) {
		d := m.dayOf(j)
		jn := m.firstEvent(d.add64(1))
		day, _ := d.int64() // within [from, to]
		if !fn(day, j, jn) {
			return
		}
		j = jn
	}
}

// phaseDays visits the days in [from, to] on which phase p begins,
// ascending, one step per day visited.
func (m *moonCalc) phaseDays(p int, from, to int64, fn func(day int64) bool) {
	if from > to {
		return
	}
	pp := int64(p)
	// Events 8k+p with firstEvent(from) <= 8k+p < firstEvent(to+1).
	kLo := m.firstEvent(i64(from)).add64(-pp).ceilDiv(m.g)
	kHi, _ := m.firstEvent(i64(to).add64(1)).add64(-1 - pp).divFloor(m.g)
	for k := kLo; !kHi.less(k); {
		d := m.dayOf(k.mul64(m.g).add64(pp))
		day, _ := d.int64()
		if !fn(day) {
			return
		}
		// Smallest k whose event begins after day.
		k = m.firstEvent(d.add64(1)).add64(-pp).ceilDiv(m.g)
	}
}

func (m *moonCalc) moonDay(day int64, j, jn i128) MoonDay {
	_, p := j.divFloor(m.g)
	n := m.g
	if cnt, ok := jn.sub(j).int64(); ok && cnt < m.g {
		n = cnt
	}
	phases := make([]string, n)
	for i := range n {
		phases[i] = PhaseName(int(m.g), int((p+i)%m.g))
	}
	return MoonDay{Day: day, MoonID: m.ID, Name: m.Name, Phase: phases[0], Phases: phases, PhaseIndex: int(p), PhaseCount: int(m.g)}
}

// MoonPhases lists, for every moon and every day in [from, to] (day
// numbers) on which a phase begins, that day's phases; ordered by day, then
// by the moons' order in the definition. The cost is proportional to the
// number of entries returned, not to the number of days. It is nil when
// there are none.
func (c *Calendar) MoonPhases(from, to int64) []MoonDay {
	if from > to || len(c.moons) == 0 {
		return nil
	}
	per := make([][]MoonDay, len(c.moons))
	total := 0
	for i := range c.moons {
		per[i] = c.moons[i].display(from, to)
		total += len(per[i])
	}
	if total == 0 {
		return nil
	}
	// Each list is in day order: merge them, earlier moons first on ties.
	out := make([]MoonDay, 0, total)
	next := make([]int, len(per))
	for len(out) < total {
		best := -1
		for i, l := range per {
			if next[i] < len(l) && (best < 0 || l[next[i]].Day < per[best][next[best]].Day) {
				best = i
			}
		}
		out = append(out, per[best][next[best]])
		next[best]++
	}
	return out
}

var errUnknownMoon = errors.New("calendar: unknown moon")
var errUnknownPhase = errors.New("calendar: unknown moon phase")

func (c *Calendar) moon(id int) (*moonCalc, error) {
	i, ok := c.moonIndex[id]
	if !ok {
		return nil, errUnknownMoon
	}
	return &c.moons[i], nil
}
