package calengine

import (
	"math"
	"testing"
)

var testClimate = Climate{Seed: 826116802, Seasons: []ClimateSeason{
	{TempLow: -150, TempHigh: 40, Precipitation: 400, PrecipitationIntensity: 900},
	{TempLow: 120, TempHigh: 310, Precipitation: 200, PrecipitationIntensity: 500},
}}

// TestWeatherIsAPureFunctionWithinTheClimate: a day's weather depends on the seed and the day
// alone, stays within its season's range, precipitates about as often as the chance says, and
// snows only at or below zero.
func TestWeatherIsAPureFunctionWithinTheClimate(t *testing.T) {
	t.Parallel()
	for si, s := range testClimate.Seasons {
		wet := 0
		const days = 20000
		for n := int64(-days / 2); n < days/2; n++ {
			w := testClimate.WeatherOn(n, si)
			if w != testClimate.WeatherOn(n, si) {
				t.Fatalf("day %d: two answers", n)
			}
			if w.Temp < s.TempLow || w.Temp > s.TempHigh {
				t.Fatalf("day %d: %d outside [%d, %d]", n, w.Temp, s.TempLow, s.TempHigh)
			}
			if w.Precipitation {
				wet++
				if w.Intensity < 0 || w.Intensity > s.PrecipitationIntensity {
					t.Fatalf("day %d: intensity %d", n, w.Intensity)
				}
			}
			if (w.Kind == "snow" || w.Kind == "heavy snow") && w.Temp > 0 {
				t.Fatalf("day %d: %s at %d", n, w.Kind, w.Temp)
			}
		}
		if got := float64(wet) / days * 1000; math.Abs(got-float64(s.Precipitation)) > 30 {
			t.Errorf("season %d: %.0f per mille wet days, chance %d", si, got, s.Precipitation)
		}
	}
	// Another seed gives other weather (not the same days wet).
	other := testClimate
	other.Seed++
	same := 0
	for n := range int64(1000) {
		if other.WeatherOn(n, 0) == testClimate.WeatherOn(n, 0) {
			same++
		}
	}
	if same > 500 {
		t.Errorf("%d of 1000 days alike under another seed", same)
	}
}

// TestWeatherPinned pins a few days: the weather must not change between releases or
// platforms (integer arithmetic only).
func TestWeatherPinned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int64
		si   int
		want Weather
	}{
		{0, 0, Weather{Temp: -36, Kind: "clear"}},
		{0, 1, Weather{Temp: 234, Kind: "clear"}},
		{1, 0, Weather{Temp: -54, Kind: "clear"}},
		{-7, 0, Weather{Temp: -103, Kind: "cloudy"}},
		{-7, 1, Weather{Temp: 167, Kind: "cloudy"}},
		{123456789, 1, Weather{Temp: 223, Kind: "clear"}},
	} {
		if got := testClimate.WeatherOn(c.n, c.si); got != c.want {
			t.Errorf("day %d: %+v, want %+v", c.n, got, c.want)
		}
	}
}

// TestWeatherOfFollowsTheSeason: the calendar picks the season of the day.
func TestWeatherOfFollowsTheSeason(t *testing.T) {
	t.Parallel()
	c := mustNew(t, Definition{
		Months:   []Month{{Name: "A", Length: 10, Type: Standard}, {Name: "B", Length: 10, Type: Standard}},
		Weekdays: []string{"x", "y"},
		Seasons:  []Season{{Name: "Cold", Month: 1, Day: 1}, {Name: "Warm", Month: 2, Day: 1}},
	})
	for n := int64(-40); n < 40; n++ {
		si := 0
		if c.DateOf(n).Month == 2 {
			si = 1
		}
		if got, want := c.WeatherOf(testClimate, n, c.DateOf(n)), testClimate.WeatherOn(n, si); got != want {
			t.Fatalf("day %d: %+v, want %+v", n, got, want)
		}
	}
}

func TestClimateProblems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		k     Climate
		n     int
		field string
	}{
		{"one per season", testClimate, 3, "climate"},
		{"low above high", Climate{Seasons: []ClimateSeason{{TempLow: 10, TempHigh: 0}}}, 1, "climate.0.temp_high"},
		{"too cold", Climate{Seasons: []ClimateSeason{{TempLow: -10001, TempHigh: 0}}}, 1, "climate.0.temp_low"},
		{"chance", Climate{Seasons: []ClimateSeason{{Precipitation: 1001}}}, 1, "climate.0.precipitation"},
		{"intensity", Climate{Seasons: []ClimateSeason{{PrecipitationIntensity: -1}}}, 1, "climate.0.precipitation_intensity"},
	}
	for _, c := range cases {
		probs := ClimateProblems(c.k, c.n, "climate")
		if len(probs) != 1 || probs[0].Field != c.field {
			t.Errorf("%s: %v, want one on %s", c.name, probs, c.field)
		}
	}
	if probs := ClimateProblems(testClimate, 2, "climate"); len(probs) != 0 {
		t.Errorf("valid climate: %v", probs)
	}
}
