package calengine

import "math/bits"

// i128 is a two's-complement 128-bit integer. A year number times a year
// length, or a moon-phase index times a period numerator, does not fit in
// int64, but every intermediate value this package needs fits in 128 bits
// given the bounds New enforces; results are narrowed back to int64 with a
// check.
type i128 struct {
	hi int64
	lo uint64
}

func i64(x int64) i128 { return i128{hi: x >> 63, lo: uint64(x)} }

func u64(x uint64) i128 { return i128{lo: x} }

func (a i128) add(b i128) i128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	return i128{hi: a.hi + b.hi + int64(c), lo: lo}
}

func (a i128) add64(x int64) i128 { return a.add(i64(x)) }

func (a i128) neg() i128 {
	lo := ^a.lo + 1
	hi := ^a.hi
	if lo == 0 {
		hi++
	}
	return i128{hi: hi, lo: lo}
}

func (a i128) sub(b i128) i128 { return a.add(b.neg()) }

func (a i128) cmp(b i128) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

func (a i128) less(b i128) bool { return a.cmp(b) < 0 }

// mul64 panics on overflow: the bounds checked by New make overflow a bug,
// and a wrong date would be worse than a crash the fuzz test can find.
func (a i128) mul64(x int64) i128 {
	neg := (a.hi < 0) != (x < 0)
	ua := a
	if a.hi < 0 {
		ua = a.neg()
	}
	ux := uint64(x)
	if x < 0 {
		ux = -ux
	}
	h1, l1 := bits.Mul64(ua.lo, ux)
	h2, l2 := bits.Mul64(uint64(ua.hi), ux)
	hi, c := bits.Add64(h1, l2, 0)
	if h2 != 0 || c != 0 || hi >= 1<<63 {
		panic("calendar: 128-bit overflow")
	}
	r := i128{hi: int64(hi), lo: l1}
	if neg {
		r = r.neg()
	}
	return r
}

// divFloor divides by d > 0 rounding towards minus infinity, so the
// remainder is always in [0, d): negative years and days need floor
// semantics, not Go's truncation.
func (a i128) divFloor(d int64) (i128, int64) {
	neg := a.hi < 0
	u := a
	if neg {
		u = a.neg()
	}
	ud := uint64(d)
	qh := uint64(u.hi) / ud
	r := uint64(u.hi) % ud
	ql, r := bits.Div64(r, u.lo, ud)
	q := i128{hi: int64(qh), lo: ql}
	if neg {
		q = q.neg()
		if r != 0 {
			q = q.add64(-1)
			r = ud - r
		}
	}
	return q, int64(r)
}

func (a i128) ceilDiv(d int64) i128 {
	q, r := a.divFloor(d)
	if r != 0 {
		q = q.add64(1)
	}
	return q
}

func (a i128) int64() (int64, bool) {
	if (a.hi == 0 && a.lo < 1<<63) || (a.hi == -1 && a.lo >= 1<<63) {
		return int64(a.lo), true
	}
	return 0, false
}

// clamp narrows to int64, saturating.
func (a i128) clamp() int64 {
	if v, ok := a.int64(); ok {
		return v
	}
	if a.hi < 0 {
		return minDay
	}
	return maxDay
}
