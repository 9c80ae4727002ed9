package calengine

import (
	"math/big"
	"testing"
)

func TestPeriodicSeasonsMatchReference(t *testing.T) {
	t.Parallel()
	def := Definition{
		Months: []Month{{Name: "A", Length: 30}, {Name: "B", Length: 30}}, Weekdays: []string{"x", "y"},
		PeriodicSeasons: true, SeasonOffset: -12,
		Seasons: []Season{
			{Name: "Winter", Duration: "100.5", Transition: "20.25", Sunrise: &Time{9, 0}, Sunset: &Time{17, 0}},
			{Name: "Summer", Duration: "0", Transition: "182.62125", Sunrise: &Time{6, 0}, Sunset: &Time{21, 30}},
		},
	}
	c := mustNew(t, def)
	total := new(big.Rat).SetFrac64(30337125, 100000) // 100.5 + 20.25 + 182.62125 = 303.37125
	for _, n := range []int64{-1_000_000_007, -13, -12, -11, 0, 88, 89, 108, 120, 303, 1_000_000_000_000} {
		// Reference: the day's position in the cycle, exactly.
		x := new(big.Rat).Sub(big.NewRat(n, 1), big.NewRat(-12, 1))
		q := new(big.Int).Div(new(big.Int).Mul(x.Num(), total.Denom()), new(big.Int).Mul(x.Denom(), total.Num()))
		x.Sub(x, new(big.Rat).Mul(new(big.Rat).SetInt(q), total))
		want, start, span := "Winter", big.NewRat(0, 1), big.NewRat(12075, 100)
		if x.Cmp(big.NewRat(12075, 100)) >= 0 {
			want, start, span = "Summer", big.NewRat(12075, 100), big.NewRat(18262125, 100000)
		}
		got, ok := c.SeasonOn(n, c.DateOf(n))
		if !ok || got.Season.Name != want {
			t.Fatalf("day %d: %+v; want %s", n, got, want)
		}
		p, _ := new(big.Rat).Quo(new(big.Rat).Sub(x, start), span).Float64()
		if d := got.Progress - p; d > 1e-9 || d < -1e-9 {
			t.Errorf("day %d: progress %v; want %v", n, got.Progress, p)
		}
	}
	// Day -12 starts Winter; 100 days on it still has Winter's times; 110.625 days on is half
	// way through the transition to Summer.
	if s, _ := c.SeasonOn(-12, c.DateOf(-12)); s.Progress != 0 || *s.Sunrise != (Time{9, 0}) {
		t.Errorf("first day %+v", s)
	}
	if s, _ := c.SeasonOn(88, c.DateOf(88)); *s.Sunrise != (Time{9, 0}) || *s.Sunset != (Time{17, 0}) {
		t.Errorf("day 88 %+v %+v", *s.Sunrise, *s.Sunset)
	}
	s, _ := c.SeasonOn(99, c.DateOf(99)) // 111 days in: (111-100.5)/20.25 of the way
	if *s.Sunrise != (Time{7, 27}) || *s.Sunset != (Time{19, 20}) {
		t.Errorf("day 99 %v %v", *s.Sunrise, *s.Sunset)
	}
}

func TestDatedSeasonProgress(t *testing.T) {
	t.Parallel()
	c := mustNew(t, Definition{
		Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}}, Weekdays: []string{"x", "y"},
		Seasons: []Season{{Name: "Cold", Month: 2, Day: 6, Sunrise: &Time{8, 0}}, {Name: "Warm", Month: 1, Day: 6}},
	})
	for _, tc := range []struct {
		d    Date
		name string
		p    float64
	}{{Date{3, 1, 6}, "Warm", 0}, {Date{3, 2, 1}, "Warm", 0.5}, {Date{3, 2, 6}, "Cold", 0}, {Date{4, 1, 1}, "Cold", 0.5}} {
		n, _ := c.DayNumber(tc.d)
		s, ok := c.SeasonOn(n, tc.d)
		if !ok || s.Season.Name != tc.name || s.Progress != tc.p {
			t.Errorf("%v: %+v; want %s %v", tc.d, s, tc.name, tc.p)
		}
	}
}

func TestSeasonValidation(t *testing.T) {
	t.Parallel()
	base := Definition{Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}}, Weekdays: []string{"x", "y"}, PeriodicSeasons: true}
	for _, tc := range []struct {
		s     []Season
		field string
	}{
		{[]Season{{Name: "S", Duration: "-1"}}, "season_duration.0"},
		{[]Season{{Name: "S", Duration: "1000001"}}, "season_duration.0"},
		{[]Season{{Name: "S", Transition: "1.12345678901"}}, "season_transition.0"},
		{[]Season{{Name: "S"}, {Name: "T", Duration: "0"}}, "season_duration"},
		{[]Season{{Name: "S", Duration: "3", Sunrise: &Time{24, 0}}}, "season_sunrise.0"},
		{[]Season{{Name: "S", Duration: "3", Sunset: &Time{1, 60}}}, "season_sunset.0"},
	} {
		def := base
		def.Seasons = tc.s
		_, err := New(def)
		ve, ok := err.(*ValidationError)
		if !ok || ve.Problems[0].Field != tc.field {
			t.Errorf("%+v: %v; want a problem on %s", tc.s, err, tc.field)
		}
	}
}
