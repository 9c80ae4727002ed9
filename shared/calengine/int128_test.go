package calengine

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func (a i128) big() *big.Int {
	v := new(big.Int).Lsh(big.NewInt(a.hi), 64)
	return v.Add(v, new(big.Int).SetUint64(a.lo))
}

// TestInt128AgainstBig checks the 128-bit helpers against math/big on
// products of int64 values, the shapes the calendar produces.
func TestInt128AgainstBig(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	edge := []int64{0, 1, -1, 7, -7, math.MaxInt64, math.MinInt64 + 1, math.MinInt64, 1 << 40, -(1 << 40)}
	pick := func() int64 {
		if r.IntN(3) == 0 {
			return edge[r.IntN(len(edge))]
		}
		return r.Int64() >> r.IntN(63)
	}
	for range 20000 {
		x, y, z := pick(), pick(), pick()
		if y == math.MinInt64 {
			y++ // |x·y| must stay below 2^127
		}
		a := i64(x).mul64(y).add64(z)
		want := new(big.Int).Mul(big.NewInt(x), big.NewInt(y))
		want.Add(want, big.NewInt(z))
		if a.big().Cmp(want) != 0 {
			t.Fatalf("%d*%d+%d = %v; want %v", x, y, z, a.big(), want)
		}
		d := pick()
		if d < 0 {
			d = ^d // -d-1, no overflow
		}
		if d == 0 {
			d = 1
		}
		q, m := a.divFloor(d)
		wq, wm := new(big.Int).DivMod(want, big.NewInt(d), new(big.Int)) // Euclidean = floor for d > 0
		if q.big().Cmp(wq) != 0 || big.NewInt(m).Cmp(wm) != 0 {
			t.Fatalf("(%v) divFloor %d = %v, %d; want %v, %v", want, d, q.big(), m, wq, wm)
		}
		if c := a.ceilDiv(d).big(); c.Cmp(new(big.Int).Neg(new(big.Int).Div(new(big.Int).Neg(want), big.NewInt(d)))) != 0 {
			t.Fatalf("(%v) ceilDiv %d = %v", want, d, c)
		}
		if v, ok := a.int64(); ok != want.IsInt64() || (ok && v != want.Int64()) {
			t.Fatalf("int64(%v) = %d, %v", want, v, ok)
		}
		if s := a.sub(i64(z)); s.cmp(i64(x).mul64(y)) != 0 {
			t.Fatalf("sub mismatch for %d*%d", x, y)
		}
	}
}
