package calendars_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarweather"
	"github.com/lorekeep/lorekeep/shared/calendars/transfer"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// plainBody is the smallest valid calendar: two months, two weekdays.
func plainBody(name string) map[string]any {
	return map[string]any{"name": name, "month_name": []any{"A", "B"}, "month_length": []any{30, 30}, "weekday": []any{"X", "Y"}}
}

// with returns a copy of body with the given fields replaced (a nil value removes the field).
func with(body map[string]any, kv ...any) map[string]any {
	out := maps.Clone(body)
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// fullBody is the calendar of the hand-checked tests. A normal year has 90 days: Ice 30, Thaw 28
// (29 in leap years: years >= 0 divisible by 4), Festival 2 (intercalary: outside the week),
// Bloom 30. Five weekdays; day 0 (0-1-1) is weekday 2. Year 0 is a leap year of 91 days, 89 of
// them in the week.
func fullBody() map[string]any {
	return map[string]any{
		"name": "Harptos", "type": "Solar", "entry": "<p>The <b>reckoning</b></p>", "tags": []any{3, 1},
		"month_name": []any{"Ice", "Thaw", "Festival", "Bloom"}, "month_length": []any{30, 28, 2, 30},
		"month_type":  []any{"standard", "standard", "intercalary", nil},
		"weekday":     []any{"One", "Two", "Three", "Four", "Five"},
		"year_number": []any{1, -4}, "year_name": []any{"Year of Mist", "Year of Ash"},
		"season_name": []any{"Spring", "Winter"}, "season_month": []any{2, 4}, "season_day": []any{15, 10},
		"moon_name": []any{"Selune", "Tiny"}, "moon_fullmoon": []any{29.5, "2.50"}, "moon_offset": []any{nil, -1},
		"moon_colour": []any{"white", "red"}, "moon_id": []any{nil, 7},
		"epoch_name":   []any{"Before", "After"},
		"current_year": 4, "current_month": 2, "current_day": 28,
		"has_leap_year": true, "leap_year_amount": 1, "leap_year_month": 2, "leap_year_offset": 4, "leap_year_start": 0,
		"start_offset": 2, "suffix": "DR", "skip_year_zero": false,
	}
}

func create(t testing.TB, e *apitest.Env, cid int64, token string, body map[string]any) int64 {
	t.Helper()
	e.EnsureBodyTags(cid, body)
	r := e.Do("POST", apitest.Path(cid, "/calendars"), token, body)
	if r.Status != 200 {
		t.Fatalf("create %v: %d %s", body["name"], r.Status, r.Raw)
	}
	return int64(r.Data()["id"].(float64))
}

func cal(cid, id int64) string { return apitest.Path(cid, fmt.Sprintf("/calendars/%d", id)) }

// total is the admin's exact count of the campaign's calendars.
func total(t *testing.T, e *apitest.Env, cid int64) float64 {
	t.Helper()
	r := e.Do("GET", apitest.Path(cid, "/calendars"), e.Admin, nil)
	return r.Body["meta"].(map[string]any)["total"].(float64)
}

// jsonOf renders a decoded JSON value compactly for comparisons.
func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// register mounts the family: the calendars, their day view, their Fantasy-Calendar transfer
// and their manual weather, as lorekeep serve does (on Lambda they are four functions).
func register(api *httpapi.API, st *store.Store) {
	calendars.Register(api, st)
	calendardays.Register(api, st)
	transfer.Register(api, st)
	calendarweather.Register(api, st)
}
