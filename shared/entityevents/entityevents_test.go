package entityevents_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entityevents"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func register(api *httpapi.API, st *store.Store) {
	locations.Register(api, st)
	calendars.Register(api, st)
	calendardays.Register(api, st)
	entityevents.Register(api, st)
}

// harptos-like test calendar: months of 31, 28 (+1 every 4 years from year 0) and 30 days, an
// intercalary day, a week of 7 and a moon of 10 days.
func calendarBody() map[string]any {
	return map[string]any{
		"name":       "Reckoning",
		"month_name": []string{"First", "Second", "Third", "Feast"}, "month_length": []int{31, 28, 30, 1},
		"month_type":    []string{"standard", "standard", "standard", "intercalary"},
		"weekday":       []string{"A", "B", "C", "D", "E", "F", "G"},
		"has_leap_year": true, "leap_year_amount": 1, "leap_year_month": 2, "leap_year_offset": 4, "leap_year_start": 0,
		"moon_name": []string{"Selune"}, "moon_fullmoon": []string{"10"},
		"current_year": 100, "current_month": 2, "current_day": 10,
	}
}

type fixture struct {
	*apitest.Env
	cal, calEntity, entity int64 // a calendar, its entity, a location's entity
}

func newFixture(t testing.TB) fixture {
	e := apitest.New(t, register)
	f := fixture{Env: e}
	f.cal, f.calEntity = makeCalendar(t, e, e.Campaign, calendarBody())
	f.entity = makeEntity(t, e, e.Campaign, false)
	return f
}

func makeCalendar(t testing.TB, e *apitest.Env, cid int64, body map[string]any) (id, entity int64) {
	t.Helper()
	token := e.Admin
	if cid == e.OtherCampaign {
		token = e.Stranger
	}
	r := e.Do("POST", apitest.Path(cid, "/calendars"), token, body)
	if r.Status != 200 {
		t.Fatalf("calendar: %d %s", r.Status, r.Raw)
	}
	return int64(r.Data()["id"].(float64)), int64(r.Data()["entity_id"].(float64))
}

func makeEntity(t testing.TB, e *apitest.Env, cid int64, private bool) int64 {
	t.Helper()
	l := domain.Location{Meta: domain.Meta{CampaignID: cid, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Hero", IsPrivate: private}}
	if err := locstore.New(e.Store).CreateLocation(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	return l.EntityID
}

func eventsOf(cid, eid int64) string {
	return apitest.Path(cid, fmt.Sprintf("/entities/%d/entity_events", eid))
}

func (f fixture) event(extra ...any) map[string]any {
	b := map[string]any{"name": "Feast", "calendar_id": f.cal, "day": 5, "month": 1, "year": 100, "length": 1}
	for i := 0; i < len(extra); i += 2 {
		if extra[i+1] == nil {
			delete(b, extra[i].(string))
		} else {
			b[extra[i].(string)] = extra[i+1]
		}
	}
	return b
}

func (f fixture) create(t *testing.T, eid int64, token string, body map[string]any) map[string]any {
	t.Helper()
	r := f.Do("POST", eventsOf(f.Campaign, eid), token, body)
	if r.Status != 200 {
		t.Fatalf("create event %v: %d %s", body, r.Status, r.Raw)
	}
	return r.Data()
}

func TestEventVisibilityMatrix(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	cals := map[int64]int64{}
	for _, cid := range []int64{e.Campaign, e.PublicCampaign} {
		cals[cid], _ = makeCalendar(t, e, cid, calendarBody())
	}
	var campaign int64
	apitest.VisibilityMatrix(t, e, apitest.Family{
		Entity:     func(t *testing.T, cid int64) int64 { campaign = cid; return makeEntity(t, e, cid, false) },
		Collection: eventsOf,
		Body: func(vis string) map[string]any {
			return map[string]any{"name": "E " + vis, "visibility": vis, "calendar_id": cals[campaign], "day": 1, "month": 1, "year": 100, "length": 1}
		},
		Exists: func(cid, eid, id int64) bool {
			_, _, err := eventstore.New(e.Store).GetEventAndEntity(context.Background(), cid, eid, id)
			return err == nil
		},
	})
}

func TestPrivateEventsAreForAdmins(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if r := f.Do("POST", eventsOf(f.Campaign, f.entity), f.Member, f.event("is_private", true)); r.Status != 403 {
		t.Fatalf("member creates a private event: %d", r.Status)
	}
	id := f.create(t, f.entity, f.Admin, f.event("is_private", true))["id"]
	one := fmt.Sprintf("%s/%v", eventsOf(f.Campaign, f.entity), id)
	for _, c := range []struct{ method, path string }{{"GET", one}, {"PATCH", one}, {"DELETE", one}} {
		if r := f.Do(c.method, c.path, f.Member, map[string]any{"name": "x"}); r.Status != 404 {
			t.Errorf("member %s: %d, want 404", c.method, r.Status)
		}
	}
	if r := f.Do("GET", eventsOf(f.Campaign, f.entity), f.Member, nil); len(r.List()) != 0 || r.Body["meta"].(map[string]any)["total"] != float64(0) {
		t.Fatalf("member list: %s", r.Raw)
	}
	if r := f.Do("GET", eventsOf(f.Campaign, f.entity), f.Admin, nil); len(r.List()) != 1 {
		t.Fatalf("admin list: %s", r.Raw)
	}
	// Events of a hidden entity are hidden with it.
	hidden := makeEntity(t, f.Env, f.Campaign, true)
	f.create(t, hidden, f.Admin, f.event())
	if r := f.Do("GET", eventsOf(f.Campaign, hidden), f.Member, nil); r.Status != 404 {
		t.Fatalf("events of a hidden entity: %d", r.Status)
	}
}

func TestEventFieldsRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := f.create(t, f.entity, f.Member, f.event("name", "Midsummer", "day", 29, "month", 2, "year", 104, "length", 3,
		"recurring_periodicity", "year", "recurring_until", 120, "colour", "#aa00cc", "comment", `<b>Dance</b><script>x()</script>`,
		"type_id", 2, "visibility_id", 3, "entity_id", 999))
	want := map[string]any{
		"name": "Midsummer", "date": "104-2-29", "day": float64(29), "month": float64(2), "year": float64(104), "length": float64(3),
		"is_recurring": true, "recurring_periodicity": "yearly", "recurring_until": float64(120), "colour": "#aa00cc",
		"comment": "<b>Dance</b>", "type_id": float64(2), "visibility": "self-admin", "is_private": false,
		"entity_id": float64(f.entity), "calendar_id": float64(f.cal), "created_by": float64(f.MemberID),
	}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %v, want %v", k, d[k], v)
		}
	}
	one := fmt.Sprintf("%s/%v", eventsOf(f.Campaign, f.entity), d["id"])
	// Clearing the recurrence clears recurring_until; other fields stay.
	r := f.Do("PATCH", one, f.Member, map[string]any{"recurring_periodicity": nil})
	if r.Status != 200 || r.Data()["is_recurring"] != false || r.Data()["recurring_periodicity"] != nil || r.Data()["recurring_until"] != nil || r.Data()["date"] != "104-2-29" || r.Data()["colour"] != "#aa00cc" {
		t.Fatalf("clearing recurrence: %d %s", r.Status, r.Raw)
	}
	// On a calendar's own entity the calendar may be left out.
	own := f.create(t, f.calEntity, f.Member, f.event("calendar_id", nil, "recurring_periodicity", "1_f"))
	if own["calendar_id"] != float64(f.cal) || own["recurring_periodicity"] != "1_f" {
		t.Fatalf("event on the calendar's entity: %v", own)
	}
	r = f.Do("GET", eventsOf(f.Campaign, f.calEntity), f.Viewer, nil)
	if r.Status != 200 || len(r.List()) != 1 {
		t.Fatalf("viewer list: %d %s", r.Status, r.Raw)
	}
}

func TestBadEventInputIsRefusedWithTheFieldNamed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Ids count per campaign: the other campaign's fourth calendar names nothing here.
	var otherCal int64
	for i := 0; i < 4; i++ {
		otherCal, _ = makeCalendar(t, f.Env, f.OtherCampaign, calendarBody())
	}
	privateCal, _ := makeCalendar(t, f.Env, f.Campaign, func() map[string]any { b := calendarBody(); b["is_private"] = true; return b }())
	cases := []struct {
		name  string
		token string
		body  map[string]any
		field string
	}{
		{"day beyond the month", f.Admin, f.event("day", 31, "month", 3), "day"},
		{"leap day in a common year", f.Admin, f.event("day", 29, "month", 2, "year", 101), "day"},
		{"month 13", f.Admin, f.event("month", 13), "month"},
		{"periodicity naming a missing moon", f.Admin, f.event("recurring_periodicity", "7_f"), "recurring_periodicity"},
		{"periodicity gibberish", f.Admin, f.event("recurring_periodicity", "fortnightly"), "recurring_periodicity"},
		{"length 0", f.Admin, f.event("length", 0), "length"},
		{"length huge", f.Admin, f.event("length", 1e9), "length"},
		{"missing length", f.Admin, f.event("length", nil), "length"},
		{"missing day", f.Admin, f.event("day", nil), "day"},
		{"missing year", f.Admin, f.event("year", nil), "year"},
		{"192-character name", f.Admin, f.event("name", strings.Repeat("n", 192)), "name"},
		{"unknown visibility", f.Admin, f.event("visibility", "friends"), "visibility"},
		{"unknown type", f.Admin, f.event("type_id", 9), "type_id"},
		{"until before the start", f.Admin, f.event("recurring_periodicity", "yearly", "recurring_until", 99), "recurring_until"},
		{"calendar of another campaign", f.Admin, f.event("calendar_id", otherCal), "calendar_id"},
		{"calendar hidden from a member", f.Member, f.event("calendar_id", privateCal), "calendar_id"},
		{"no calendar on a location", f.Admin, f.event("calendar_id", nil), "calendar_id"},
		{"bad colour", f.Admin, f.event("colour", "<script>"), "colour"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.Do("POST", eventsOf(f.Campaign, f.entity), c.token, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("got %d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	theirs := makeEntity(t, f.Env, f.OtherCampaign, false)
	for i := 0; i < 3; i++ {
		theirs = makeEntity(t, f.Env, f.OtherCampaign, false)
	}
	if r := f.Do("POST", eventsOf(f.Campaign, theirs), f.Admin, f.event()); r.Status != 404 {
		t.Fatalf("entity of another campaign: %d", r.Status)
	}
	if r := f.Do("GET", eventsOf(f.Campaign, f.entity), f.Admin, nil); len(r.List()) != 0 {
		t.Fatalf("refused creates stored events: %s", r.Raw)
	}
	// A bad update changes nothing.
	id := f.create(t, f.entity, f.Admin, f.event())["id"]
	one := fmt.Sprintf("%s/%v", eventsOf(f.Campaign, f.entity), id)
	if r := f.Do("PATCH", one, f.Admin, map[string]any{"day": 31, "month": 2}); r.Status != 422 || r.Errors()["day"] == nil {
		t.Fatalf("bad update: %d %s", r.Status, r.Raw)
	}
	if r := f.Do("GET", one, f.Admin, nil); r.Data()["date"] != "100-1-5" {
		t.Fatalf("a refused update changed the date: %s", r.Raw)
	}
}

func TestAges(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // the calendar's current date is 100-2-10
	birthOnly := makeEntity(t, f.Env, f.Campaign, false)
	f.create(t, birthOnly, f.Admin, f.event("type_id", 2, "day", 11, "month", 2, "year", 60))
	dead := makeEntity(t, f.Env, f.Campaign, false)
	f.create(t, dead, f.Admin, f.event("type_id", 2, "day", 1, "month", 3, "year", 20))
	f.create(t, dead, f.Admin, f.event("type_id", 3, "day", 2, "month", 3, "year", 70))
	unborn := makeEntity(t, f.Env, f.Campaign, false)
	f.create(t, unborn, f.Admin, f.event("type_id", 2, "day", 10, "month", 2, "year", 105))
	// Kanka's formula holds ahead too: a birth 9.2 years ahead (109-3-1 on 100-2-10) is -10, the
	// floor of the exact difference, not -9.
	ahead := makeEntity(t, f.Env, f.Campaign, false)
	f.create(t, ahead, f.Admin, f.event("type_id", 2, "day", 1, "month", 3, "year", 109))
	secret := makeEntity(t, f.Env, f.Campaign, false)
	f.create(t, secret, f.Admin, f.event("type_id", 2, "year", 50, "is_private", true))
	// Ages read recurrences (issue 21): a recurring birth answers its next anniversary.
	yearly := makeEntity(t, f.Env, f.Campaign, false)
	f.create(t, yearly, f.Admin, f.event("type_id", 2, "day", 11, "month", 2, "year", 60, "recurring_periodicity", "yearly"))
	every4 := makeEntity(t, f.Env, f.Campaign, false)
	f.create(t, every4, f.Admin, f.event("type_id", 2, "day", 1, "month", 3, "year", 61, "recurrence", "years", "recurrence_interval", 4))
	deadYearly := makeEntity(t, f.Env, f.Campaign, false)
	f.create(t, deadYearly, f.Admin, f.event("type_id", 2, "day", 1, "month", 3, "year", 20, "recurring_periodicity", "yearly"))
	f.create(t, deadYearly, f.Admin, f.event("type_id", 3, "day", 2, "month", 3, "year", 70))
	cases := []struct {
		name   string
		entity int64
		token  string
		want   string
	}{
		{"birth only: 39, the birthday not yet reached", birthOnly, f.Admin, fmt.Sprintf(`[{"calendar_id":%d,"birth":"60-2-11","death":null,"age":39,"years_since_death":null,"next_anniversary":null}]`, f.cal)},
		{"birth and death: age at death and years since", dead, f.Admin, fmt.Sprintf(`[{"calendar_id":%d,"birth":"20-3-1","death":"70-3-2","age":50,"years_since_death":29,"next_anniversary":null}]`, f.cal)},
		{"a future birth is a negative age", unborn, f.Admin, fmt.Sprintf(`[{"calendar_id":%d,"birth":"105-2-10","death":null,"age":-5,"years_since_death":null,"next_anniversary":null}]`, f.cal)},
		{"a birth 9.2 years ahead is -10, not -9", ahead, f.Admin, fmt.Sprintf(`[{"calendar_id":%d,"birth":"109-3-1","death":null,"age":-10,"years_since_death":null,"next_anniversary":null}]`, f.cal)},
		{"a private birth counts for admins", secret, f.Admin, fmt.Sprintf(`[{"calendar_id":%d,"birth":"50-1-5","death":null,"age":50,"years_since_death":null,"next_anniversary":null}]`, f.cal)},
		{"and not for members", secret, f.Member, `[]`},
		{"a yearly birth: its next birthday", yearly, f.Admin, fmt.Sprintf(`[{"calendar_id":%d,"birth":"60-2-11","death":null,"age":39,"years_since_death":null,"next_anniversary":"100-2-11"}]`, f.cal)},
		{"every 4 years from 61: 101", every4, f.Admin, fmt.Sprintf(`[{"calendar_id":%d,"birth":"61-3-1","death":null,"age":38,"years_since_death":null,"next_anniversary":"101-3-1"}]`, f.cal)},
		{"the dead have no next birthday", deadYearly, f.Admin, fmt.Sprintf(`[{"calendar_id":%d,"birth":"20-3-1","death":"70-3-2","age":50,"years_since_death":29,"next_anniversary":null}]`, f.cal)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.Do("GET", apitest.Path(f.Campaign, fmt.Sprintf("/entities/%d/ages", c.entity)), c.token, nil)
			if r.Status != 200 || !strings.Contains(string(r.Raw), `"data":`+c.want) {
				t.Fatalf("got %d %s, want data %s", r.Status, r.Raw, c.want)
			}
		})
	}
}

func TestDeletesCascadeToEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	other := f.create(t, f.entity, f.Admin, f.event())
	ownCal := f.create(t, f.calEntity, f.Admin, f.event())
	onOtherCal, _ := makeCalendar(t, f.Env, f.Campaign, calendarBody())
	kept := f.create(t, f.entity, f.Admin, f.event("calendar_id", onOtherCal))
	if r := f.Do("DELETE", apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d", f.cal)), f.Admin, nil); r.Status != 200 {
		t.Fatalf("delete calendar: %d %s", r.Status, r.Raw)
	}
	for _, c := range []struct {
		eid  int64
		id   any
		gone bool
	}{{f.entity, other["id"], true}, {f.calEntity, ownCal["id"], true}, {f.entity, kept["id"], false}} {
		_, _, err := eventstore.New(f.Store).GetEventAndEntity(ctx, f.Campaign, c.eid, int64(c.id.(float64)))
		if c.gone != (errors.Is(err, apperr.ErrNotFound)) {
			t.Errorf("event %v of entity %d: %v, want gone=%v", c.id, c.eid, err, c.gone)
		}
	}
	// Deleting a location removes its entity's events.
	l := domain.Location{Meta: domain.Meta{CampaignID: f.Campaign, CreatedBy: f.AdminID}, Owner: domain.Owner{Name: "Doomed"}}
	if err := locstore.New(f.Store).CreateLocation(ctx, &l); err != nil {
		t.Fatal(err)
	}
	ev := f.create(t, l.EntityID, f.Admin, f.event("calendar_id", onOtherCal))
	if r := f.Do("DELETE", apitest.Path(f.Campaign, fmt.Sprintf("/locations/%d", l.ID)), f.Admin, nil); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if _, _, err := eventstore.New(f.Store).GetEventAndEntity(ctx, f.Campaign, l.EntityID, int64(ev["id"].(float64))); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("event of a deleted location: %v", err)
	}
}

func TestEventRoundTripsStayWithinBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.create(t, f.entity, f.Admin, f.event())["id"]
	one := fmt.Sprintf("%s/%v", eventsOf(f.Campaign, f.entity), id)
	for _, c := range []struct {
		name, method, path string
		body               any
		max                int64
	}{
		{"show", "GET", one, nil, 1 + 1},
		{"list page", "GET", eventsOf(f.Campaign, f.entity), nil, 1 + 1 + 2},
		{"create (entity, calendar, id, write)", "POST", eventsOf(f.Campaign, f.entity), f.event(), 1 + 2 + 2},
		{"update without a date change", "PATCH", one, map[string]any{"comment": "x"}, 1 + 1 + 1},
		{"update moving the date (reads the calendar)", "PATCH", one, map[string]any{"day": 6}, 1 + 1 + 1 + 1},
		{"delete", "DELETE", one, nil, 1 + 1 + 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.Counter.Reset()
			if r := f.Do(c.method, c.path, f.Admin, c.body); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := f.Counter.N(); n > c.max {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
		})
	}
}

// Kanka 2022 required an entity event's name only when the body had no entity_id
// (AddCalendarEvent: `required_without`); the path still decides the entity.
func TestEntityEventNameOptionalWithEntityID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cases := []struct {
		name   string
		body   map[string]any
		status int
		want   any // the answered name
	}{
		{"entity_id, no name", f.event("name", nil, "entity_id", f.entity), 200, nil},
		{"another entity_id, no name: the path decides", f.event("name", nil, "entity_id", f.calEntity), 200, nil},
		{"entity_id and a name", f.event("entity_id", f.entity), 200, "Feast"},
		{"entity_id and an empty name", f.event("name", "", "entity_id", f.entity), 200, nil},
		{"neither", f.event("name", nil), 422, nil},
		{"an empty name, no entity_id", f.event("name", ""), 422, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.Do("POST", eventsOf(f.Campaign, f.entity), f.Member, c.body)
			if r.Status != c.status {
				t.Fatalf("got %d %s, want %d", r.Status, r.Raw, c.status)
			}
			if c.status == 422 {
				if r.Errors()["name"] == nil {
					t.Fatalf("422 without name: %s", r.Raw)
				}
				return
			}
			if r.Data()["name"] != c.want || r.Data()["entity_id"] != float64(f.entity) {
				t.Fatalf("answered %s", r.Raw)
			}
			got := f.Do("GET", fmt.Sprintf("%s/%v", eventsOf(f.Campaign, f.entity), r.Data()["id"]), f.Member, nil)
			if got.Status != 200 || got.Data()["name"] != c.want {
				t.Fatalf("stored: %d %s", got.Status, got.Raw)
			}
		})
	}
	// Refused creates stored nothing: four events made above.
	if l := f.Do("GET", eventsOf(f.Campaign, f.entity), f.Admin, nil); len(l.List()) != 4 {
		t.Fatalf("stored %d events: %s", len(l.List()), l.Raw)
	}
	// A 2022 update naming entity_id may also clear the name.
	id := f.create(t, f.entity, f.Member, f.event())["id"]
	one := fmt.Sprintf("%s/%v", eventsOf(f.Campaign, f.entity), id)
	if r := f.Do("PATCH", one, f.Member, map[string]any{"name": "", "entity_id": f.entity}); r.Status != 200 || r.Data()["name"] != nil {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	if r := f.Do("PATCH", one, f.Member, map[string]any{"name": ""}); r.Status != 422 || r.Errors()["name"] == nil {
		t.Fatalf("patch without entity_id: %d %s", r.Status, r.Raw)
	}
}
