package calendars_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func weatherPath(cid, calID int64, tail string) string {
	return cal(cid, calID) + "/calendar_weather" + tail
}

func weatherBody(date string, kv ...any) map[string]any {
	var y, m, d int
	fmt.Sscanf(date, "%d-%d-%d", &y, &m, &d)
	return with(map[string]any{"year": y, "month": m, "day": d, "weather": "rain"}, kv...)
}

// auditClean fails the test on any invariant the store's audit finds broken.
func auditClean(t *testing.T, e *apitest.Env, cid int64) {
	t.Helper()
	if problems, err := ops.Audit(context.Background(), e.Store, cid); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", problems, err)
	}
}

// TestCalendarWeatherCRUD: Kanka's fields and shape, stored as sent, and the day view showing
// the manual weather instead of the procedural one on its day only.
func TestCalendarWeatherCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, with(fullBody(), "weather_climate", climate(), "weather_seed", 7))
	r := e.Do("POST", weatherPath(e.Campaign, id, ""), e.Member, weatherBody("4-2-29", "temperature", " Cold ", "precipitation", "Heavy",
		"wind", "North", "effect", "<b>Ships</b> stay", "name", "Storm", "visibility_id", 5))
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	w := r.Data()
	want := map[string]any{"calendar_id": float64(id), "year": 4.0, "month": 2.0, "day": 29.0, "weather": "rain", "temperature": "Cold",
		"precipitation": "Heavy", "wind": "North", "effect": "<b>Ships</b> stay", "name": "Storm", "visibility": "member", "visibility_id": 5.0}
	for k, v := range want {
		if w[k] != v {
			t.Errorf("created %s = %v, want %v", k, w[k], v)
		}
	}
	wid := int64(w["id"].(float64))
	if got := e.Do("GET", weatherPath(e.Campaign, id, fmt.Sprintf("/%d", wid)), e.Viewer, nil); got.Status != 200 || jsonOf(got.Data()) != jsonOf(w) {
		t.Errorf("show: %d %s, want %s", got.Status, got.Raw, jsonOf(w))
	}
	days := e.Do("GET", cal(e.Campaign, id)+"/days?from=4-2-28&to=4-3-1", e.Member, nil)
	if days.Status != 200 || len(days.List()) != 3 {
		t.Fatalf("days: %d %s", days.Status, days.Raw)
	}
	for i, d := range days.List() {
		day := d.(map[string]any)
		manual, _ := day["calendar_weather"].(map[string]any)
		if i == 1 {
			if manual == nil || manual["id"] != w["id"] || day["weather"] != nil {
				t.Errorf("day %v: calendar_weather %v weather %v, want the manual one alone", day["date"], day["calendar_weather"], day["weather"])
			}
		} else if manual != nil || day["weather"] == nil {
			t.Errorf("day %v: calendar_weather %v weather %v, want the procedural one alone", day["date"], day["calendar_weather"], day["weather"])
		}
	}
	// PATCH keeps what is not sent; a null text clears it.
	up := e.Do("PATCH", weatherPath(e.Campaign, id, fmt.Sprintf("/%d", wid)), e.Member, map[string]any{"weather": "snow", "wind": nil, "day": 1, "month": 4})
	if up.Status != 200 || up.Data()["weather"] != "snow" || up.Data()["wind"] != "" || up.Data()["temperature"] != "Cold" || up.Data()["day"] != 1.0 || up.Data()["month"] != 4.0 {
		t.Fatalf("update: %d %s", up.Status, up.Raw)
	}
	// The old day is free again; the new one is taken.
	if again := e.Do("POST", weatherPath(e.Campaign, id, ""), e.Member, weatherBody("4-2-29")); again.Status != 200 {
		t.Errorf("create on the freed day: %d %s", again.Status, again.Raw)
	}
	if dup := e.Do("POST", weatherPath(e.Campaign, id, ""), e.Member, weatherBody("4-4-1")); dup.Status != 422 || dup.Errors()["day"] == nil {
		t.Errorf("create on the moved-to day: %d %s, want 422 on day", dup.Status, dup.Raw)
	}
	auditClean(t, e, e.Campaign)
	if del := e.Do("DELETE", weatherPath(e.Campaign, id, fmt.Sprintf("/%d", wid)), e.Member, nil); del.Status != 200 {
		t.Fatalf("delete: %d %s", del.Status, del.Raw)
	}
	if got := e.Do("GET", weatherPath(e.Campaign, id, fmt.Sprintf("/%d", wid)), e.Admin, nil); got.Status != 404 {
		t.Errorf("show deleted: %d", got.Status)
	}
	if l := e.Do("GET", weatherPath(e.Campaign, id, ""), e.Admin, nil); len(l.List()) != 1 || l.Body["meta"].(map[string]any)["total"] != 1.0 {
		t.Errorf("list after delete: %s", l.Raw)
	}
	if g := e.Do("GET", weatherPath(e.Campaign, id, "?deleted=1"), e.Admin, nil); g.Status != 200 || len(g.List()) != 1 {
		t.Errorf("deleted list: %d %s, want the deleted weather", g.Status, g.Raw)
	}
	auditClean(t, e, e.Campaign)
	// A deleted (trashed) calendar's weather is not found; its partition, weather included,
	// goes with the trash's purge (kept until then for a restore).
	if del := e.Do("DELETE", cal(e.Campaign, id), e.Admin, nil); del.Status != 200 {
		t.Fatalf("delete calendar: %d %s", del.Status, del.Raw)
	}
	for _, p := range []string{"", "/1", fmt.Sprintf("/%d", wid)} {
		if got := e.Do("GET", weatherPath(e.Campaign, id, p), e.Admin, nil); got.Status != 404 {
			t.Errorf("GET %s of a deleted calendar: %d, want 404", p, got.Status)
		}
	}
	if got := e.Do("POST", weatherPath(e.Campaign, id, ""), e.Admin, weatherBody("4-1-1")); got.Status != 404 {
		t.Errorf("create under a deleted calendar: %d, want 404", got.Status)
	}
	ws, err := calstore.New(e.Store).DayWeatherBetween(context.Background(), e.Campaign, id, calengine.Date{Year: -1000, Month: 1, Day: 1}, calengine.Date{Year: 1000, Month: 1, Day: 1})
	if err != nil || len(ws) != 1 {
		t.Errorf("the trashed calendar's weather: %v %v, want the one kept for a restore", ws, err)
	}
	auditClean(t, e, e.Campaign)
}

// TestCalendarWeatherRefused: each bad input is a 422 naming its field, and nothing is written.
func TestCalendarWeatherRefused(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, fullBody())
	if r := e.Do("POST", weatherPath(e.Campaign, id, ""), e.Admin, weatherBody("5-1-1")); r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no weather", weatherBody("5-1-2", "weather", nil), "weather"},
		{"blank weather", weatherBody("5-1-2", "weather", "  "), "weather"},
		{"weather a number", weatherBody("5-1-2", "weather", 3), "weather"},
		{"weather too long", weatherBody("5-1-2", "weather", strings.Repeat("w", 192)), "weather"},
		{"temperature too long", weatherBody("5-1-2", "temperature", strings.Repeat("t", 192)), "temperature"},
		{"wind an object", weatherBody("5-1-2", "wind", map[string]any{"a": 1}), "wind"},
		{"name too long", weatherBody("5-1-2", "name", strings.Repeat("n", 41)), "name"},
		{"no year", weatherBody("5-1-2", "year", nil), "year"},
		{"no month", weatherBody("5-1-2", "month", nil), "month"},
		{"no day", weatherBody("5-1-2", "day", nil), "day"},
		{"year a string", weatherBody("5-1-2", "year", "five"), "year"},
		{"huge year", weatherBody("5-1-2", "year", 1e300), "year"},
		{"day 0", weatherBody("5-1-0"), "day"},
		{"no 29th of Thaw in a common year", weatherBody("5-2-29"), "day"},
		{"no fifth month", weatherBody("5-5-1"), "day"},
		{"a day past the month", weatherBody("5-1-31"), "day"},
		{"the day already has weather", weatherBody("5-1-1"), "day"},
		{"unknown visibility", weatherBody("5-1-2", "visibility_id", 9), "visibility_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", weatherPath(e.Campaign, id, ""), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if l := e.Do("GET", weatherPath(e.Campaign, id, ""), e.Admin, nil); l.Body["meta"].(map[string]any)["total"] != 1.0 {
		t.Errorf("a refused write left something: %s", l.Raw)
	}
	auditClean(t, e, e.Campaign)
}

// TestCalendarWeatherAccess: readers of the calendar read what the weather's visibility lets
// them see (show, list and day view alike); members write; a hidden calendar's weather, another
// campaign's and another calendar's are not found.
func TestCalendarWeatherAccess(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	open := create(t, e, e.Campaign, e.Admin, plainBody("Open"))
	hidden := create(t, e, e.Campaign, e.Admin, with(plainBody("Hidden"), "is_private", true))
	other := create(t, e, e.Campaign, e.Admin, plainBody("Other"))
	mk := func(calID int64, date string, kv ...any) int64 {
		r := e.Do("POST", weatherPath(e.Campaign, calID, ""), e.Admin, weatherBody(date, kv...))
		if r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		return int64(r.Data()["id"].(float64))
	}
	all := mk(open, "1-1-1")
	adminOnly := mk(open, "1-1-2", "visibility_id", 2)
	inHidden := mk(hidden, "1-1-1")
	show := func(calID, wid int64) string { return weatherPath(e.Campaign, calID, fmt.Sprintf("/%d", wid)) }
	cases := []struct {
		name                                            string
		token                                           string
		showAll, showAdmin, showHidden                  int
		listCount, daysManual, create, edit, editHidden int
	}{
		{"admin", e.Admin, 200, 200, 200, 2, 2, 200, 200, 200},
		{"member", e.Member, 200, 404, 404, 1, 1, 200, 200, 404},
		{"viewer", e.Viewer, 200, 404, 404, 1, 1, 403, 403, 403},
		{"outsider", e.Outsider, 404, 404, 404, -1, -1, 404, 404, 404},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, x := range []struct {
				what string
				got  int
				want int
			}{
				{"show all", e.Do("GET", show(open, all), c.token, nil).Status, c.showAll},
				{"show admin-only", e.Do("GET", show(open, adminOnly), c.token, nil).Status, c.showAdmin},
				{"show in hidden calendar", e.Do("GET", show(hidden, inHidden), c.token, nil).Status, c.showHidden},
				{"show under another calendar", e.Do("GET", show(other, all), c.token, nil).Status, 404},
				{"show under another campaign", e.Do("GET", weatherPath(e.PublicCampaign, open, fmt.Sprintf("/%d", all)), c.token, nil).Status, 404},
				{"create", e.Do("POST", weatherPath(e.Campaign, open, ""), c.token, weatherBody(fmt.Sprintf("2-1-%d", i+1))).Status, c.create},
				{"edit", e.Do("PATCH", show(open, all), c.token, map[string]any{"wind": "calm"}).Status, c.edit},
				{"edit in hidden calendar", e.Do("PATCH", show(hidden, inHidden), c.token, map[string]any{"wind": "calm"}).Status, c.editHidden},
			} {
				if x.got != x.want {
					t.Errorf("%s: got %d, want %d", x.what, x.got, x.want)
				}
			}
			l := e.Do("GET", weatherPath(e.Campaign, open, ""), c.token, nil)
			if c.listCount < 0 {
				if l.Status != 404 {
					t.Errorf("list: %d, want 404", l.Status)
				}
				return
			}
			n := 0
			for _, w := range l.List() {
				if d := w.(map[string]any)["year"]; d == 1.0 {
					n++
				}
			}
			if l.Status != 200 || n != c.listCount {
				t.Errorf("list: %d %s, want %d of year 1", l.Status, l.Raw, c.listCount)
			}
			days := e.Do("GET", cal(e.Campaign, open)+"/days?from=1-1-1&to=1-1-2", c.token, nil)
			m := 0
			for _, d := range days.List() {
				if d.(map[string]any)["calendar_weather"] != nil {
					m++
				}
			}
			if m != c.daysManual {
				t.Errorf("days: %d manual weathers, want %d: %s", m, c.daysManual, days.Raw)
			}
		})
	}
	// Refused writes changed nothing: the admin's edit is the only one.
	if _, w, err := calstore.New(e.Store).GetDayWeatherAndCalendar(context.Background(), e.Campaign, hidden, inHidden); err != nil || w.Version != 2 {
		t.Fatalf("hidden weather: %v", err)
	}
	auditClean(t, e, e.Campaign)
}

// TestCalendarWeatherRoundTrips: a show is one round trip after the access read (read ahead
// with it), a list page at most two more, a write one transaction.
func TestCalendarWeatherRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, fullBody())
	for i := 1; i <= 30; i++ {
		if r := e.Do("POST", weatherPath(e.Campaign, id, ""), e.Admin, weatherBody(fmt.Sprintf("4-1-%d", i))); r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
	}
	cases := []struct {
		name         string
		method, path string
		body         any
		max          int64
	}{
		{"show (read ahead with the access)", "GET", weatherPath(e.Campaign, id, "/1"), nil, 1},
		// The access with the calendar and the counts, the page's Query, the offset's counter
		// segments (as every list's page 2).
		{"list page 2", "GET", weatherPath(e.Campaign, id, "?page=2&limit=10"), nil, 1 + 2},
		{"create (its id, then one transaction)", "POST", weatherPath(e.Campaign, id, ""), weatherBody("4-2-1"), 1 + 2},
		{"update (one transaction)", "PATCH", weatherPath(e.Campaign, id, "/1"), map[string]any{"day": 3, "month": 2}, 1 + 1},
		{"delete (one transaction)", "DELETE", weatherPath(e.Campaign, id, "/2"), nil, 1 + 1},
		{"days (+1: the days' weather, one Query)", "GET", cal(e.Campaign, id) + "/days?from=4-1-1&to=4-2-28", nil, 1 + 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do(c.method, c.path, e.Admin, c.body)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := e.Counter.N(); n > c.max || n == 0 {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
		})
	}
	auditClean(t, e, e.Campaign)
}

// TestCalendarWeatherConcurrentDay: writers racing for one day get one weather; the others a
// 422 on day, nothing written.
func TestCalendarWeatherConcurrentDay(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, fullBody())
	const writers = 6
	statuses := make(chan int, writers)
	for i := range writers {
		go func() {
			statuses <- e.Do("POST", weatherPath(e.Campaign, id, ""), e.Member, weatherBody("4-1-9", "wind", fmt.Sprint(i))).Status
		}()
	}
	won := 0
	for range writers {
		switch s := <-statuses; s {
		case 200:
			won++
		case 422:
		default:
			t.Errorf("status %d, want 200 or 422", s)
		}
	}
	l := e.Do("GET", weatherPath(e.Campaign, id, ""), e.Admin, nil)
	if won != 1 || l.Body["meta"].(map[string]any)["total"] != 1.0 || len(l.List()) != 1 {
		t.Errorf("%d writers won; list %s, want one weather", won, l.Raw)
	}
	auditClean(t, e, e.Campaign)
}
