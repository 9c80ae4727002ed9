package transfer

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/calengine"
)

// A calendar's procedural weather (weather_climate, weather_seed) travels as Fantasy-Calendar
// holds its own: a custom location in static_data.seasons.locations, one season entry per
// calendar season with its weather {temp_low, temp_high, precipitation,
// precipitation_intensity}, chosen by dynamic_data (custom_location true, location its index),
// with the seed and enable_weather in static_data.seasons.global_settings. Fantasy-Calendar
// writes temperatures in degrees of its temp_sys (the export says metric) and chances as
// fractions; Lorekeep keeps tenths of a degree and per-mille, so each converts exactly
// (one decimal, three decimals). The engine's Calendar has no climate (the domain keeps it
// beside), so the transfer writes this part itself; the engine's importer reads it back
// (calengine.Import.Climate).

// fcLocationName names the location an export writes for the calendar's climate.
const fcLocationName = "Lorekeep climate"

type fcWeather struct {
	TempLow                json.Number `json:"temp_low"`
	TempHigh               json.Number `json:"temp_high"`
	Precipitation          json.Number `json:"precipitation"`
	PrecipitationIntensity json.Number `json:"precipitation_intensity"`
}

type fcLocationSeason struct {
	Name    string    `json:"name"`
	Weather fcWeather `json:"weather"`
}

type fcLocation struct {
	Name     string             `json:"name"`
	Seasons  []fcLocationSeason `json:"seasons"`
	Settings map[string]any     `json:"settings"`
}

// fcLocationSettings are the noise settings Fantasy-Calendar's editor gives a new location.
var fcLocationSettings = map[string]any{
	"timezone":               map[string]any{"hour": 0, "minute": 0},
	"large_noise_frequency":  0.015,
	"large_noise_amplitude":  5.0,
	"medium_noise_frequency": 0.3,
	"medium_noise_amplitude": 2.0,
	"small_noise_frequency":  0.8,
	"small_noise_amplitude":  3.0,
}

// decimal writes n / 10^places exactly (tenths -> "-1.5", per-mille -> "0.25").
func decimal(n int, places int) json.Number {
	unit := int(math.Pow10(places))
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	s := sign + strconv.Itoa(n/unit)
	if frac := n % unit; frac != 0 {
		f := strconv.Itoa(frac)
		for len(f) < places {
			f = "0" + f
		}
		for f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		s += "." + f
	}
	return json.Number(s)
}

// withClimate writes k into an export's static_data and dynamic_data (seasons names the
// location's seasons, the calendar's own).
func withClimate(static, dynamic json.RawMessage, k calengine.Climate, seasons []string) (json.RawMessage, json.RawMessage, error) {
	st, err := decodeObject(static)
	if err != nil {
		return nil, nil, err
	}
	dy, err := decodeObject(dynamic)
	if err != nil {
		return nil, nil, err
	}
	loc := fcLocation{Name: fcLocationName, Settings: fcLocationSettings, Seasons: make([]fcLocationSeason, len(k.Seasons))}
	for i, s := range k.Seasons {
		name := ""
		if i < len(seasons) {
			name = seasons[i]
		}
		loc.Seasons[i] = fcLocationSeason{Name: name, Weather: fcWeather{
			TempLow: decimal(s.TempLow, 1), TempHigh: decimal(s.TempHigh, 1),
			Precipitation: decimal(s.Precipitation, 3), PrecipitationIntensity: decimal(s.PrecipitationIntensity, 3),
		}}
	}
	se, _ := st["seasons"].(map[string]any)
	if se == nil {
		se = map[string]any{}
		st["seasons"] = se
	}
	se["locations"] = []fcLocation{loc}
	g, _ := se["global_settings"].(map[string]any)
	if g == nil {
		g = map[string]any{}
		se["global_settings"] = g
	}
	g["seed"], g["enable_weather"], g["temp_sys"] = k.Seed, true, "metric"
	dy["custom_location"], dy["location"] = true, "0"
	s, err := json.Marshal(st)
	if err != nil {
		return nil, nil, err
	}
	d, err := json.Marshal(dy)
	return s, d, err
}

func decodeObject(raw json.RawMessage) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers stay as written
	out := map[string]any{}
	return out, d.Decode(&out)
}
