package timeline

import (
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// A calendar's procedural weather (issue 21, after Fantasy-Calendar's): `weather_climate`, one
// object per season of the calendar ({temp_low, temp_high} in tenths of a degree,
// {precipitation, precipitation_intensity} in per-mille), and `weather_seed`. The day view
// answers each day's weather from them (calengine.Climate): a pure function of the climate,
// the seed and the day.

// applyClimate reads the climate and the seed; a null or empty weather_climate removes both.
// Called after the seasons were read: the climate must have one entry per season.
func (c *Calendar) applyClimate(r *domain.Reader) {
	if seasons, _, ok := readObjects(r, "weather_climate", MaxSeasons, readClimateSeason); ok {
		c.Climate = nil
		if len(seasons) > 0 {
			k := calengine.Climate{Seasons: seasons}
			if c.Climate != nil {
				k.Seed = c.Climate.Seed
			}
			c.Climate = &k
		}
	}
	if f := r.Int("weather_seed", -domain.MaxID, domain.MaxID); f.Present() && !r.Errs.Has("weather_seed") {
		if c.Climate == nil {
			r.Fail("weather_seed", "The :attribute needs a climate: send weather_climate too.")
		} else {
			k := *c.Climate
			k.Seed = f.Value
			c.Climate = &k
		}
	}
	if c.Climate != nil && !r.Errs.Has("weather_climate") {
		for _, p := range calengine.ClimateProblems(*c.Climate, len(c.Seasons), "weather_climate") {
			if !r.Errs.Has(p.Field) {
				r.Errs.Add(p.Field, p.Message)
			}
		}
	}
}

func readClimateSeason(r *domain.Reader, prefix string, v any) (calengine.ClimateSeason, bool) {
	in, ok := object(r, prefix, v)
	if !ok {
		return calengine.ClimateSeason{}, false
	}
	var s calengine.ClimateSeason
	const t, p = calengine.MaxClimateTemp, calengine.MaxClimatePerMill
	return s, sub(r, prefix, in, func(x *domain.Reader) {
		if f := x.Int("temp_low", -t, t); f.Present() {
			s.TempLow = int(f.Value)
		}
		if f := x.Int("temp_high", -t, t); f.Present() {
			s.TempHigh = int(f.Value)
		}
		if f := x.Int("precipitation", 0, p); f.Present() {
			s.Precipitation = int(f.Value)
		}
		if f := x.Int("precipitation_intensity", 0, p); f.Present() {
			s.PrecipitationIntensity = int(f.Value)
		}
		x.Required("temp_low", x.Has("temp_low"))
		x.Required("temp_high", x.Has("temp_high"))
	})
}
