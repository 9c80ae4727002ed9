package transfer

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// A calendar's procedural weather (weather_climate, weather_seed) travels as Fantasy-Calendar
// holds its own: a custom location in static_data.seasons.locations, one season entry per
// calendar season with its weather {temp_low, temp_high, precipitation,
// precipitation_intensity}, chosen by dynamic_data (custom_location true, location its index),
// with the seed and enable_weather in static_data.seasons.global_settings. Fantasy-Calendar
// writes temperatures in degrees of its temp_sys (the export says metric) and chances as
// fractions; Lorekeep keeps tenths of a degree and per-mille, so each converts exactly
// (one decimal, three decimals). The engine's Calendar has no climate (the domain keeps it
// beside), so the transfer writes and reads this part itself.

// weatherNotImported is the engine importer's warning for an export with weather or locations.
const weatherNotImported = "Weather and locations are not imported."

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

// scaled reads a decimal as an integer count of 10^-places, rounded; false when it is not a
// finite number or is beyond any climate's bounds (the calendar's rules judge the rest).
func scaled(n json.Number, places int) (int, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	v := math.Round(f * math.Pow10(places))
	if math.Abs(v) > 1e9 {
		return 0, false
	}
	return int(v), true
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

// fcClimateExport is the part of an export the climate is read from.
type fcClimateExport struct {
	StaticData struct {
		Seasons struct {
			Data      []json.RawMessage `json:"data"`
			Locations []fcLocation      `json:"locations"`
			Global    struct {
				Seed          json.Number `json:"seed"`
				EnableWeather bool        `json:"enable_weather"`
				TempSys       string      `json:"temp_sys"`
			} `json:"global_settings"`
		} `json:"seasons"`
	} `json:"static_data"`
	DynamicData struct {
		CustomLocation bool `json:"custom_location"`
		Location       any  `json:"location"`
	} `json:"dynamic_data"`
}

// climateOf reads the climate an export holds, as weather_climate and weather_seed input:
// the custom location dynamic_data chooses, with weather on and one entry per season, its
// temperatures in Celsius (metric) or Fahrenheit. ok is false when the export holds none
// Lorekeep can keep (a built-in Fantasy-Calendar location, a malformed entry): the calendar
// is then imported without weather, as before.
func climateOf(body []byte) (climate []any, seed any, ok bool) {
	var ex fcClimateExport
	if json.Unmarshal(body, &ex) != nil {
		return nil, nil, false
	}
	se := ex.StaticData.Seasons
	if !se.Global.EnableWeather || !ex.DynamicData.CustomLocation {
		return nil, nil, false
	}
	var idx int
	switch v := ex.DynamicData.Location.(type) {
	case string:
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, nil, false
		}
		idx = n
	case float64:
		idx = int(v)
	default:
		return nil, nil, false
	}
	if idx < 0 || idx >= len(se.Locations) || len(se.Locations[idx].Seasons) != len(se.Data) || len(se.Data) == 0 {
		return nil, nil, false
	}
	fahrenheit := se.Global.TempSys == "imperial"
	temp := func(n json.Number) (int, bool) {
		t, ok := scaled(n, 1)
		if ok && fahrenheit { // tenths of a degree F -> tenths of a degree C
			t = int(math.Round(float64(t-320) * 5 / 9))
		}
		return t, ok
	}
	for _, s := range se.Locations[idx].Seasons {
		w := s.Weather
		lo, ok1 := temp(w.TempLow)
		hi, ok2 := temp(w.TempHigh)
		p, ok3 := scaled(w.Precipitation, 3)
		pi, ok4 := scaled(w.PrecipitationIntensity, 3)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, nil, false
		}
		if lo < -calengine.MaxClimateTemp || hi > calengine.MaxClimateTemp || lo > hi || p < 0 || p > calengine.MaxClimatePerMill || pi < 0 || pi > calengine.MaxClimatePerMill {
			return nil, nil, false
		}
		// As a create's body carries them: JSON numbers (the Reader takes no Go ints).
		num := func(n int) json.Number { return json.Number(strconv.Itoa(n)) }
		climate = append(climate, map[string]any{"temp_low": num(lo), "temp_high": num(hi), "precipitation": num(p), "precipitation_intensity": num(pi)})
	}
	n, err := se.Global.Seed.Int64()
	switch {
	case se.Global.Seed == "":
		n = 0
	case err != nil || n < -domain.MaxID || n > domain.MaxID:
		return nil, nil, false
	}
	return climate, json.Number(strconv.FormatInt(n, 10)), true
}
