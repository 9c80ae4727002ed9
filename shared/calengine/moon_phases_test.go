package calengine

import (
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"
)

// refDisplay lists, per day in [from, to], the displayed phase events beginning on it for a
// moon of g phases: event j begins on floor(offset + j·P/g), computed with big.Rat.
func refDisplay(t *testing.T, m Moon, g int64, from, to int64) []MoonDay {
	p, _ := new(big.Rat).SetString(m.Fullmoon)
	off := new(big.Rat)
	if m.Offset != "" {
		off.SetString(m.Offset)
	}
	step := new(big.Rat).Quo(p, big.NewRat(g, 1))
	floor := func(x *big.Rat) int64 { return new(big.Int).Div(x.Num(), x.Denom()).Int64() }
	jLo := floor(new(big.Rat).Quo(new(big.Rat).Sub(big.NewRat(from, 1), off), step)) - 2
	jHi := floor(new(big.Rat).Quo(new(big.Rat).Sub(big.NewRat(to+1, 1), off), step)) + 2
	byDay := map[int64][]int64{}
	for j := jLo; j <= jHi; j++ {
		x := new(big.Rat).Add(new(big.Rat).Mul(big.NewRat(j, 1), step), off)
		if day := floor(x); day >= from && day <= to {
			byDay[day] = append(byDay[day], j)
		}
	}
	var out []MoonDay
	for day := from; day <= to; day++ {
		js := byDay[day]
		if len(js) == 0 {
			continue
		}
		var names []string
		for _, j := range js[:min(int64(len(js)), g)] {
			names = append(names, PhaseName(int(g), int(((j%g)+g)%g)))
		}
		out = append(out, MoonDay{Day: day, MoonID: m.ID, Name: m.Name, Phase: names[0], Phases: names, PhaseIndex: int(((js[0] % g) + g) % g), PhaseCount: int(g)})
	}
	return out
}

func TestMoonGranularityMatchesReference(t *testing.T) {
	t.Parallel()
	periods := []string{"29.5", "2.5", "0.3", "40", "3.3333333333", "100000000"}
	offsets := []string{"", "-14.71875", "7", "-999999999.9999999999"}
	for _, g := range Granularities {
		for _, p := range periods {
			for _, o := range offsets {
				m := Moon{ID: 1, Name: "M", Fullmoon: p, Offset: o, Granularity: g}
				c := mustNew(t, Definition{Months: []Month{{Name: "A", Length: 30}, {Name: "B", Length: 30}}, Weekdays: []string{"x", "y"}, Moons: []Moon{m}})
				for _, from := range []int64{-1000, 0, 123456789} {
					got := c.MoonPhases(from, from+90)
					if want := refDisplay(t, c.Definition().Moons[0], int64(g), from, from+90); !reflect.DeepEqual(got, want) {
						t.Fatalf("g %d period %s offset %s from %d:\n%v\nwant\n%v", g, p, o, from, got, want)
					}
				}
			}
		}
	}
}

func TestMoonCustomCycle(t *testing.T) {
	t.Parallel()
	m := Moon{ID: 2, Name: "Odd", Fullmoon: "3", Granularity: 4, CustomCycle: []int{0, 0, 2, 3, 1}}
	c := mustNew(t, Definition{Months: []Month{{Name: "A", Length: 30}, {Name: "B", Length: 30}}, Weekdays: []string{"x", "y"}, Moons: []Moon{m}})
	// Day n shows cycle[|n mod 5|]: days -3..6 show 3,2,0,0,0,2,3,1,0,0 (Fantasy-Calendar
	// mirrors the cycle below day 0).
	got := c.MoonPhases(-3, 6)
	want := []struct {
		day int64
		p   int
	}{{-3, 3}, {-2, 2}, {-1, 0}, {2, 2}, {3, 3}, {4, 1}, {5, 0}}
	if len(got) != len(want) {
		t.Fatalf("MoonPhases = %+v", got)
	}
	for i, w := range want {
		if got[i].Day != w.day || got[i].PhaseIndex != w.p || got[i].Phase != PhaseName(4, w.p) || got[i].PhaseCount != 4 {
			t.Errorf("entry %d = %+v; want day %d phase %d", i, got[i], w.day, w.p)
		}
	}
	// Recurrences still count the period's eighths.
	if days := c.moons[0].g; days != 8 {
		t.Errorf("recurrence phases %d", days)
	}
}

func TestMoonDisplayValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		m     Moon
		field string
	}{
		{Moon{Fullmoon: "29.5", Granularity: 5}, "moon_granularity.0"},
		{Moon{Fullmoon: "29.5", Granularity: 4, CustomCycle: []int{0, 4}}, "moon_custom_cycle.0"},
		{Moon{Fullmoon: "29.5", CustomCycle: []int{-1}}, "moon_custom_cycle.0"},
		{Moon{Fullmoon: "29.5", CustomCycle: make([]int, MaxCustomCycle+1)}, "moon_custom_cycle.0"},
	} {
		_, err := New(Definition{Months: []Month{{Name: "A", Length: 3}, {Name: "B", Length: 3}}, Weekdays: []string{"x", "y"}, Moons: []Moon{tc.m}})
		ve, ok := err.(*ValidationError)
		if !ok || len(ve.Problems) != 1 || ve.Problems[0].Field != tc.field {
			t.Errorf("%+v: %v; want a problem on %s", tc.m, err, tc.field)
		}
	}
	if PhaseName(4, 1) != "last_quarter" || PhaseName(16, 1) != "full" || PhaseName(40, 39) != "waxing_gibbous" {
		t.Errorf("phase names")
	}
}

// fcPhase is the phase Fantasy-Calendar shows on day (epoch) e for a moon of cycle p, shift s
// and granularity g under rounding: R((e - s)/p - floor((e - s)/p)) · g) mod g, 0 the new moon,
// computed exactly (exact reports whether float64 arithmetic, as Fantasy-Calendar's
// JavaScript does it, gives the same).
func fcPhase(e int64, p, s *big.Rat, g int64, rounding string) (phase int64, exact bool) {
	x := new(big.Rat).Quo(new(big.Rat).Sub(big.NewRat(e, 1), s), p)
	x.Sub(x, new(big.Rat).SetInt(new(big.Int).Div(x.Num(), x.Denom())))
	x.Mul(x, big.NewRat(g, 1))
	floor := func(r *big.Rat) int64 { return new(big.Int).Div(r.Num(), r.Denom()).Int64() }
	pf, _ := p.Float64()
	sf, _ := s.Float64()
	pos := (float64(e) - sf) / pf
	xf := (pos - math.Floor(pos)) * float64(g)
	var f float64
	switch rounding {
	case "floor":
		phase, f = floor(x), math.Floor(xf)
	case "ceil":
		phase, f = -floor(new(big.Rat).Neg(x)), math.Ceil(xf)
	default: // Math.round: halves up
		phase, f = floor(new(big.Rat).Add(x, big.NewRat(1, 2))), math.Floor(xf+0.5)
	}
	return phase % g, int64(f)%g == phase%g
}

// TestMoonRoundingMatchesFantasyCalendar: for moons of every granularity and rounding, over
// windows from a billion days back to a trillion ahead, the phase each day shows (the last
// phase begun on or before it) is Fantasy-Calendar's, computed exactly; float64 (what
// Fantasy-Calendar's browser computes) differs only on exact ties, counted and bounded.
func TestMoonRoundingMatchesFantasyCalendar(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(21, 6))
	days, floatDiffs := 0, 0
	for i := 0; i < 400; i++ {
		g := int64(Granularities[rnd.IntN(len(Granularities))])
		rounding := []string{"round", "floor", "ceil"}[rnd.IntN(3)]
		// Cycles of at least a day per phase, so that each day shows one phase change at most g apart.
		pn := g*1000 + rnd.Int64N(100_000_000)
		p := big.NewRat(pn, 1000)
		sn := rnd.Int64N(2_000_000) - 1_000_000
		s := big.NewRat(sn, 1000)
		period, _ := decimalText(p)
		off, _ := decimalText(new(big.Rat).Sub(s, new(big.Rat).Quo(p, big.NewRat(2, 1))))
		gran := int(g)
		if g == 8 {
			gran = 0
		}
		m := Moon{ID: 1, Name: "M", Fullmoon: period, Offset: off, Granularity: gran, Rounding: rounding}
		c := mustNew(t, Definition{Months: []Month{{Name: "A", Length: 30}, {Name: "B", Length: 30}}, Weekdays: []string{"x", "y"}, Moons: []Moon{m}})
		from := []int64{-1_000_000_000, -5000, 0, 1_000_000, 1_000_000_000_000}[i%5] + rnd.Int64N(10_000)
		const width = 200
		// Phases begun from a cycle before the window, so its first day has one.
		back := pn/1000 + 2
		listed := c.MoonPhases(from-back, from+width)
		shown := int64(-1)
		for e := from - back; e <= from+width; e++ {
			for len(listed) > 0 && listed[0].Day == e {
				md := listed[0]
				shown = (int64(md.PhaseIndex) + int64(len(md.Phases)) - 1 + g/2) % g // Lorekeep counts from the full moon
				listed = listed[1:]
			}
			if e < from {
				continue
			}
			want, exact := fcPhase(e, p, s, g, rounding)
			if shown != want {
				t.Fatalf("moon %s/%s g %d %s day %d: shows phase %d, Fantasy-Calendar %d", period, off, g, rounding, e, shown, want)
			}
			days++
			if !exact {
				floatDiffs++
			}
		}
	}
	t.Logf("%d days, %d where float64 differs from the exact phase", days, floatDiffs)
	if floatDiffs*1000 > days {
		t.Fatalf("float64 differs on %d of %d days: more than ties", floatDiffs, days)
	}
}
