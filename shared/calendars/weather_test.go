package calendars_test

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Issue 21: procedural weather from a calendar's climate and seed, shown in the day view.

// climate is fullBody's climate: Spring (from Thaw 15) mild and wet, Winter (from Bloom 10)
// freezing and snowy.
func climate() []any {
	return []any{
		map[string]any{"temp_low": 50, "temp_high": 180, "precipitation": 500, "precipitation_intensity": 400},
		map[string]any{"temp_low": -200, "temp_high": -10, "precipitation": 300, "precipitation_intensity": 1000},
	}
}

// TestWeatherInTheDayView: a calendar with a climate answers it, and every day of its day view
// has weather within its season's range, the same for every reader and every read.
func TestWeatherInTheDayView(t *testing.T) {
	e := apitest.New(t, calendars.Register)
	id := create(t, e, e.Campaign, e.Admin, with(fullBody(), "weather_climate", climate(), "weather_seed", 826116802))
	got := e.Do("GET", cal(e.Campaign, id), e.Member, nil)
	if got.Status != 200 || got.Data()["weather_seed"] != float64(826116802) || jsonOf(got.Data()["weather_climate"]) != jsonOf(climate()) {
		t.Fatalf("show: %d %s", got.Status, got.Raw)
	}
	days := func(token string) []any {
		r := e.Do("GET", cal(e.Campaign, id)+"/days?from=4-1-1&to=6-4-30", token, nil)
		if r.Status != 200 {
			t.Fatalf("days: %d %s", r.Status, r.Raw)
		}
		return r.List()
	}
	first, again := days(e.Member), days(e.Admin)
	if jsonOf(first) != jsonOf(again) {
		t.Fatal("two readers saw different weather")
	}
	kinds := map[string]int{}
	for _, d := range first {
		day := d.(map[string]any)
		w := day["weather"].(map[string]any)
		temp := w["temperature"].(float64)
		lo, hi := 50.0, 180.0
		if day["season"] == "Winter" {
			lo, hi = -200, -10
		}
		if temp < lo || temp > hi {
			t.Fatalf("%v: %v outside [%v, %v] (%v)", day["date"], temp, lo, hi, day["season"])
		}
		kinds[w["kind"].(string)]++
	}
	if kinds["snow"]+kinds["heavy snow"] == 0 || kinds["rain"] == 0 || kinds["clear"] == 0 {
		t.Errorf("kinds over three years: %v", kinds)
	}
	// Another seed, other weather; no climate, no weather.
	if r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"weather_seed": 1}); r.Status != 200 {
		t.Fatalf("reseed: %d %s", r.Status, r.Raw)
	}
	if jsonOf(days(e.Member)) == jsonOf(first) {
		t.Error("the seed changed nothing")
	}
	if r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"weather_climate": nil}); r.Status != 200 || r.Data()["weather_seed"] != nil || jsonOf(r.Data()["weather_climate"]) != "[]" {
		t.Fatalf("remove: %d %s", r.Status, r.Raw)
	}
	for _, d := range days(e.Member) {
		if d.(map[string]any)["weather"] != nil {
			t.Fatalf("weather without a climate: %v", d)
		}
	}
}

// TestClimateRefused: each bad climate is a 422 naming its field, and nothing is written.
func TestClimateRefused(t *testing.T) {
	e := apitest.New(t, calendars.Register)
	id := create(t, e, e.Campaign, e.Admin, with(fullBody(), "weather_climate", climate()))
	one := func(kv ...any) []any {
		c := climate()
		m := c[0].(map[string]any)
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return c
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"not a list", map[string]any{"weather_climate": "warm"}, "weather_climate"},
		{"one entry short", map[string]any{"weather_climate": climate()[:1]}, "weather_climate"},
		{"seasons changed without it", map[string]any{"season_name": []any{"Only"}, "season_month": []any{1}, "season_day": []any{1}}, "weather_climate"},
		{"not an object", map[string]any{"weather_climate": []any{1, 2}}, "weather_climate.0"},
		{"low missing", map[string]any{"weather_climate": []any{map[string]any{"temp_high": 1}, climate()[1]}}, "weather_climate.0.temp_low"},
		{"low above high", map[string]any{"weather_climate": one("temp_low", 200)}, "weather_climate.0.temp_high"},
		{"too hot", map[string]any{"weather_climate": one("temp_high", 10001)}, "weather_climate.0.temp_high"},
		{"chance over 1000", map[string]any{"weather_climate": one("precipitation", 1001)}, "weather_climate.0.precipitation"},
		{"intensity negative", map[string]any{"weather_climate": one("precipitation_intensity", -1)}, "weather_climate.0.precipitation_intensity"},
		{"temperature text", map[string]any{"weather_climate": one("temp_low", "cold")}, "weather_climate.0.temp_low"},
		{"seed text", map[string]any{"weather_seed": "abc"}, "weather_seed"},
		{"seed huge", map[string]any{"weather_seed": 1e30}, "weather_seed"},
	}
	before := e.Do("GET", cal(e.Campaign, id), e.Admin, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("%d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if after := e.Do("GET", cal(e.Campaign, id), e.Admin, nil); jsonOf(after.Data()) != jsonOf(before.Data()) {
		t.Fatal("a refused write changed the calendar")
	}
	// A seed needs a climate.
	plain := create(t, e, e.Campaign, e.Admin, plainBody("Plain"))
	if r := e.Do("PATCH", cal(e.Campaign, plain), e.Admin, map[string]any{"weather_seed": 3}); r.Status != 422 || r.Errors()["weather_seed"] == nil {
		t.Fatalf("seed without a climate: %d %s", r.Status, r.Raw)
	}
}
