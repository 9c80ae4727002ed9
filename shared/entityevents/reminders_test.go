package entityevents_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Kanka today (DESIGN.md 9): an entity's events are its reminders, and a calendar lists the
// reminders dated on it.

func remindersOf(cid, eid int64) string {
	return apitest.Path(cid, fmt.Sprintf("/entities/%d/reminders", eid))
}

var visibilityIDs = map[string]int{"all": 1, "admin": 2, "self-admin": 3, "self": 4, "member": 5}

func TestReminderVisibilityMatrix(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	cals := map[int64]int64{}
	for _, cid := range []int64{e.Campaign, e.PublicCampaign} {
		cals[cid], _ = makeCalendar(t, e, cid, calendarBody())
	}
	var campaign int64
	apitest.VisibilityMatrix(t, e, apitest.Family{
		Entity:     func(t *testing.T, cid int64) int64 { campaign = cid; return makeEntity(t, e, cid, false) },
		Collection: remindersOf,
		// Kanka's body: visibility_id, no name, no length.
		Body: func(vis string) map[string]any {
			return map[string]any{"visibility_id": visibilityIDs[vis], "calendar_id": cals[campaign], "day": 1, "month": 1, "year": 100}
		},
		Exists: func(cid, eid, id int64) bool {
			_, _, err := eventstore.New(e.Store).GetEventAndEntity(context.Background(), cid, eid, id)
			return err == nil
		},
	})
}

func TestRemindersAreTheEntityEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Made as a reminder: Kanka's body and shape.
	r := f.Do("POST", remindersOf(f.Campaign, f.entity), f.Member, map[string]any{
		"calendar_id": f.cal, "day": 3, "month": 2, "year": 99, "recurring_periodicity": "month", "visibility_id": 5, "type_id": 5,
	})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	want := map[string]any{"remindable_id": float64(f.entity), "remindable_type": `App\Models\Entity`, "calendar_id": float64(f.cal),
		"name": nil, "length": float64(1), "date": "99-2-3", "recurring_periodicity": "month", "is_recurring": true,
		"visibility_id": float64(5), "visibility": "member", "type_id": float64(5), "created_by": float64(f.MemberID)}
	for k, v := range want {
		if r.Data()[k] != v {
			t.Errorf("reminder %s = %v, want %v", k, r.Data()[k], v)
		}
	}
	id := int64(r.Data()["id"].(float64))
	// The same record through the 2022 route, in the spec's spelling.
	old := f.Do("GET", fmt.Sprintf("%s/%d", eventsOf(f.Campaign, f.entity), id), f.Member, nil)
	if old.Status != 200 || old.Data()["recurring_periodicity"] != "monthly" || old.Data()["entity_id"] != float64(f.entity) ||
		old.Data()["visibility"] != "member" || old.Data()["visibility_id"] != float64(5) {
		t.Fatalf("as an entity event: %d %s", old.Status, old.Raw)
	}
	// A 2022 update of a nameless reminder needs no name; the reminder follows.
	if u := f.Do("PATCH", fmt.Sprintf("%s/%d", eventsOf(f.Campaign, f.entity), id), f.Member, map[string]any{"comment": "bells"}); u.Status != 200 {
		t.Fatalf("2022 patch: %d %s", u.Status, u.Raw)
	}
	// And an entity event shows up among the reminders, yearly spelled "year".
	made := f.create(t, f.entity, f.Admin, f.event("recurring_periodicity", "yearly", "moon", nil))
	l := f.Do("GET", remindersOf(f.Campaign, f.entity), f.Member, nil)
	if l.Status != 200 || len(l.List()) != 2 {
		t.Fatalf("list: %d %s", l.Status, l.Raw)
	}
	first, second := l.List()[0].(map[string]any), l.List()[1].(map[string]any)
	if first["comment"] != "bells" || second["id"] != made["id"] || second["recurring_periodicity"] != "year" {
		t.Errorf("listed reminders = %v", l.List())
	}
	// Moon recurrences are spelled alike in both eras.
	moon := f.Do("PATCH", fmt.Sprintf("%s/%d", remindersOf(f.Campaign, f.entity), id), f.Member, map[string]any{"recurring_periodicity": "1_f"})
	if moon.Status != 200 || moon.Data()["recurring_periodicity"] != "1_f" {
		t.Errorf("moon reminder: %d %s", moon.Status, moon.Raw)
	}
	// Delete answers 200 and removes the event.
	d := f.Do("DELETE", fmt.Sprintf("%s/%d", remindersOf(f.Campaign, f.entity), id), f.Member, nil)
	if d.Status != 200 || d.Data()["deleted"] != true || d.Data()["id"] != float64(id) {
		t.Fatalf("delete: %d %s", d.Status, d.Raw)
	}
	if _, _, err := eventstore.New(f.Store).GetEventAndEntity(context.Background(), f.Campaign, f.entity, id); !errors.Is(err, apperr.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
}

func TestReminderValidationNamesTheField(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	base := map[string]any{"calendar_id": f.cal, "day": 1, "month": 1, "year": 100}
	with := func(k string, v any) map[string]any {
		b := map[string]any{}
		for x, y := range base {
			b[x] = y
		}
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
		return b
	}
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no calendar", with("calendar_id", nil), "calendar_id"},
		{"calendar of another campaign", with("calendar_id", 999), "calendar_id"},
		{"no day", with("day", nil), "day"},
		{"day beyond the month", with("day", 40), "day"},
		{"length zero", with("length", 0), "length"},
		{"unknown visibility id", with("visibility_id", 9), "visibility_id"},
		{"unknown periodicity", with("recurring_periodicity", "weekly"), "recurring_periodicity"},
		{"unknown type", with("type_id", 6), "type_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := f.Do("POST", remindersOf(f.Campaign, f.entity), f.Member, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("%d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if l := f.Do("GET", remindersOf(f.Campaign, f.entity), f.Admin, nil); len(l.List()) != 0 {
		t.Errorf("refused creates stored %v", l.List())
	}
}

func TestReminderRoutesHeadMethodsAndHiddenParents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.Do("POST", remindersOf(f.Campaign, f.entity), f.Admin, map[string]any{"calendar_id": f.cal, "day": 1, "month": 1, "year": 100}).Data()["id"]
	item := fmt.Sprintf("%s/%v", remindersOf(f.Campaign, f.entity), id)
	onCal := apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d/reminders", f.cal))
	for path, allow := range map[string]string{
		remindersOf(f.Campaign, f.entity): "GET, HEAD, OPTIONS, POST",
		item:                              "DELETE, GET, HEAD, OPTIONS, PATCH, PUT",
		onCal:                             "GET, HEAD, OPTIONS",
	} {
		if h := f.Do("HEAD", path, f.Member, nil); h.Status != 200 || len(h.Raw) != 0 {
			t.Errorf("HEAD %s: %d %q", path, h.Status, h.Raw)
		}
		r := f.Do("TRACE", path, f.Member, nil)
		if r.Status != 405 || r.Header.Get("Allow") != allow {
			t.Errorf("TRACE %s: %d Allow %q, want 405 %q", path, r.Status, r.Header.Get("Allow"), allow)
		}
	}
	// A viewer reads but may not write.
	if r := f.Do("POST", remindersOf(f.Campaign, f.entity), f.Viewer, map[string]any{"calendar_id": f.cal, "day": 1, "month": 1, "year": 1}); r.Status != 403 {
		t.Errorf("viewer create: %d", r.Status)
	}
	// Reminders of a hidden entity, or under another campaign's ids, are 404s.
	hidden := makeEntity(t, f.Env, f.Campaign, true)
	f.Do("POST", remindersOf(f.Campaign, hidden), f.Admin, map[string]any{"calendar_id": f.cal, "day": 1, "month": 1, "year": 100})
	for _, p := range []string{remindersOf(f.Campaign, hidden), remindersOf(f.OtherCampaign, f.entity), item + "0",
		fmt.Sprintf("%s/%v", remindersOf(f.Campaign, f.calEntity), id)} {
		if r := f.Do("GET", p, f.Member, nil); r.Status != 404 {
			t.Errorf("GET %s: %d, want 404", p, r.Status)
		}
	}
}

func TestCalendarRemindersShowWhatTheCallerMaySee(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hidden := makeEntity(t, f.Env, f.Campaign, true)
	mk := func(eid int64, token string, body map[string]any) int64 {
		t.Helper()
		body["calendar_id"], body["day"], body["month"], body["year"] = f.cal, 1, 1, 100
		r := f.Do("POST", remindersOf(f.Campaign, eid), token, body)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		return int64(r.Data()["id"].(float64))
	}
	open := mk(f.entity, f.Admin, map[string]any{})
	onCalendarEntity := mk(f.calEntity, f.Member, map[string]any{})
	private := mk(f.entity, f.Admin, map[string]any{"is_private": true})
	adminOnly := mk(f.entity, f.Admin, map[string]any{"visibility_id": 2})
	ofHidden := mk(hidden, f.Admin, map[string]any{})
	mine := mk(f.entity, f.Member, map[string]any{"visibility_id": 4})
	// Another calendar's reminder is not listed.
	other, _ := makeCalendar(t, f.Env, f.Campaign, calendarBody())
	f.Do("POST", remindersOf(f.Campaign, f.entity), f.Admin, map[string]any{"calendar_id": other, "day": 1, "month": 1, "year": 1})

	path := apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d/reminders", f.cal))
	for _, c := range []struct {
		name  string
		token string
		want  []int64
	}{
		{"admin", f.Admin, []int64{open, onCalendarEntity, private, adminOnly, ofHidden}},
		{"member who made one for themselves", f.Member, []int64{open, onCalendarEntity, mine}},
		{"viewer", f.Viewer, []int64{open, onCalendarEntity}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := f.Do("GET", path, c.token, nil)
			var got []int64
			for _, it := range r.List() {
				got = append(got, int64(it.(map[string]any)["id"].(float64)))
			}
			if r.Status != 200 || !slices.Equal(got, c.want) || r.Body["meta"].(map[string]any)["total"] != float64(len(c.want)) {
				t.Fatalf("%d %s, want ids %v", r.Status, r.Raw, c.want)
			}
		})
	}
	// Pages by number.
	r := f.Do("GET", path+"?limit=2&page=3", f.Admin, nil)
	if r.Status != 200 || len(r.List()) != 1 || r.List()[0].(map[string]any)["id"] != float64(ofHidden) || r.Body["links"].(map[string]any)["next"] != nil {
		t.Errorf("page 3 of 2: %d %s", r.Status, r.Raw)
	}
	r = f.Do("GET", path+"?limit=2&page=1", f.Admin, nil)
	if next, _ := r.Body["links"].(map[string]any)["next"].(string); next == "" {
		t.Errorf("page 1 of 2 has no next link: %s", r.Raw)
	}
	// A private calendar, a missing one and another campaign's are 404s for a member.
	privCal, _ := makeCalendar(t, f.Env, f.Campaign, func() map[string]any { b := calendarBody(); b["is_private"] = true; return b }())
	otherCal, _ := makeCalendar(t, f.Env, f.OtherCampaign, calendarBody())
	for _, p := range []string{
		apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d/reminders", privCal)),
		apitest.Path(f.Campaign, "/calendars/999/reminders"),
		apitest.Path(f.OtherCampaign, fmt.Sprintf("/calendars/%d/reminders", otherCal)),
	} {
		if r := f.Do("GET", p, f.Member, nil); r.Status != 404 {
			t.Errorf("GET %s: %d, want 404", p, r.Status)
		}
	}
}

// TestReminderRoundTrips holds reminders to the entity events' budgets; a calendar's reminders
// read the calendar ahead with the access, then the calendar index and one batch of entities.
func TestReminderRoundTrips(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.Do("POST", remindersOf(f.Campaign, f.entity), f.Admin, map[string]any{"calendar_id": f.cal, "day": 1, "month": 1, "year": 100}).Data()["id"]
	item := fmt.Sprintf("%s/%v", remindersOf(f.Campaign, f.entity), id)
	for _, c := range []struct {
		name, method, path string
		body               any
		max                int64
	}{
		{"show", "GET", item, nil, 1},
		{"list page", "GET", remindersOf(f.Campaign, f.entity), nil, 2},
		{"create (entity read ahead; calendar, ids, write)", "POST", remindersOf(f.Campaign, f.entity), map[string]any{"calendar_id": f.cal, "day": 2, "month": 1, "year": 100}, 4},
		{"update", "PATCH", item, map[string]any{"comment": "x"}, 2},
		{"calendar's reminders (calendar read ahead; index, entities)", "GET", apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d/reminders", f.cal)), nil, 3},
		{"delete", "DELETE", item, nil, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.Counter.Reset()
			if r := f.Do(c.method, c.path, f.Admin, c.body); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := f.Counter.N(); n > c.max || n == 0 {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
		})
	}
}

// TestAgesCountFromAFounding: a founding (type_id 5) is a birth for ages (DESIGN.md 9).
func TestAgesCountFromAFounding(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// The calendar's current date is 100-2-10: founded on 60-2-11, the town is 39.
	f.Do("POST", remindersOf(f.Campaign, f.entity), f.Admin, map[string]any{"calendar_id": f.cal, "type_id": 5, "day": 11, "month": 2, "year": 60})
	r := f.Do("GET", apitest.Path(f.Campaign, fmt.Sprintf("/entities/%d/ages", f.entity)), f.Member, nil)
	if r.Status != 200 || len(r.List()) != 1 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	a := r.List()[0].(map[string]any)
	if a["birth"] != "60-2-11" || a["age"] != float64(39) || a["death"] != nil {
		t.Errorf("age from a founding = %v", a)
	}
	// A calendar date (type 4) is no birth.
	other := makeEntity(t, f.Env, f.Campaign, false)
	f.Do("POST", remindersOf(f.Campaign, other), f.Admin, map[string]any{"calendar_id": f.cal, "type_id": 4, "day": 1, "month": 1, "year": 1})
	if r := f.Do("GET", apitest.Path(f.Campaign, fmt.Sprintf("/entities/%d/ages", other)), f.Member, nil); r.Status != 200 || len(r.List()) != 0 {
		t.Errorf("ages from a calendar date: %d %s", r.Status, r.Raw)
	}
}
