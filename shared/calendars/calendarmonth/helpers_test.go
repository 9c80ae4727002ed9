package calendarmonth_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarmonth"
	"github.com/lorekeep/lorekeep/shared/entityevents"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// testKey signs the tests' share links.
var testKey = []byte("0123456789abcdef0123456789abcdef-test")

func register(api *httpapi.API, st *store.Store) {
	calendars.Register(api, st)
	entityevents.Register(api, st)
	calendarmonth.Register(api, st, testKey)
}

// harptos: Ice 30, Thaw 28 (29 in leap years), Festival 2 (intercalary, outside the week),
// Bloom 30; five weekdays; two moons; the current date 4-2-28.
func harptos() map[string]any {
	return map[string]any{
		"name":       "Harptos <script>alert(1)</script>",
		"month_name": []any{"Ice", "Thaw", "Festival", "Bloom"}, "month_length": []any{30, 28, 2, 30},
		"month_type":  []any{"standard", "standard", "intercalary", nil},
		"weekday":     []any{"One", "Two", "Three", "Four", "Five"},
		"year_number": []any{4}, "year_name": []any{"Year of Mist"},
		"season_name": []any{"Spring", "Winter"}, "season_month": []any{2, 4}, "season_day": []any{15, 10},
		"moon_name": []any{"Selune", "Tiny"}, "moon_fullmoon": []any{29.5, "2.50"}, "moon_offset": []any{nil, -1},
		"moon_colour":  []any{"white", "red"},
		"current_year": 4, "current_month": 2, "current_day": 28,
		"has_leap_year": true, "leap_year_amount": 1, "leap_year_month": 2, "leap_year_offset": 4, "leap_year_start": 0,
		"suffix": "DR",
	}
}

type fixture struct {
	*apitest.Env
	cid, id int64
	entity  float64
}

// newFixture makes a calendar in cid with an event of each audience in Thaw 4: "Fair" (all),
// "Guild" (members), "Council" (admins), "Plot" (private).
func newFixture(t *testing.T, e *apitest.Env, cid int64, body map[string]any) fixture {
	t.Helper()
	r := e.Do("POST", apitest.Path(cid, "/calendars"), e.Admin, body)
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	f := fixture{Env: e, cid: cid, id: int64(r.Data()["id"].(float64)), entity: r.Data()["entity_id"].(float64)}
	for _, ev := range []map[string]any{
		{"name": "Fair <b>day</b>", "colour": "#1e90ff", "day": 5, "length": 2},
		{"name": "Guild", "colour": "green", "visibility_id": 5, "day": 6, "length": 1},
		{"name": "Council", "colour": "red", "visibility_id": 2, "day": 7, "length": 1},
		{"name": "Plot", "is_private": true, "day": 8, "length": 1},
	} {
		ev["calendar_id"], ev["month"], ev["year"] = f.id, 2, 4
		if r := e.Do("POST", apitest.Path(cid, fmt.Sprintf("/entities/%v/entity_events", f.entity)), e.Admin, ev); r.Status != 200 {
			t.Fatalf("event %v: %d %s", ev["name"], r.Status, r.Raw)
		}
	}
	return f
}

func (f fixture) path(rest string) string {
	return apitest.Path(f.cid, fmt.Sprintf("/calendars/%d%s", f.id, rest))
}

// page GETs path (on the test server) as a browser would, with token when given.
func page(t *testing.T, e *apitest.Env, path, token string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", e.Server.URL+path, nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	apitest.CheckOpenAPI(t, req, res.StatusCode, res.Header, b)
	return res, string(b)
}

// share makes a share link and answers its URL's path.
func (f fixture) share(t *testing.T, body map[string]any) (int64, string) {
	t.Helper()
	r := f.Do("POST", f.path("/share_links"), f.Admin, body)
	if r.Status != 200 {
		t.Fatalf("share: %d %s", r.Status, r.Raw)
	}
	u := r.Data()["url"].(string)
	return int64(r.Data()["id"].(float64)), strings.TrimPrefix(u, f.Server.URL)
}

// eventNames are the event names of a JSON month, in order.
func eventNames(month map[string]any) []string {
	var out []string
	b, _ := json.Marshal(month["weeks"])
	var weeks []struct {
		Cells, Outside []*struct {
			Events []struct{ Name string }
		}
	}
	_ = json.Unmarshal(b, &weeks)
	for _, w := range weeks {
		for _, d := range append(w.Cells, w.Outside...) {
			if d != nil {
				for _, e := range d.Events {
					out = append(out, e.Name)
				}
			}
		}
	}
	return out
}

// arr is a JSON array, empty when absent.
func arr(v any) []any { a, _ := v.([]any); return a }
