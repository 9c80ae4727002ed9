package calendars_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// gregorianRules is a body with Gregorian months and leap rule, written by hand.
func gregorianRules() map[string]any {
	return map[string]any{
		"name":         "Earth",
		"month_name":   []any{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
		"month_length": []any{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
		"weekday":      []any{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"},
		"start_offset": 5,
		"leap_days":    []any{map[string]any{"name": "Leap Day", "month": 2, "interval": "400,!100,4"}},
		"eras": []any{
			map[string]any{"name": "Common Era", "abbreviation": "CE", "year": 1},
			map[string]any{"name": "New Age", "abbreviation": "NA", "year": 2000, "restart": true},
		},
		"current_year": 2024, "current_month": 2, "current_day": 29,
	}
}

func TestLeapDayRulesDecideDatesAndAreReturnedAsGiven(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, gregorianRules())
	r := e.Do("GET", cal(e.Campaign, id), e.Member, nil)
	d := r.Data()
	if got := jsonOf(d["leap_days"]); got != `[{"amount":1,"day":null,"from_year":null,"intercalary":false,"interval":"400,!100,4","month":2,"name":"Leap Day","offset":0}]` {
		t.Errorf("leap_days = %s", got)
	}
	// Two intervals cannot be written in Kanka's fields: they say no leap year.
	if d["has_leap_year"] != false || d["leap_year_offset"] != float64(0) {
		t.Errorf("Kanka's fields = %v %v", d["has_leap_year"], d["leap_year_offset"])
	}
	if got := jsonOf(d["era"]); got != `{"abbreviation":"NA","name":"New Age","year":25}` {
		t.Errorf("era of 2024 = %s", got)
	}
	if jsonOf(d["eras"]) != `[{"abbreviation":"CE","name":"Common Era","restart":false,"year":1},{"abbreviation":"NA","name":"New Age","restart":true,"year":2000}]` {
		t.Errorf("eras = %s", jsonOf(d["eras"]))
	}
	if jsonOf(d["epochs"]) != `[{"name":"Common Era"},{"name":"New Age"}]` {
		t.Errorf("epochs = %s", jsonOf(d["epochs"]))
	}
	// 1900 and 2100 have no February 29; 2000 does.
	for date, status := range map[string]int{"1900": 422, "2100": 422, "2000": 200} {
		r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"current_year": date})
		if r.Status != status {
			t.Errorf("current date %s-2-29: %d %s", date, r.Status, r.Raw)
		}
	}
	// The days view names the leap day and the era; March 1 2024 is a Friday.
	r = e.Do("GET", cal(e.Campaign, id)+"/days?from=2024-2-28&to=2024-3-1", e.Member, nil)
	days := r.List()
	if len(days) != 3 {
		t.Fatalf("days: %d %s", r.Status, r.Raw)
	}
	leap := days[1].(map[string]any)
	if leap["is_leap_day"] != true || leap["leap_day_name"] != "Leap Day" || leap["weekday"] != "Thu" {
		t.Errorf("2024-2-29 = %s", jsonOf(leap))
	}
	if other := days[2].(map[string]any); other["is_leap_day"] != false || other["leap_day_name"] != nil || other["weekday"] != "Fri" ||
		jsonOf(other["era"]) != `{"abbreviation":"NA","name":"New Age","year":25}` {
		t.Errorf("2024-3-1 = %s", jsonOf(other))
	}
	// Kanka's fields sent alone describe the rule again, and are answered.
	r = e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{
		"current_year": 2001, "current_day": 28,
		"has_leap_year": true, "leap_year_amount": 1, "leap_year_month": 2, "leap_year_offset": 4, "leap_year_start": 0,
	})
	if r.Status != 200 || r.Data()["has_leap_year"] != true || r.Data()["leap_year_offset"] != float64(4) ||
		jsonOf(r.Data()["leap_days"]) != `[{"amount":1,"day":null,"from_year":0,"intercalary":false,"interval":"4","month":2,"name":"","offset":0}]` {
		t.Errorf("Kanka's fields: %d %s", r.Status, r.Raw)
	}
	c, err := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id)
	if err != nil || len(c.LeapDays) != 0 || !c.HasLeapYear || c.LeapYearOffset != 4 {
		t.Errorf("stored = %+v, %v", c, err)
	}
	// No rules at all: no leap years, whichever way they were described.
	r = e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"leap_days": []any{}})
	if r.Status != 200 || r.Data()["has_leap_year"] != false || jsonOf(r.Data()["leap_days"]) != `[]` {
		t.Errorf("no rules: %d %s", r.Status, r.Raw)
	}
	if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); c.HasLeapYear || len(c.LeapDays) != 0 {
		t.Errorf("stored without rules = %+v", c)
	}
}

func TestKankaLeapMonthMissingIsTheFirst(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, with(plainBody("Clamped"), "has_leap_year", true, "leap_year_amount", 1, "leap_year_offset", 4))
	r := e.Do("GET", cal(e.Campaign, id), e.Member, nil)
	if r.Data()["leap_year_month"] != float64(1) {
		t.Errorf("leap_year_month = %v", r.Data()["leap_year_month"])
	}
	if r := e.Do("GET", cal(e.Campaign, id)+"/days?from=0-1-30&to=0-1-31", e.Member, nil); len(r.List()) != 2 ||
		r.List()[1].(map[string]any)["is_leap_day"] != true {
		t.Errorf("0-1-31: %s", r.Raw)
	}
}

func TestDecimalMoonOffsetsRoundTrip(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, with(plainBody("Moons"), "moon_name", []any{"A", "B"}, "moon_fullmoon", []any{29.5, 8},
		"moon_offset", []any{json.Number("2.25"), "-0.5"}))
	r := e.Do("GET", cal(e.Campaign, id), e.Member, nil)
	if got := jsonOf(r.Data()["moons"]); !strings.Contains(got, `"offset":2.25`) || !strings.Contains(got, `"offset":-0.5`) {
		t.Errorf("moons = %s", got)
	}
	// Moon B (8 days, shifted back half a day) is full on days floor(-0.5 + 8k): -1, 7, 15.
	r = e.Do("GET", cal(e.Campaign, id)+"/days?from=1-1-1&to=1-1-17", e.Member, nil)
	var full []string
	for _, d := range r.List() {
		for _, m := range d.(map[string]any)["moons"].([]any) {
			if mm := m.(map[string]any); mm["name"] == "B" && mm["phase"] == "full" {
				full = append(full, d.(map[string]any)["date"].(string))
			}
		}
	}
	// Day 0 is 0-1-1; year 0 has 60 days, so 1-1-1 is day 60: full on 63 and 71 (1-1-4, 1-1-12).
	if strings.Join(full, ",") != "1-1-4,1-1-12" {
		t.Errorf("B full on %v", full)
	}
}

func TestNewCalendarFieldsRefusedWithTheFieldNamed(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	plain := plainBody("Bad")
	rule := func(kv ...any) map[string]any {
		m := map[string]any{"month": 1, "interval": "4"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return with(plain, "leap_days", []any{m})
	}
	tests := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"bad interval syntax", rule("interval", "4,!x"), "leap_days.0.interval"},
		{"only excluded intervals", rule("interval", "!4"), "leap_days.0.interval"},
		{"interval missing", rule("interval", nil), "leap_days.0.interval"},
		{"leap month out of range", rule("month", 3), "leap_days.0.month"},
		{"leap month missing", rule("month", nil), "leap_days.0.month"},
		{"leap day beyond the month", rule("day", 31), "leap_days.0.day"},
		{"leap day not an object", with(plain, "leap_days", []any{"4"}), "leap_days.0"},
		{"leap days not a list", with(plain, "leap_days", "4"), "leap_days"},
		{"unknown preset", with(plain, "preset", "mayan"), "preset"},
		{"era without a name", with(plain, "eras", []any{map[string]any{"year": 1}}), "eras.0.name"},
		{"era without a year", with(plain, "eras", []any{map[string]any{"name": "A"}}), "eras.0.year"},
		{"era year not an integer", with(plain, "eras", []any{map[string]any{"name": "A", "year": 1.5}}), "eras.0.year"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, tt.body)
			if r.Status != 422 || r.Errors()[tt.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %q", r.Status, r.Raw, tt.field)
			}
		})
	}
	if n := total(t, e, e.Campaign); n != 0 {
		t.Errorf("%v calendars stored by refused requests", n)
	}
}

func TestPresets(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	r := e.Do("GET", apitest.Path(e.Campaign, "/calendars/presets"), e.Viewer, nil)
	var keys []string
	for _, p := range r.List() {
		pm := p.(map[string]any)
		if pm["name"] == "" || pm["description"] == "" {
			t.Errorf("preset %v", pm)
		}
		keys = append(keys, pm["key"].(string))
	}
	if strings.Join(keys, ",") != "gregorian,julian,harptos,golarion,exandria,eberron" {
		t.Errorf("%d %s", r.Status, r.Raw)
	}
	if r := e.Do("HEAD", apitest.Path(e.Campaign, "/calendars/presets"), e.Viewer, nil); r.Status != 200 {
		t.Errorf("HEAD presets: %d", r.Status)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/calendars/presets"), e.Outsider, nil); r.Status != 404 {
		t.Errorf("presets of a campaign the caller is not in: %d", r.Status)
	}

	// A preset fills everything; fields given beside it win.
	r = e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, map[string]any{
		"name": "Realms", "preset": "harptos", "current_year": 1372, "current_month": 10, "current_day": 2,
		"weekday": []any{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"},
	})
	if r.Status != 200 {
		t.Fatalf("create from preset: %d %s", r.Status, r.Raw)
	}
	d := r.Data()
	if len(d["months"].([]any)) != 17 || d["weekdays"].([]any)[0] != "1" || d["date"] != "1372-10-2" ||
		jsonOf(d["era"]) != `{"abbreviation":"DR","name":"Dalereckoning","year":1372}` {
		t.Errorf("harptos: %s", r.Raw)
	}
	id := int64(d["id"].(float64))
	days := e.Do("GET", cal(e.Campaign, id)+"/days", e.Member, nil).List()
	if len(days) != 1 || days[0].(map[string]any)["leap_day_name"] != "Shieldmeet" || days[0].(map[string]any)["weekday"] != nil {
		t.Errorf("Shieldmeet 1372: %s", jsonOf(days))
	}
	// Gregorian: 1-1-1 is a Monday, its default date 2000-1-1 a Saturday.
	r = e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, map[string]any{"name": "Earth", "preset": "gregorian"})
	id = int64(r.Data()["id"].(float64))
	days = e.Do("GET", cal(e.Campaign, id)+"/days?from=1-1-1&to=1-1-1", e.Member, nil).List()
	if r.Data()["date"] != "2000-1-1" || len(days) != 1 || days[0].(map[string]any)["weekday"] != "Monday" {
		t.Errorf("gregorian: %s / %s", r.Raw, jsonOf(days))
	}
	if r := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Viewer, map[string]any{"name": "X", "preset": "gregorian"}); r.Status != 403 && r.Status != 404 {
		t.Errorf("viewer creating from a preset: %d", r.Status)
	}
}

func TestImportFantasyCalendarExport(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	raw, err := os.ReadFile("testdata/fantasy-calendar-export.json")
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	body["is_private"] = true
	e.Counter.Reset()
	r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, body)
	if r.Status != 200 {
		t.Fatalf("import: %d %s", r.Status, r.Raw)
	}
	if n := e.Counter.N(); n > 1+2 {
		t.Errorf("import: %d DynamoDB calls, budget 3", n)
	}
	d := r.Data()
	if d["name"] != "Harptos & friends" || d["is_private"] != true || d["date"] != "1492-10-1" || len(d["months"].([]any)) != 17 ||
		len(d["leap_days"].([]any)) != 2 || jsonOf(d["moons"].([]any)[0]) != `{"colour":"#ffffff","fullmoon":"30.4375","granularity":24,"id":1,"name":"Selûne","offset":-14.71875,"rounding":"round"}` {
		t.Errorf("imported: %s", r.Raw)
	}
	// What the model holds is no warning any more (issue 21): only an era's description and the
	// two events without conditions are left; the era ending its year is kept, and so is the
	// built-in climate ("Cool and Rainy": Fantasy-Calendar's table).
	warnings, _ := d["warnings"].([]any)
	if era := d["eras"].([]any)[1].(map[string]any); era["ends_year"] != true || era["month"] != 3.0 || era["day"] != 5.0 {
		t.Errorf("the era ending its year: %v", era)
	}
	if len(warnings) != 3 || strings.Contains(jsonOf(warnings), "ends its year") || !strings.Contains(jsonOf(warnings), `Event \"Greengrass\" is not imported`) || strings.Contains(jsonOf(warnings), "weather") || strings.Contains(jsonOf(warnings), "Nightal") ||
		len(d["weather_climate"].([]any)) != 2 {
		t.Errorf("warnings: %v", warnings)
	}
	id := int64(d["id"].(float64))
	if got := e.Do("GET", cal(e.Campaign, id), e.Admin, nil); got.Status != 200 || got.Data()["name"] != "Harptos & friends" || got.Data()["warnings"] != nil {
		t.Errorf("stored import: %d %s", got.Status, got.Raw)
	}
	// A malformed export changes nothing and names the field.
	before := total(t, e, e.Campaign)
	for field, bad := range map[string]map[string]any{
		"static_data.year_data":                      {"name": "X", "static_data": map[string]any{}},
		"static_data.year_data.leap_days.0.interval": withLeap(body, "4,x"),
		"name": {"static_data": body["static_data"]},
		"static_data.year_data.timespans.0.length": withTimespanLength(body, 0),
	} {
		r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, bad)
		if r.Status != 422 || r.Errors()[field] == nil {
			t.Errorf("%s: %d %s", field, r.Status, r.Raw)
		}
	}
	if r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Viewer, body); r.Status != 403 && r.Status != 404 {
		t.Errorf("viewer import: %d", r.Status)
	}
	if after := total(t, e, e.Campaign); after != before {
		t.Errorf("refused imports stored calendars: %v -> %v", before, after)
	}
}

// withLeap is the export with its first leap day's interval replaced.
func withLeap(body map[string]any, interval string) map[string]any {
	var out map[string]any
	b, _ := json.Marshal(body)
	_ = json.Unmarshal(b, &out)
	yd := out["static_data"].(map[string]any)["year_data"].(map[string]any)
	yd["leap_days"].([]any)[0].(map[string]any)["interval"] = interval
	return out
}

func withTimespanLength(body map[string]any, n int) map[string]any {
	var out map[string]any
	b, _ := json.Marshal(body)
	_ = json.Unmarshal(b, &out)
	yd := out["static_data"].(map[string]any)["year_data"].(map[string]any)
	yd["timespans"].([]any)[0].(map[string]any)["length"] = n
	return out
}

func withTimespanName(body map[string]any, name string) map[string]any {
	var out map[string]any
	b, _ := json.Marshal(body)
	_ = json.Unmarshal(b, &out)
	yd := out["static_data"].(map[string]any)["year_data"].(map[string]any)
	yd["timespans"].([]any)[0].(map[string]any)["name"] = name
	return out
}

// TestImportFantasyCalendarEventsAsReminders: the export's events that map onto recurrences are
// reminders on the new calendar's entity (shown by the day view, a hidden one to admins only),
// the others warnings naming them; the ids in one round trip and one transaction per event.
func TestImportFantasyCalendarEventsAsReminders(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	raw, err := os.ReadFile("testdata/fantasy-calendar-export.json")
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	var events any
	_ = json.Unmarshal([]byte(`{"categories":[{"id":1,"name":"Holiday","event_settings":{"color":"Green","hide":true}}],"events":[
		{"name":"New Dawn","description":"<p>first <script>x</script></p>","data":{"conditions":[["Month","0",["0"]],["&&"],["Day","0",["1"]]]},"settings":{"color":"Red"}},
		{"name":"Market","event_category_id":1,"data":{"has_duration":true,"duration":2,"conditions":[["Day","0",["10"]]]}},
		{"name":"Either","data":{"conditions":[["Month","0",["0"]],["||"],["Day","0",["1"]]]}}]}`), &events)
	body["static_data"].(map[string]any)["event_data"] = events
	e.Counter.Reset()
	r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, body)
	if r.Status != 200 {
		t.Fatalf("import: %d %s", r.Status, r.Raw)
	}
	if n := e.Counter.N(); n > 3+1+2 {
		t.Errorf("import with 2 events: %d DynamoDB calls, budget 6", n)
	}
	warnings := jsonOf(r.Data()["warnings"])
	if !strings.Contains(warnings, `Event \"Either\" is not imported`) || strings.Contains(warnings, "New Dawn") || strings.Contains(warnings, "Market") {
		t.Errorf("warnings: %s", warnings)
	}
	id := int64(r.Data()["id"].(float64))
	names := func(token string) map[string]string {
		got := map[string]string{}
		days := e.Do("GET", cal(e.Campaign, id)+"/days?from=1492-1-1&to=1492-1-11", token, nil)
		if days.Status != 200 {
			t.Fatalf("days: %d %s", days.Status, days.Raw)
		}
		for _, d := range days.List() {
			for _, ev := range d.(map[string]any)["events"].([]any) {
				m := ev.(map[string]any)
				got[d.(map[string]any)["date"].(string)+" "+m["name"].(string)] = m["colour"].(string)
			}
		}
		return got
	}
	admin := names(e.Admin)
	want := map[string]string{"1492-1-1 New Dawn": "#f44336", "1492-1-10 Market": "#4caf50", "1492-1-11 Market": "#4caf50"}
	if !reflect.DeepEqual(admin, want) {
		t.Errorf("admin's days: %v, want %v", admin, want)
	}
	if member := names(e.Member); !reflect.DeepEqual(member, map[string]string{"1492-1-1 New Dawn": "#f44336"}) {
		t.Errorf("member's days: %v (the hidden category's event must not show)", member)
	}
	// The current custom location's weather is the calendar's climate, with the export's seed.
	se := body["static_data"].(map[string]any)["seasons"].(map[string]any)
	se["global_settings"] = map[string]any{"enable_weather": true, "seed": 42}
	w := map[string]any{"weather": map[string]any{"temp_low": -5.5, "temp_high": 3, "precipitation": 0.25, "precipitation_intensity": 0.5}}
	se["locations"] = []any{map[string]any{"name": "Home", "seasons": []any{w, w}}}
	dyn := body["dynamic_data"].(map[string]any)
	dyn["location"], dyn["custom_location"] = "0", true
	if r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, body); r.Status != 200 || r.Data()["weather_seed"] != 42.0 ||
		jsonOf(r.Data()["weather_climate"].([]any)[1]) != `{"precipitation":250,"precipitation_intensity":500,"temp_high":30,"temp_low":-55}` {
		t.Errorf("weather: %d %s", r.Status, r.Raw)
	}
	// More events than the limit: refused naming the field, nothing written.
	before := total(t, e, e.Campaign)
	many := make([]any, calengine.MaxImportEvents+1)
	for i := range many {
		many[i] = map[string]any{"name": "E", "data": map[string]any{"conditions": []any{[]any{"Day", "0", []any{"1"}}}}}
	}
	body["static_data"].(map[string]any)["event_data"] = map[string]any{"events": many}
	if r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, body); r.Status != 422 || r.Errors()["static_data.event_data.events"] == nil {
		t.Errorf("too many events: %d %s", r.Status, r.Raw)
	}
	if after := total(t, e, e.Campaign); after != before {
		t.Errorf("a refused import stored a calendar: %v -> %v", before, after)
	}
}

// TestDayViewRefusesOverlappingEventsBeforeBuilding: an every-day event 100,000 days long
// overlaps each day 100,000 times; the day view refuses it (422 on `to` naming the limit) after
// at most MaxDayEvents entries (about 10,000 of its occurrences), in the same round trips as any
// day view, and a shorter one shows.
func TestDayViewRefusesOverlappingEventsBeforeBuilding(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, with(plainBody("Long"), "current_year", 2000, "current_month", 1, "current_day", 1))
	r := e.Do("GET", cal(e.Campaign, id), e.Admin, nil)
	entityID := int64(r.Data()["entity_id"].(float64))
	for _, length := range []int{100_000, 50} {
		ev := &timeline.Event{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, EntityID: entityID, CalendarID: id,
			Name: "L" + strconv.Itoa(length), Length: length, Date: calengine.Date{Year: 1, Month: 1, Day: 1},
			Rule: &calengine.Rule{Unit: calengine.UnitDays, Interval: 1}, Visibility: domain.VisibilityAll}
		if err := eventstore.New(e.Store).CreateEvent(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
		e.Counter.Reset()
		days := e.Do("GET", cal(e.Campaign, id)+"/days?from=2000-1-1&to=2000-1-2", e.Admin, nil)
		if length == 100_000 {
			if days.Status != 422 || days.Errors()["to"] == nil || !strings.Contains(string(days.Raw), strconv.Itoa(calendardays.MaxDayEvents)) {
				t.Fatalf("length %d: %d %s", length, days.Status, days.Raw)
			}
			if n := e.Counter.N(); n > 4 {
				t.Errorf("refused day view: %d DynamoDB calls", n)
			}
			// Without the long one, the shorter one shows: 50 starts overlap each day.
			if err := eventstore.New(e.Store).DeleteEvent(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if days.Status != 200 || len(days.List()) != 2 || len(days.List()[0].(map[string]any)["events"].([]any)) != 50 {
			t.Fatalf("length %d: %d %.300s", length, days.Status, days.Raw)
		}
	}
}
