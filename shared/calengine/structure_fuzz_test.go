package calengine

import (
	"reflect"
	"testing"
)

// FuzzMoonDisplay: a moon's displayed phases over a range are the same read whole or in two
// chunks (the day view reads 32 days at a time), each entry's index is below the phase count
// and names its phase.
func FuzzMoonDisplay(f *testing.F) {
	f.Add(uint8(0), "29.5", "-3.25", int64(0), uint16(100), uint16(30), "")
	f.Add(uint8(5), "0.0000000001", "", int64(-1_000_000_000_000), uint16(40), uint16(7), "")
	f.Add(uint8(1), "7", "1000000000", int64(9_000_000_000_000_000), uint16(300), uint16(299), "0,0,3,1")
	f.Add(uint8(3), "100000000", "-999999999.9999999999", int64(-9_000_000_000_000_000), uint16(65535), uint16(1), "5,23,0")
	f.Fuzz(func(t *testing.T, gi uint8, period, offset string, from int64, span, cut uint16, cycle string) {
		g := Granularities[int(gi)%len(Granularities)]
		m := Moon{ID: 1, Name: "M", Fullmoon: period, Offset: offset, Granularity: g}
		if cycle != "" {
			for _, p := range splitInts(cycle) {
				m.CustomCycle = append(m.CustomCycle, ((p%g)+g)%g)
			}
		}
		c, err := New(Definition{Months: []Month{{Name: "A", Length: 3}, {Name: "B", Length: 3}}, Weekdays: []string{"x", "y"}, Moons: []Moon{m}})
		if err != nil {
			return // a period or offset the engine refuses
		}
		n := int64(span%500) + 1
		if from > maxDay-n {
			from = maxDay - n
		}
		to := from + n - 1
		k := from + int64(cut)%n
		whole := c.MoonPhases(from, to)
		parts := append(c.MoonPhases(from, k), c.MoonPhases(k+1, to)...)
		if len(whole) != len(parts) || (len(whole) > 0 && !reflect.DeepEqual(whole, parts)) {
			t.Fatalf("whole %d entries, in two chunks %d", len(whole), len(parts))
		}
		for _, e := range whole {
			if e.PhaseCount != g || e.PhaseIndex < 0 || e.PhaseIndex >= g || e.Phase != PhaseName(g, e.PhaseIndex) || e.Day < from || e.Day > to {
				t.Fatalf("entry %+v (g %d, days %d..%d)", e, g, from, to)
			}
		}
	})
}

func splitInts(s string) []int {
	var out []int
	n, neg, seen := 0, false, false
	for i := 0; i <= len(s) && len(out) < MaxCustomCycle; i++ {
		if i == len(s) || s[i] == ',' {
			if seen {
				if neg {
					n = -n
				}
				out = append(out, n)
			}
			n, neg, seen = 0, false, false
			continue
		}
		switch ch := s[i]; {
		case ch == '-':
			neg = true
		case ch >= '0' && ch <= '9' && n < 1<<20:
			n, seen = n*10+int(ch-'0'), true
		}
	}
	return out
}

// FuzzPeriodicSeasons: over consecutive days a season's progress grows within it, in [0, 1),
// and sunrise and sunset stay times of the clock.
func FuzzPeriodicSeasons(f *testing.F) {
	f.Add("100.5", "20.25", "0", "182.62125", int64(-12), int64(0))
	f.Add("0.0000000001", "0", "1000000", "0.5", int64(9_000_000_000_000_000), int64(-9_000_000_000_000_000))
	f.Add("1", "1", "1", "1", int64(0), int64(9_223_372_036_854_775_000))
	f.Fuzz(func(t *testing.T, d1, t1, d2, t2 string, offset, from int64) {
		def := Definition{
			Months: []Month{{Name: "A", Length: 3}, {Name: "B", Length: 3}}, Weekdays: []string{"x", "y"},
			PeriodicSeasons: true, SeasonOffset: offset,
			Seasons: []Season{
				{Name: "S0", Duration: d1, Transition: t1, Sunrise: &Time{5, 0}, Sunset: &Time{20, 59}},
				{Name: "S1", Duration: d2, Transition: t2, Sunrise: &Time{9, 30}, Sunset: &Time{16, 0}},
			},
		}
		c, err := New(def)
		if err != nil {
			return
		}
		from = min(from, maxDay-200)
		// With one season of any length, each cycle starts it over.
		a1, _ := seasonUnits(d1)
		b1, _ := seasonUnits(t1)
		a2, _ := seasonUnits(d2)
		b2, _ := seasonUnits(t2)
		alone := a1+b1 == 0 || a2+b2 == 0
		prev := -1
		last := -1.0
		for n := from; n < from+200; n++ {
			s, ok := c.SeasonOn(n, c.DateOf(n))
			if !ok || s.Progress < 0 || s.Progress >= 1 {
				t.Fatalf("day %d: %+v", n, s)
			}
			if s.Index == prev && s.Progress < last && !alone {
				t.Fatalf("day %d: progress went back in %s (%v after %v)", n, s.Season.Name, s.Progress, last)
			}
			for _, tm := range []*Time{s.Sunrise, s.Sunset} {
				if tm == nil || tm.Hour < 0 || tm.Hour > 23 || tm.Minute < 0 || tm.Minute > 59 {
					t.Fatalf("day %d: time %v", n, tm)
				}
			}
			prev, last = s.Index, s.Progress
		}
	})
}
