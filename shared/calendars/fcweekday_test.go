package calendars_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// fcPreset reads one of Fantasy-Calendar's presets (copies in the engine's testdata) with its
// event_data replaced by events (JSON), as a body for POST calendars/import.
func fcPreset(t *testing.T, name, events string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("../calengine/testdata/fantasy-calendar-preset-" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	if events != "" {
		var ed any
		if err := json.Unmarshal([]byte(events), &ed); err != nil {
			t.Fatal(err)
		}
		body["static_data"].(map[string]any)["event_data"] = ed
	}
	return body
}

// dayEvents is the day view's "date name" entries of [from, to] as token sees them.
func dayEvents(t *testing.T, e *apitest.Env, id int64, token, from, to string) []string {
	t.Helper()
	r := e.Do("GET", cal(e.Campaign, id)+"/days?from="+from+"&to="+to, token, nil)
	if r.Status != 200 {
		t.Fatalf("days: %d %s", r.Status, r.Raw)
	}
	var got []string
	for _, d := range r.List() {
		day := d.(map[string]any)
		for _, ev := range day["events"].([]any) {
			got = append(got, day["date"].(string)+" "+ev.(map[string]any)["name"].(string))
		}
	}
	sort.Strings(got)
	return got
}

// TestImportedWeekdayEventsOccur: Fantasy-Calendar's "nth weekday of the month" (Weekday 0, the
// weekday, by name or, as Fantasy-Calendar reads a number, by its index in the global week, and
// Weekday 8, its count in the month) and "nth weekday before the month's end" (Weekday 14, 1 the
// last) are reminders that the day view shows on the right days of the Gregorian preset, stored
// as weekday_of_month rules (a negative ordinal counts from the month's end).
func TestImportedWeekdayEventsOccur(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	body := fcPreset(t, "gregorian", `{"categories":[],"events":[
		{"name":"Second Tuesday","data":{"conditions":[["Weekday","0",["1"]],["&&"],["Weekday","8",[2]]]}},
		{"name":"Named Tuesday","data":{"conditions":[["Weekday","0",["Tuesday"]],["&&"],["Weekday","8",["2"]]]}},
		{"name":"Last Friday","data":{"conditions":[["Weekday","0",["Friday"]],["&&"],["Weekday","14",["1"]]]}},
		{"name":"Penultimate Friday","data":{"conditions":[["Weekday","0",["4"]],["&&"],["Weekday","14",["2"]]]}},
		{"name":"Thanksgiving","data":{"conditions":[["Month","0",["10"]],["&&"],["Weekday","0",["Thursday"]],["&&"],["Weekday","8",["4"]]]}}]}`)
	r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, body)
	if r.Status != 200 {
		t.Fatalf("import: %d %s", r.Status, r.Raw)
	}
	if w := jsonOf(r.Data()["warnings"]); strings.Contains(w, "Event ") {
		t.Fatalf("warnings: %s", w)
	}
	id := int64(r.Data()["id"].(float64))
	// 2020: January 14 and February 11 are the second Tuesdays; January 31 and February 28
	// the last Fridays, January 24 and February 21 the ones before; Thanksgiving November 26.
	cases := []struct {
		from, to string
		want     []string
	}{
		{"2020-1-1", "2020-2-29", []string{
			"2020-1-14 Named Tuesday", "2020-1-14 Second Tuesday", "2020-1-24 Penultimate Friday", "2020-1-31 Last Friday",
			"2020-2-11 Named Tuesday", "2020-2-11 Second Tuesday", "2020-2-21 Penultimate Friday", "2020-2-28 Last Friday"}},
		{"2020-11-20", "2020-11-30", []string{"2020-11-20 Penultimate Friday", "2020-11-26 Thanksgiving", "2020-11-27 Last Friday"}},
		{"2021-11-1", "2021-11-30", []string{"2021-11-9 Named Tuesday", "2021-11-9 Second Tuesday", "2021-11-19 Penultimate Friday",
			"2021-11-25 Thanksgiving", "2021-11-26 Last Friday"}},
	}
	for _, tc := range cases {
		sort.Strings(tc.want)
		if got := dayEvents(t, e, id, e.Member, tc.from, tc.to); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s..%s: %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
	// Stored: weekday_of_month rules, Thanksgiving once a year (every 12th month from November).
	a := domain.Access{CampaignID: e.Campaign, UserID: e.AdminID, Role: domain.RoleAdmin}
	page, err := eventstore.New(e.Store).ListReminders(context.Background(), e.Campaign, id, a, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, ev := range page.Items {
		if ev.Rule != nil {
			rules[ev.Name] = ev.Date.String() + " " + ev.Rule.String()
		}
	}
	want := map[string]string{
		"Second Tuesday": "1-1-1 weekday_of_month/1;weekday=1;ordinal=2", "Named Tuesday": "1-1-1 weekday_of_month/1;weekday=1;ordinal=2",
		"Last Friday": "1-1-1 weekday_of_month/1;weekday=4;ordinal=-1", "Penultimate Friday": "1-1-1 weekday_of_month/1;weekday=4;ordinal=-2",
		"Thanksgiving": "1-11-1 weekday_of_month/12;weekday=3;ordinal=4",
	}
	if !reflect.DeepEqual(rules, want) {
		t.Errorf("stored rules %v, want %v", rules, want)
	}
}
