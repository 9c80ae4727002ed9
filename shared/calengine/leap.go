package calengine

import (
	"errors"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// LeapDay is a rule adding days to some years, in Fantasy-Calendar's model.
//
// Interval is comma-separated positive integers, each optionally prefixed by
// "!" (the years it matches are excluded) and "+" (it ignores Offset):
// "400,!100,4" is Gregorian. A year Y takes the rule when, of the intervals
// sorted largest first, the first one dividing Y - Offset is not excluded.
type LeapDay struct {
	Name  string
	Month int // 1-based
	// Day places the leap days after day Day of the month's normal length
	// (0: before its first day); nil appends them after the last day. Later
	// days of the month are numbered on after them.
	Day      *int
	Interval string
	Offset   int64
	// FromYear: no leap day in years before it.
	FromYear *int64
	// Intercalary leap days have no weekday and do not advance the week
	// (leap days in an intercalary month never do).
	Intercalary bool
	// Amount is the number of days the rule adds (Kanka's
	// leap_year_amount); 0 means 1.
	Amount int
	// Weekday names the weekday the leap days add (Fantasy-Calendar's adds_week_day): they have
	// that weekday of their own and, like intercalary days, do not advance the week.
	Weekday string
	// NotNumbered days are shown without a day number (their dates still count them).
	NotNumbered bool
}

// Limits of the leap rules, keeping the expanded congruences few and their
// moduli within int64. MaxLeapTerms bounds the work of every year a request
// touches: a year's rules cost one test per term, and a rule's terms double
// with each interval that divides none of the larger ones (12 coprime
// intervals make 4,095), so it counts the terms of all rules together.
const (
	MaxLeapDays      = 100 // rules per calendar
	MaxLeapIntervals = 12  // intervals per rule
	MaxLeapTerms     = 256 // terms of all rules together (Gregorian's rule has 3)
	// MaxLeapSteps bounds the inclusion-exclusion steps of all rules together:
	// intervals that divide one another merge into few terms after up to
	// 2^12 steps a rule.
	MaxLeapSteps = 8192
	MaxLeapCycle = 1_000_000_000_000_000_000
)

type interval struct {
	n        int64
	exclude  bool
	noOffset bool
}

var errIntervalSyntax = errors.New("calendar: bad interval")

// ParseInterval reads Fantasy-Calendar's interval syntax ("400,!100,4").
// Intervals are returned largest first, keeping the written order among
// equal ones.
func parseInterval(s string) ([]interval, error) {
	parts := strings.Split(s, ",")
	if len(parts) > MaxLeapIntervals {
		return nil, errIntervalSyntax
	}
	out := make([]interval, 0, len(parts))
	allows := false
	for _, p := range parts {
		p = strings.TrimSpace(p)
		var iv interval
		for len(p) > 0 && (p[0] == '!' || p[0] == '+') {
			if p[0] == '!' {
				iv.exclude = true
			} else {
				iv.noOffset = true
			}
			p = p[1:]
		}
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return nil, errIntervalSyntax
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 1 || n > MaxLeapOffset {
			return nil, errIntervalSyntax
		}
		iv.n = n
		allows = allows || !iv.exclude
		out = append(out, iv)
	}
	if !allows {
		return nil, errIntervalSyntax
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].n > out[j].n })
	return out, nil
}

// congruence is y ≡ r (mod m), 0 <= r < m.
type congruence struct{ m, r int64 }

// term is coef × [y ≡ r (mod m)]; a rule's indicator is the sum of its
// terms, which is always 0 or 1.
type term struct {
	congruence
	coef int64
}

var (
	errCycleTooLong = errors.New("calendar: leap cycle too long")
	errTooManyTerms = errors.New("calendar: leap rule has too many terms")
)

// expand turns the first-match rule into a sum of congruence indicators by
// inclusion-exclusion: leap(y) = Σ_i allow_i·[c_i]·Π_{j<i}(1-[c_j]), each
// product of indicators being one congruence (Chinese remainder theorem) or
// none. Equal congruences are merged and zero coefficients dropped, so
// Gregorian is three terms: [400] - [100] + [4]. Each step spends one of
// *steps; running out, or more than MaxLeapTerms terms, is errTooManyTerms.
func expand(ivs []interval, offset int64, steps *int) ([]term, error) {
	cs := make([]congruence, len(ivs))
	for i, iv := range ivs {
		o := int64(0)
		if !iv.noOffset {
			o = mod(offset, iv.n)
		}
		cs[i] = congruence{iv.n, o}
	}
	acc := map[congruence]int64{}
	var err error
	var walk func(j int, c congruence, sign int64)
	// walk adds ±[c ∧ c_S] for every subset S of the congruences below j,
	// choosing S's members in descending order so each subset comes once.
	walk = func(j int, c congruence, sign int64) {
		if err != nil {
			return
		}
		if *steps--; *steps < 0 {
			err = errTooManyTerms
			return
		}
		acc[c] += sign
		for k := j - 1; k >= 0; k-- {
			cc, ok, e := crt(c, cs[k])
			if e != nil {
				err = e
				return
			}
			if ok {
				walk(k, cc, -sign)
			}
		}
	}
	for i, iv := range ivs {
		if !iv.exclude {
			walk(i, cs[i], 1)
		}
	}
	if err != nil {
		return nil, err
	}
	return sortedTerms(acc)
}

func sortTerms(out []term) {
	sort.Slice(out, func(i, j int) bool {
		if out[i].m != out[j].m {
			return out[i].m > out[j].m
		}
		return out[i].r < out[j].r
	})
}

func mod(a, m int64) int64 {
	r := a % m
	if r < 0 {
		r += m
	}
	return r
}

// crt combines two congruences; ok is false when no year meets both.
func crt(a, b congruence) (congruence, bool, error) {
	g := gcd(a.m, b.m)
	if (b.r-a.r)%g != 0 {
		return congruence{}, false, nil
	}
	m1, m2 := a.m/g, b.m/g
	hi, lo := bits.Mul64(uint64(a.m/g), uint64(b.m))
	if hi != 0 || lo > MaxLeapCycle {
		return congruence{}, false, errCycleTooLong
	}
	m := int64(lo)
	if m2 == 1 {
		return congruence{m, a.r}, true, nil
	}
	// y = a.r + a.m·t with a.m·t ≡ b.r-a.r (mod b.m), so t ≡ d·inv(m1) (mod m2).
	d := mod((b.r-a.r)/g, m2)
	t := mulmod(uint64(d), uint64(modInverse(mod(m1, m2), m2)), uint64(m2))
	r := mod(a.r+int64(mulmod(uint64(a.m), t, uint64(m))), m) // a.m·t < m
	return congruence{m, r}, true, nil
}

func mulmod(a, b, m uint64) uint64 {
	hi, lo := bits.Mul64(a%m, b%m)
	_, r := bits.Div64(hi, lo, m)
	return r
}

// modInverse of a modulo m, gcd(a, m) = 1, m > 1.
func modInverse(a, m int64) int64 {
	// Extended Euclid on (a, m); coefficients stay below m.
	r0, r1 := a, m
	s0, s1 := int64(1), int64(0)
	for r1 != 0 {
		q := r0 / r1
		r0, r1 = r1, r0-q*r1
		s0, s1 = s1, s0-q*s1
	}
	return mod(s0, m)
}

// leapCalc is a validated rule with its counting terms.
type leapCalc struct {
	LeapDay
	index  int // position in the definition
	after  int // resolved Day
	amount int64
	std    int64 // amount, or 0 when the days are outside the calendar-wide week
	week   bool  // the days have a weekday of the week (the calendar's or their month's)
	// monthRule: the rule is a month's appearance (structure.go), not leap days.
	monthRule bool
	terms     []term
	hasFrom   bool
	from      int64
	fromAt    i128 // countBelow(from)
	before0   i128 // leapsBefore(0)
	monthIdx  int  // 0-based month
}

// isLeap reports whether raw year y takes the rule.
func (l *leapCalc) isLeap(y int64) bool {
	if l.hasFrom && y < l.from {
		return false
	}
	var s int64
	for _, t := range l.terms {
		if mod(y, t.m) == t.r {
			s += t.coef
		}
	}
	return s != 0
}

// countBelow is Σ coef·#{x < y : x ≡ r (mod m)} relative to an origin:
// floor((y-1-r)/m) per term. Differences of it count the rule's years.
func (l *leapCalc) countBelow(y i128) i128 {
	var s i128
	for _, t := range l.terms {
		q, _ := y.add64(-1 - t.r).divFloor(t.m)
		s = s.add(q.mul64(t.coef))
	}
	return s
}

// leapsBefore counts the rule's raw years below y (from year 0, negative
// for y < 0 when there is no FromYear).
func (l *leapCalc) leapsBefore(y int64) i128 {
	if l.hasFrom {
		if y <= l.from {
			return i128{}
		}
		return l.countBelow(i64(y)).sub(l.fromAt)
	}
	return l.countBelow(i64(y))
}
