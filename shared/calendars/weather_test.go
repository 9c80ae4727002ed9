package calendars_test

import (
	"encoding/json"
	"strings"

	"testing"

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
	t.Parallel()
	e := apitest.New(t, register)
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
	t.Parallel()
	e := apitest.New(t, register)
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

// TestWeatherExportRoundTrip: the export writes the climate and the seed as Fantasy-Calendar
// holds them (a custom location chosen by dynamic_data, the seed in global_settings), exactly;
// importing it gives back the same climate, seed and day-view weather.
func TestWeatherExportRoundTrip(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	k := []any{
		map[string]any{"temp_low": -15, "temp_high": 182, "precipitation": 25, "precipitation_intensity": 400},
		map[string]any{"temp_low": -200, "temp_high": -10, "precipitation": 1000, "precipitation_intensity": 0},
	}
	id := create(t, e, e.Campaign, e.Admin, with(fullBody(), "weather_climate", k, "weather_seed", 826116802))
	orig := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()
	ex := e.Do("GET", cal(e.Campaign, id)+"/export", e.Admin, nil)
	if ex.Status != 200 {
		t.Fatalf("export: %d %s", ex.Status, ex.Raw)
	}
	static := ex.Data()["static_data"].(map[string]any)
	seasons := static["seasons"].(map[string]any)
	g := seasons["global_settings"].(map[string]any)
	if g["seed"] != float64(826116802) || g["enable_weather"] != true || g["temp_sys"] != "metric" {
		t.Fatalf("global_settings: %v", g)
	}
	locs := seasons["locations"].([]any)
	if len(locs) != 1 {
		t.Fatalf("locations: %v", locs)
	}
	want := `[{"name":"Spring","weather":{"precipitation":0.025,"precipitation_intensity":0.4,"temp_high":18.2,"temp_low":-1.5}},` +
		`{"name":"Winter","weather":{"precipitation":1,"precipitation_intensity":0,"temp_high":-1,"temp_low":-20}}]`
	if got := jsonOf(locs[0].(map[string]any)["seasons"]); got != want {
		t.Fatalf("location seasons\n got %s\nwant %s", got, want)
	}
	dyn := ex.Data()["dynamic_data"].(map[string]any)
	if dyn["custom_location"] != true || dyn["location"] != "0" {
		t.Fatalf("dynamic_data: %v", dyn)
	}
	im := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, ex.Data())
	if im.Status != 200 {
		t.Fatalf("import of the export: %d %s", im.Status, im.Raw)
	}
	if jsonOf(im.Data()["weather_climate"]) != jsonOf(orig["weather_climate"]) || im.Data()["weather_seed"] != orig["weather_seed"] {
		t.Fatalf("climate after the round trip: %v %v, want %v %v", im.Data()["weather_climate"], im.Data()["weather_seed"], orig["weather_climate"], orig["weather_seed"])
	}
	for _, w := range im.Data()["warnings"].([]any) {
		if w == "Weather and locations are not imported." {
			t.Errorf("warnings: %v", im.Data()["warnings"])
		}
	}
	copyID := int64(im.Data()["id"].(float64))
	stored := e.Do("GET", cal(e.Campaign, copyID), e.Admin, nil).Data()
	if jsonOf(stored["weather_climate"]) != jsonOf(orig["weather_climate"]) || stored["weather_seed"] != orig["weather_seed"] {
		t.Fatalf("stored climate: %v %v", stored["weather_climate"], stored["weather_seed"])
	}
	weather := func(id int64) string {
		r := e.Do("GET", cal(e.Campaign, id)+"/days?from=4-1-1&to=5-4-30", e.Admin, nil)
		if r.Status != 200 {
			t.Fatalf("days: %d %s", r.Status, r.Raw)
		}
		var ws []any
		for _, d := range r.List() {
			ws = append(ws, d.(map[string]any)["weather"])
		}
		return jsonOf(ws)
	}
	if a, b := weather(id), weather(copyID); a != b || a == "null" {
		t.Fatalf("day-view weather differs after the round trip\n got %s\nwant %s", b, a)
	}
}

// TestWeatherImportEdges: Fahrenheit is converted; a built-in location, weather off, a
// location that is not the calendar's import the calendar without weather, with a warning;
// weather the export holds that does not fit or is out of bounds is a 422 naming its field; a
// climate sent beside the export wins.
func TestWeatherImportEdges(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, with(fullBody(), "weather_climate", climate(), "weather_seed", 7))
	base := e.Do("GET", cal(e.Campaign, id)+"/export", e.Admin, nil).Data()
	// variant returns a copy of the export with fn applied to its (decoded) parts.
	variant := func(fn func(seasons, dyn map[string]any)) map[string]any {
		var ex map[string]any
		if err := json.Unmarshal([]byte(jsonOf(base)), &ex); err != nil {
			t.Fatal(err)
		}
		fn(ex["static_data"].(map[string]any)["seasons"].(map[string]any), ex["dynamic_data"].(map[string]any))
		return ex
	}
	weatherOf := func(seasons map[string]any, i int) map[string]any {
		loc := seasons["locations"].([]any)[0].(map[string]any)
		return loc["seasons"].([]any)[i].(map[string]any)["weather"].(map[string]any)
	}
	noWeather := func(t *testing.T, r apitest.Response) {
		t.Helper()
		if r.Status != 200 || r.Data()["weather_seed"] != nil || jsonOf(r.Data()["weather_climate"]) != "[]" {
			t.Fatalf("%d %s, want a calendar without weather", r.Status, r.Raw)
		}
		if !strings.Contains(jsonOf(r.Data()["warnings"]), "is not imported") {
			t.Errorf("warnings: %v", r.Data()["warnings"])
		}
	}
	// refused: weather the export holds but that is wrong is a 422 naming its field.
	refused := func(field string) func(t *testing.T, r apitest.Response) {
		return func(t *testing.T, r apitest.Response) {
			t.Helper()
			if r.Status != 422 || r.Errors()[field] == nil {
				t.Fatalf("%d %s, want 422 on %s", r.Status, r.Raw, field)
			}
		}
	}
	cases := []struct {
		name  string
		body  map[string]any
		check func(t *testing.T, r apitest.Response)
	}{
		{"fahrenheit", variant(func(s, _ map[string]any) {
			s["global_settings"].(map[string]any)["temp_sys"] = "imperial"
			w := weatherOf(s, 0)
			w["temp_low"], w["temp_high"] = 14, 50 // -10 C, 10 C
		}), func(t *testing.T, r apitest.Response) {
			c := r.Data()["weather_climate"].([]any)[0].(map[string]any)
			if r.Status != 200 || c["temp_low"] != float64(-100) || c["temp_high"] != float64(100) {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
		}},
		// Fantasy-Calendar's built-in climate (its table, Fahrenheit as Celsius tenths; the
		// seasons Spring and Winter are not the table's Winter and Summer: taken in order),
		// stored with the export's seed.
		{"built-in location", variant(func(_, d map[string]any) { d["custom_location"], d["location"] = false, "Equatorial" }), func(t *testing.T, r apitest.Response) {
			want := `[{"precipitation":500,"precipitation_intensity":300,"temp_high":378,"temp_low":156},{"precipitation":600,"precipitation_intensity":700,"temp_high":378,"temp_low":156}]`
			if r.Status != 200 || jsonOf(r.Data()["weather_climate"]) != want || r.Data()["weather_seed"] != float64(7) || strings.Contains(jsonOf(r.Data()["warnings"]), "weather") {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			got := e.Do("GET", cal(e.Campaign, int64(r.Data()["id"].(float64))), e.Admin, nil)
			if jsonOf(got.Data()["weather_climate"]) != want || got.Data()["weather_seed"] != float64(7) {
				t.Fatalf("stored: %s", got.Raw)
			}
		}},
		{"weather off", variant(func(s, _ map[string]any) { s["global_settings"].(map[string]any)["enable_weather"] = false }), func(t *testing.T, r apitest.Response) {
			if r.Status != 200 || r.Data()["weather_seed"] != nil {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
		}},
		{"location index out of range", variant(func(_, d map[string]any) { d["location"] = "5" }), noWeather},
		{"one season short", variant(func(s, _ map[string]any) {
			loc := s["locations"].([]any)[0].(map[string]any)
			loc["seasons"] = loc["seasons"].([]any)[:1]
		}), refused("static_data.seasons.locations.0.seasons.1.weather")},
		{"chance above one", variant(func(s, _ map[string]any) { weatherOf(s, 1)["precipitation"] = 2 }), refused("static_data.seasons.locations.0.seasons.1.precipitation")},
		{"temperature text", variant(func(s, _ map[string]any) { weatherOf(s, 0)["temp_low"] = "cold" }), refused("static_data.seasons.locations.0.seasons.0.weather.temp_low")},
		{"seed huge", variant(func(s, _ map[string]any) { s["global_settings"].(map[string]any)["seed"] = 1e30 }), refused("static_data.seasons.global_settings.seed")},
		{"climate beside wins", with(variant(func(map[string]any, map[string]any) {}), "weather_climate", climate(), "weather_seed", 99),
			func(t *testing.T, r apitest.Response) {
				if r.Status != 200 || r.Data()["weather_seed"] != float64(99) || jsonOf(r.Data()["weather_climate"]) != jsonOf(climate()) {
					t.Fatalf("%d %s", r.Status, r.Raw)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, c.body)
			c.check(t, r)
		})
	}
}
