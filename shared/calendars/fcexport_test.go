package calendars_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// remindersOf is calendar id's reminders as the admin's store list reads them, each as
// "name start recurrence colour private comment", in id order.
func remindersOf(t *testing.T, e *apitest.Env, id int64) []string {
	t.Helper()
	a := domain.Access{CampaignID: e.Campaign, UserID: e.AdminID, Role: domain.RoleAdmin}
	page, err := eventstore.New(e.Store).ListReminders(context.Background(), e.Campaign, id, a, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, ev := range page.Items {
		rec := ev.Recurrence.Periodicity()
		if ev.Rule != nil {
			rec = ev.Rule.String()
		}
		until := ""
		if ev.RecurringUntil != nil {
			until = " until " + jsonOf(*ev.RecurringUntil)
		}
		out = append(out, strings.Join([]string{ev.Name, ev.Date.String(), jsonOf(ev.Length), rec + until, ev.Colour, jsonOf(ev.IsPrivate), ev.Comment}, " | "))
	}
	return out
}

// presetHolidays are holidays as Fantasy-Calendar's presets write them: fixed days of the
// year with categories (one hidden) and colours, a one-off date, and the recurrences the
// import maps.
const presetHolidays = `{"categories":[{"id":1,"name":"Holiday","event_settings":{"color":"Green","hide":false}},{"id":2,"name":"Secret","event_settings":{"color":"Red","hide":true}}],"events":[
	{"name":"New Dawn","description":"<p>the first day</p>","event_category_id":1,"data":{"conditions":[["Month","0",["0"]],["&&"],["Day","0",["1"]]]},"settings":{"color":"Blue"}},
	{"name":"Harvest","event_category_id":1,"data":{"has_duration":true,"duration":3,"conditions":[["Month","0",["8"]],["&&"],["Day","0",["20"]]]}},
	{"name":"Conclave","event_category_id":2,"data":{"conditions":[["Month","0",["5"]],["&&"],["Day","0",["6"]]]}},
	{"name":"The Battle","data":{"conditions":[["Date","0",[2001,4,9]]]}},
	{"name":"Market","data":{"conditions":[["Day","0",["15"]]]}},
	{"name":"Second Tuesday","data":{"conditions":[["Weekday","0",["Tuesday"]],["&&"],["Weekday","8",["2"]]]}},
	{"name":"Last Friday","data":{"conditions":[["Weekday","0",["4"]],["&&"],["Weekday","14",["1"]]]}},
	{"name":"Leap Feast","data":{"limited_repeat":true,"limited_repeat_num":10,"conditions":[["Year","6",["4","0"]],["&&"],["Month","0",["1"]],["&&"],["Day","0",["29"]]]}},
	{"name":"Full Moon","data":{"conditions":[["Moons","0",["0","12"]]]}},
	{"name":"Jubilee","data":{"conditions":[["Year","2",["1990"]],["&&"],["Year","3",["2100"]],["&&"],["Month","0",["6"]],["&&"],["Day","0",["4"]]]}}]}`

// TestExportWritesRemindersAsEvents: the export writes the calendar's reminders (those the
// import made of each preset's holidays) back as Fantasy-Calendar events beside static_data,
// so that importing the export, enveloped or as the bare file (?format=fantasy-calendar),
// stores the same reminders; a viewer's export leaves out what the viewer may not see.
func TestExportWritesRemindersAsEvents(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	for _, preset := range []string{"gregorian", "exandria", "forgotten-realms"} {
		t.Run(preset, func(t *testing.T) {
			r := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, fcPreset(t, preset, presetHolidays))
			if r.Status != 200 {
				t.Fatalf("import: %d %s", r.Status, r.Raw)
			}
			id := int64(r.Data()["id"].(float64))
			want := remindersOf(t, e, id)
			if len(want) < 6 { // Harptos lacks some days and weekdays of the others

				t.Fatalf("imported reminders: %v (warnings %s)", want, jsonOf(r.Data()["warnings"]))
			}
			e.Counter.Reset()
			ex := e.Do("GET", cal(e.Campaign, id)+"/export", e.Admin, nil)
			if ex.Status != 200 {
				t.Fatalf("export: %d %s", ex.Status, ex.Raw)
			}
			// The calendar and its reminders' counts with the access, then the reminders.
			if n := e.Counter.N(); n > 1+2 {
				t.Errorf("export: %d DynamoDB calls, budget 3", n)
			}
			d := ex.Data()
			events, _ := d["events"].([]any)
			cats := map[string]bool{}
			for _, w := range want {
				if _, rest, ok := strings.Cut(w, "<p>Category: "); ok {
					cats[strings.SplitN(rest, "<", 2)[0]] = true
				}
			}
			if len(events) != len(want) || len(d["categories"].([]any)) != len(cats) {
				t.Fatalf("exported events %d (want %d), categories %s", len(events), len(want), jsonOf(d["categories"]))
			}
			for _, body := range []map[string]any{d, nil} {
				if body == nil { // the bare file
					bare := e.Do("GET", cal(e.Campaign, id)+"/export?format=fantasy-calendar", e.Admin, nil)
					if bare.Status != 200 || bare.Body["data"] != nil || bare.Body["warnings"] != nil || len(bare.Body["events"].([]any)) != len(want) ||
						jsonOf(bare.Body["static_data"]) != jsonOf(d["static_data"]) {
						t.Fatalf("bare export: %d %.400s", bare.Status, bare.Raw)
					}
					body = bare.Body
				}
				again := e.Do("POST", apitest.Path(e.Campaign, "/calendars/import"), e.Admin, body)
				if again.Status != 200 {
					t.Fatalf("import of the export: %d %s", again.Status, again.Raw)
				}
				if got := remindersOf(t, e, int64(again.Data()["id"].(float64))); !reflect.DeepEqual(got, want) {
					t.Errorf("reminders after the round trip:\n got %q\nwant %q", got, want)
				}
			}
			// A member does not see the hidden category's reminder: neither does its export.
			hidden := 0
			for _, w := range want {
				if strings.Contains(w, " | true | ") {
					hidden++
				}
			}
			if m := e.Do("GET", cal(e.Campaign, id)+"/export", e.Member, nil); m.Status != 200 || len(m.Data()["events"].([]any)) != len(want)-hidden ||
				strings.Contains(string(m.Raw), "Conclave") {
				t.Errorf("member's export: %d %d events", m.Status, len(m.Data()["events"].([]any)))
			}
		})
	}
	if r := e.Do("GET", cal(e.Campaign, 1)+"/export?format=xml", e.Admin, nil); r.Status != 422 || r.Errors()["format"] == nil {
		t.Errorf("unknown format: %d %s", r.Status, r.Raw)
	}
}
