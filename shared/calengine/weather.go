package calengine

import "strconv"

// Procedural weather (issue 21, after Fantasy-Calendar's seeded weather): a climate gives each
// season a temperature range and a chance and intensity of precipitation, and a seed makes the
// weather of a day a pure function of (climate, seed, day number): every reader sees the same.
// All arithmetic is integer (tenths of a degree, per-mille), so no platform's floating point
// (or fused multiply-add) can change a day's weather.

// ClimateSeason is one season's weather: temperatures in tenths of a degree, the chance of
// precipitation and its intensity in per-mille.
type ClimateSeason struct {
	TempLow, TempHigh      int
	Precipitation          int // 0-1000: the chance a day has precipitation
	PrecipitationIntensity int // 0-1000: how heavy it is at most
}

// Climate is the weather settings of a calendar: one ClimateSeason per season of the
// calendar (in its order), and the seed.
type Climate struct {
	Seed    int64
	Seasons []ClimateSeason
}

// Bounds of a climate's values.
const (
	MaxClimateTemp    = 10_000 // tenths of a degree, either sign
	MaxClimatePerMill = 1000
)

// Weather is a day's weather: the temperature (tenths of a degree), whether there is
// precipitation, its intensity (per-mille) and a word for it.
type Weather struct {
	Temp          int
	Precipitation bool
	Intensity     int
	Kind          string // clear, cloudy, rain, heavy rain, snow, heavy snow
}

// ClimateProblems checks a climate against a calendar of nSeasons seasons, naming the seasons'
// fields under prefix ("weather_climate.0.temp_low").
func ClimateProblems(k Climate, nSeasons int, prefix string) []Problem {
	var probs []Problem
	if len(k.Seasons) != nSeasons {
		probs = append(probs, Problem{prefix, "The climate must have one entry per season (" + strconv.Itoa(nSeasons) + ")."})
	}
	for i, s := range k.Seasons {
		f := prefix + "." + strconv.Itoa(i)
		switch {
		case s.TempLow < -MaxClimateTemp || s.TempHigh > MaxClimateTemp:
			probs = append(probs, Problem{f + ".temp_low", "The temperatures must be between -" + strconv.Itoa(MaxClimateTemp) + " and " + strconv.Itoa(MaxClimateTemp) + " tenths of a degree."})
		case s.TempLow > s.TempHigh:
			probs = append(probs, Problem{f + ".temp_high", "The high temperature must be at least the low."})
		}
		if s.Precipitation < 0 || s.Precipitation > MaxClimatePerMill {
			probs = append(probs, Problem{f + ".precipitation", "The precipitation chance must be between 0 and 1000 per mille."})
		}
		if s.PrecipitationIntensity < 0 || s.PrecipitationIntensity > MaxClimatePerMill {
			probs = append(probs, Problem{f + ".precipitation_intensity", "The precipitation intensity must be between 0 and 1000 per mille."})
		}
	}
	return probs
}

// mix is splitmix64's finaliser: a well-spread 64-bit hash of x.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// noise is a per-mille value in [0, 1000) for (seed, day, stream).
func noise(seed int64, day int64, stream uint64) int64 {
	h := mix(uint64(seed) ^ mix(uint64(day)+0x9e3779b97f4a7c15*stream))
	return int64(h % 1000)
}

// WeatherOn is the weather of day number n, whose season is the climate's season index si
// (the calendar's Season order). The temperature is the season's range at a point that
// drifts smoothly from day to day: the mean of the day's and its two neighbours' noise,
// weighted 1-2-1, so that a day is rarely far from the day before.
func (k Climate) WeatherOn(n int64, si int) Weather {
	if si < 0 || si >= len(k.Seasons) {
		return Weather{Kind: "clear"}
	}
	s := k.Seasons[si]
	p := (noise(k.Seed, n-1, 1) + 2*noise(k.Seed, n, 1) + noise(k.Seed, n+1, 1)) / 4 // 0..999
	w := Weather{Temp: s.TempLow + int(int64(s.TempHigh-s.TempLow)*p/999)}
	if noise(k.Seed, n, 2) < int64(s.Precipitation) {
		w.Precipitation = true
		w.Intensity = int(int64(s.PrecipitationIntensity) * (1 + noise(k.Seed, n, 3)) / 1000)
	}
	heavy := w.Intensity > 600
	switch {
	case !w.Precipitation && noise(k.Seed, n, 4) < int64(s.Precipitation)/2:
		w.Kind = "cloudy"
	case !w.Precipitation:
		w.Kind = "clear"
	case w.Temp <= 0 && heavy:
		w.Kind = "heavy snow"
	case w.Temp <= 0:
		w.Kind = "snow"
	case heavy:
		w.Kind = "heavy rain"
	default:
		w.Kind = "rain"
	}
	return w
}

// WeatherOf is WeatherOn for day number n, date d, of c: its season found by the calendar,
// dated or periodic (clear when the calendar has no seasons).
func (c *Calendar) WeatherOf(k Climate, n int64, d Date) Weather {
	sd, ok := c.SeasonOn(n, d)
	if !ok {
		return Weather{Kind: "clear"}
	}
	return k.WeatherOn(n, sd.Index)
}
