package deploy_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
)

// Ids in the calendar and entity samples, on a fresh table after seed and seedEntity.
const (
	townEntity     = 1 // the entity of location 1 ("Saltmarsh", made by seedEntity): events and notes hang from it
	calendarEntity = 2 // the entity of calendar 1 (calendars-create.json)
)

// seedEntity makes the entity the entity-event and entity-note samples are about: location 1,
// "Saltmarsh", whose entity is townEntity. Its family's samples are replayed elsewhere.
func seedEntity(t *testing.T, st *store.Store) {
	t.Helper()
	l := &domain.Location{Meta: domain.Meta{CampaignID: 1, CreatedBy: 1}, Owner: domain.Owner{Name: "Saltmarsh", Type: "Town"}}
	if err := locstore.New(st).CreateLocation(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	if l.ID != 1 || l.EntityID != townEntity {
		t.Fatalf("a fresh table gave location %d with entity %d; the samples use 1 and %d", l.ID, l.EntityID, townEntity)
	}
}

// entitiesReplay replays every CalendarsFunction, EntityEventsFunction, EntityNotesFunction and
// EntitiesFunction event in the order a client would send them: a calendar, its date moved, the
// campaign's entities, an event of the town on it and the town's age, the calendar's day view,
// the event as a reminder, a note on the town and the note as a post, then deletes.
var entitiesReplay = slices.Concat(firstScreenSteps, calendarSteps, kankaEntitySteps, eventSteps, kankaReminderSteps, noteSteps, kankaPostSteps,
	attributeSteps, relationSteps, deleteSteps)

var calendarSteps = []replayStep{
	{"calendars-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created calendar", r.data(), map[string]any{
			"id": 1, "entity_id": calendarEntity, "name": "Coastal Reckoning", "type": "Lunisolar", "date": "1201-4-12",
			"is_private": false, "created_by": 1, "updated_by": 1, "tags": []int{}, "suffix": "AC",
			"weekdays":     []string{"Moonday", "Tideday", "Netday", "Saltday", "Restday"},
			"years":        map[string]string{"1201": "Year of the Drowned Bell"},
			"moons":        []any{map[string]any{"id": 1, "name": "Pale Lady", "fullmoon": "29.5", "offset": 3, "colour": "white"}},
			"epochs":       []any{map[string]any{"name": "After the Flood"}},
			"start_offset": 2, "has_leap_year": true, "leap_year_amount": 1, "leap_year_month": 2, "leap_year_offset": 4,
			"leap_year_start": 0, "skip_year_zero": false,
		})
		if months, _ := r.data()["months"].([]any); len(months) != 6 {
			t.Errorf("months = %v, want the 6 sent", r.data()["months"])
		} else {
			hasFields(t, "month 4", months[3].(map[string]any), map[string]any{"name": "Tides", "length": 30, "type": "standard"})
		}
		if seasons, _ := r.data()["seasons"].([]any); len(seasons) != 4 {
			t.Errorf("seasons = %v, want the 4 sent", r.data()["seasons"])
		}
		c := mustCalendar(t, st)
		if c.Name != "Coastal Reckoning" || c.EntityID != calendarEntity || c.Date.String() != "1201-4-12" || len(c.Months) != 6 {
			t.Errorf("stored calendar = %+v", c)
		}
		if e, err := st.GetEntity(context.Background(), 1, calendarEntity); err != nil || e.Type != "calendar" || e.ChildID != 1 {
			t.Errorf("the calendar's entity = %+v, %v", e, err)
		}
	}},
	{"calendars-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one calendar", r.body["data"])
		}
		hasFields(t, "listed calendar", r.list()[0].(map[string]any), map[string]any{"id": 1, "name": "Coastal Reckoning"})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{
			"total": 1, "current_page": 1, "last_page": 1, "from": 1, "to": 1, "per_page": 45, "path": apiBase + "/calendars",
		})
		hasFields(t, "links", r.body["links"].(map[string]any), map[string]any{"prev": nil, "next": nil})
		if _, ok := domain.ParseSyncTime(str(r.body["sync"])); !ok {
			t.Errorf("sync = %v", r.body["sync"])
		}
	}},
	{"calendars-list-head.json", nil},
	{"calendars-presets.json", func(t *testing.T, _ *store.Store, r response) {
		var keys []string
		for _, p := range r.list() {
			keys = append(keys, str(p.(map[string]any)["key"]))
		}
		if strings.Join(keys, ",") != "gregorian,julian,harptos,golarion,exandria,eberron" {
			t.Errorf("preset keys = %v", keys)
		}
	}},
	{"calendars-presets-head.json", nil},
	{"calendars-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "calendar", r.data(), map[string]any{"id": 1, "name": "Coastal Reckoning", "date": "1201-4-12"})
	}},
	{"calendars-show-head.json", nil},
	{"calendars-update-put.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "updated calendar", r.data(), map[string]any{"id": 1, "name": "Azure Reckoning", "type": "Solar", "suffix": "AC"})
		c := mustCalendar(t, st)
		if c.Name != "Azure Reckoning" || c.Type != "Solar" || len(c.Months) != 6 || len(c.Weekdays) != 5 {
			t.Errorf("PUT merges: stored calendar = %+v", c)
		}
		if e, err := st.GetEntity(context.Background(), 1, calendarEntity); err != nil || e.Name != "Azure Reckoning" {
			t.Errorf("the calendar's entity after a rename = %+v, %v", e, err)
		}
	}},
	{"calendars-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "patched calendar", r.data(), map[string]any{"id": 1, "name": "Azure Reckoning", "date": "1201-4-15"})
		if c := mustCalendar(t, st); c.Date.String() != "1201-4-15" {
			t.Errorf("stored date = %s, want 1201-4-15", c.Date)
		}
	}},
	// Tides has 30 days: 20 days after 1201-4-15 is 1201-5-5, and 3 days before that 1201-5-2.
	{"calendars-advance.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "advanced calendar", r.data(), map[string]any{"id": 1, "date": "1201-5-5"})
		if c := mustCalendar(t, st); c.Date.String() != "1201-5-5" {
			t.Errorf("stored date after advancing 20 days = %s, want 1201-5-5", c.Date)
		}
	}},
	{"calendars-retreat.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "retreated calendar", r.data(), map[string]any{"id": 1, "date": "1201-5-2"})
		if c := mustCalendar(t, st); c.Date.String() != "1201-5-2" {
			t.Errorf("stored date after retreating 3 days = %s, want 1201-5-2", c.Date)
		}
	}},
}

var eventSteps = []replayStep{
	{"entity-events-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created event", r.data(), map[string]any{
			"id": 1, "entity_id": townEntity, "calendar_id": 1, "name": "Founding of Saltmarsh", "date": "1150-2-3",
			"day": 3, "month": 2, "year": 1150, "length": 1, "type_id": 2, "is_recurring": true,
			"recurring_periodicity": "yearly", "recurring_until": nil, "colour": "#1e90ff", "is_private": false,
			"visibility": "all", "created_by": 1, "updated_by": 1,
		})
		if !strings.Contains(str(r.data()["comment"]), "old pier") {
			t.Errorf("comment = %q", r.data()["comment"])
		}
		if ev := mustEvent(t, st, 1); ev.CalendarID != 1 || ev.Date.String() != "1150-2-3" || ev.Recurrence.Kind != calengine.RecurYearly {
			t.Errorf("stored event = %+v", ev)
		}
	}},
	{"entity-events-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one event", r.body["data"])
		}
		hasFields(t, "listed event", r.list()[0].(map[string]any), map[string]any{"id": 1, "entity_id": townEntity, "name": "Founding of Saltmarsh"})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{
			"total": 1, "per_page": 45, "path": apiBase + "/entities/1/entity_events",
		})
		hasFields(t, "links", r.body["links"].(map[string]any), map[string]any{"prev": nil, "next": nil})
	}},
	{"entity-events-list-head.json", nil},
	{"entity-events-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "event", r.data(), map[string]any{"id": 1, "entity_id": townEntity, "calendar_id": 1, "date": "1150-2-3"})
	}},
	{"entity-events-show-head.json", nil},
	{"entity-events-update-put.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "updated event", r.data(), map[string]any{
			"id": 1, "date": "1150-2-5", "length": 2, "recurring_periodicity": "yearly", "colour": "#1e90ff", "type_id": 2,
		})
		if ev := mustEvent(t, st, 1); ev.Date.String() != "1150-2-5" || ev.Length != 2 || ev.Colour != "#1e90ff" {
			t.Errorf("PUT merges: stored event = %+v", ev)
		}
	}},
	{"entity-events-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		// Kanka's "members" is answered with the spec's spelling.
		hasFields(t, "patched event", r.data(), map[string]any{"id": 1, "visibility": "member", "recurring_until": 1300, "date": "1150-2-5"})
		if ev := mustEvent(t, st, 1); ev.Visibility != domain.VisibilityMember || ev.RecurringUntil == nil || *ev.RecurringUntil != 1300 {
			t.Errorf("stored event = %+v", ev)
		}
	}},
	// Founded 1150-2-5; the calendar says 1201-5-2.
	{"entity-ages.json", func(t *testing.T, _ *store.Store, r response) {
		ages := r.list()
		if len(ages) != 1 {
			t.Fatalf("data = %v, want the town's age on the one calendar", r.body["data"])
		}
		hasFields(t, "age", ages[0].(map[string]any), map[string]any{
			"calendar_id": 1, "birth": "1150-2-5", "death": nil, "age": 51, "years_since_death": nil,
		})
	}},
	{"entity-ages-head.json", nil},
	// Kanka's manual weather of one day, shown by the day view below.
	{"calendar-weather-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "weather", r.data(), map[string]any{
			"id": 1, "calendar_id": 1, "year": 1201, "month": 2, "day": 5, "weather": "rain", "temperature": "Cold",
			"wind": "North gale", "name": "Founding storm", "visibility_id": 1,
		})
	}},
	// The founding day recurs on 2-5 and lasts two days: its 1201 occurrence covers 2-5 and 2-6.
	{"calendars-days.json", func(t *testing.T, _ *store.Store, r response) {
		days := r.list()
		if len(days) != 3 {
			t.Fatalf("data = %v, want the 3 days from 1201-2-4 to 1201-2-6", r.body["data"])
		}
		founding := map[string]any{
			"id": 1, "entity_id": townEntity, "name": "Founding of Saltmarsh", "colour": "#1e90ff", "start": "1201-2-5", "end": "1201-2-6",
		}
		prevWeekday := -1.0
		for i, date := range []string{"1201-2-4", "1201-2-5", "1201-2-6"} {
			day, _ := days[i].(map[string]any)
			hasFields(t, "day "+date, day, map[string]any{
				"date": date, "month_name": "Thaw", "season": "Winter", "is_intercalary": false, "is_leap_day": false,
			})
			// Standard days follow each other in the five-day week.
			wd, ok := day["weekday_index"].(float64)
			if !ok || (prevWeekday >= 0 && wd != float64((int(prevWeekday)+1)%5)) {
				t.Errorf("day %s: weekday_index %v after %v", date, day["weekday_index"], prevWeekday)
			}
			prevWeekday = wd
			if w, _ := day["calendar_weather"].(map[string]any); (i == 1) != (w != nil) || (w != nil && w["weather"] != "rain") {
				t.Errorf("day %s: calendar_weather = %v, want the rain on 1201-2-5 only", date, day["calendar_weather"])
			}
			if _, ok := day["moons"].([]any); !ok {
				t.Errorf("day %s: moons = %v, want an array", date, day["moons"])
			}
			events, ok := day["events"].([]any)
			switch {
			case !ok:
				t.Errorf("day %s: events = %v, want an array", date, day["events"])
			case i == 0 && len(events) != 0:
				t.Errorf("day %s: events = %v, want none", date, events)
			case i > 0 && len(events) != 1:
				t.Errorf("day %s: events = %v, want the founding day", date, events)
			case i > 0:
				hasFields(t, "day "+date+" event", events[0].(map[string]any), founding)
			}
		}
	}},
	{"calendars-days-head.json", nil},
	// The month page: its JSON, its HTML (as a browser asks), its image; a share link made,
	// listed and revoked; a link's page and image without a token (prepared: shareMonthLink).
	{"calendars-month.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "month", r.data(), map[string]any{"year": 1201, "month": 2})
		if !strings.Contains(r.Body, "Founding of Saltmarsh") {
			t.Errorf("the month lacks its event: %.300s", r.Body)
		}
	}},
	{"calendars-month-html.json", func(t *testing.T, _ *store.Store, r response) {
		if !strings.HasPrefix(r.header("Content-Type"), "text/html") || !strings.Contains(r.Body, "Founding of Saltmarsh") || r.header("X-Frame-Options") != "DENY" {
			t.Errorf("the page: %s %.300s", r.header("Content-Type"), r.Body)
		}
	}},
	{"calendars-month-svg.json", func(t *testing.T, _ *store.Store, r response) {
		if r.header("Content-Type") != "image/svg+xml" || !strings.HasPrefix(r.Body, "<svg") {
			t.Errorf("the image: %s %.300s", r.header("Content-Type"), r.Body)
		}
	}},
	{"calendar-share-links-create.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "link", r.data(), map[string]any{"id": 1, "calendar_id": 1, "audience": "public", "expires_at": "2035-01-01T00:00:00.000000Z"})
		if u, _ := r.data()["url"].(string); !strings.Contains(u, "/share/") {
			t.Errorf("url = %q", u)
		}
	}},
	{"calendar-share-links-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the link", r.body["data"])
		}
	}},
	{"calendar-share-links-delete.json", nil},
	{"share-month.json", func(t *testing.T, _ *store.Store, r response) {
		if !strings.Contains(r.Body, "Thaw 1201") || r.header("X-Frame-Options") != "" || !strings.Contains(r.header("Content-Security-Policy"), "frame-ancestors *") {
			t.Errorf("the shared page (embedded): %v %.300s", r.Headers, r.Body)
		}
	}},
	{"share-month-svg.json", nil},
	{"calendar-weather-list.json", func(t *testing.T, _ *store.Store, r response) {
		if l := r.list(); len(l) != 1 {
			t.Fatalf("data = %v, want the one weather", r.body["data"])
		}
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1})
	}},
	{"calendar-weather-list-head.json", nil},
	{"calendar-weather-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "weather", r.data(), map[string]any{"id": 1, "weather": "rain", "precipitation": "Heavy"})
	}},
	{"calendar-weather-show-head.json", nil},
	{"calendar-weather-update-put.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "weather", r.data(), map[string]any{"id": 1, "weather": "snow", "temperature": "Freezing", "wind": "North gale", "day": 5})
	}},
	{"calendar-weather-update-patch.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "weather", r.data(), map[string]any{"id": 1, "weather": "snow", "visibility": "member", "visibility_id": 5})
	}},
	{"calendar-weather-delete.json", nil},
	// The calendar as a Fantasy-Calendar export: its name, months and current date.
	{"calendars-export.json", func(t *testing.T, _ *store.Store, r response) {
		ex := r.data()
		if ex["name"] != "Azure Reckoning" {
			t.Errorf("export name %v", ex["name"])
		}
		static, _ := ex["static_data"].(map[string]any)
		yd, _ := static["year_data"].(map[string]any)
		if ts, _ := yd["timespans"].([]any); len(ts) == 0 {
			t.Errorf("export static_data.year_data = %v, want the months as timespans", yd)
		}
		dyn, _ := ex["dynamic_data"].(map[string]any)
		if dyn["year"] != 1201.0 {
			t.Errorf("export dynamic_data = %v, want the current year 1201", dyn)
		}
		if _, ok := ex["warnings"].([]any); !ok {
			t.Errorf("export warnings = %v, want an array", ex["warnings"])
		}
	}},
}

var noteSteps = []replayStep{
	{"entity-notes-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created note", r.data(), map[string]any{
			"id": 1, "entity_id": townEntity, "name": "Harbour rumours", "visibility": "all", "position": 1,
			"settings": map[string]any{"collapsed": 1}, "created_by": 1, "updated_by": 1,
		})
		// The mention of the calendar's entity becomes a link to the calendar, with the given text.
		parsed := str(r.data()["entry_parsed"])
		if !strings.Contains(parsed, `href="/api/1.0/campaigns/1/calendars/1"`) || !strings.Contains(parsed, ">Founding Day</a>") {
			t.Errorf("entry_parsed = %q, want a link to calendar 1 reading Founding Day", parsed)
		}
		if n := mustNote(t, st, 1); n.Name != "Harbour rumours" || !n.Collapsed || n.Position == nil || *n.Position != 1 {
			t.Errorf("stored note = %+v", n)
		}
	}},
	{"entity-notes-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the one note", r.body["data"])
		}
		hasFields(t, "listed note", r.list()[0].(map[string]any), map[string]any{"id": 1, "entity_id": townEntity, "name": "Harbour rumours"})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{
			"total": 1, "per_page": 45, "path": apiBase + "/entities/1/entity_notes",
		})
		hasFields(t, "links", r.body["links"].(map[string]any), map[string]any{"prev": nil, "next": nil})
	}},
	{"entity-notes-list-head.json", nil},
	{"entity-notes-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "note", r.data(), map[string]any{"id": 1, "entity_id": townEntity, "name": "Harbour rumours"})
	}},
	{"entity-notes-show-head.json", nil},
	{"entity-notes-update-put.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "updated note", r.data(), map[string]any{"id": 1, "name": "Harbour rumours", "position": 1, "visibility": "all"})
		// A mention without text shows the entity's name: the calendar's, renamed above.
		if parsed := str(r.data()["entry_parsed"]); !strings.Contains(parsed, ">Azure Reckoning</a>") {
			t.Errorf("entry_parsed = %q, want a link reading Azure Reckoning", parsed)
		}
		if n := mustNote(t, st, 1); !strings.Contains(n.Entry, "as the [calendar:2] counts it") || !n.Collapsed {
			t.Errorf("PUT merges: stored note = %+v", n)
		}
	}},
	{"entity-notes-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "patched note", r.data(), map[string]any{"id": 1, "visibility": "admin", "position": 2, "name": "Harbour rumours"})
		if n := mustNote(t, st, 1); n.Visibility != domain.VisibilityAdmin || *n.Position != 2 {
			t.Errorf("stored note = %+v", n)
		}
	}},
}

var deleteSteps = []replayStep{
	{"entity-notes-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted note", r.data(), map[string]any{"id": 1, "deleted": true})
		if _, _, err := notestore.New(st).GetNoteAndEntity(context.Background(), 1, townEntity, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("note after delete: %v, want not found", err)
		}
	}},
	{"entity-events-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted event", r.data(), map[string]any{"id": 1, "deleted": true})
		if _, _, err := eventstore.New(st).GetEventAndEntity(context.Background(), 1, townEntity, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("event after delete: %v, want not found", err)
		}
	}},
	// Deleting the calendar moves it and its entity to the trash and hides the events of other
	// entities on the calendar (found through its links); the town stays. Its own entity's
	// events and notes stay where they are, unreachable, until the restore or the purge.
	{"calendars-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted calendar", r.data(), map[string]any{"id": 1, "deleted": true})
		ctx := context.Background()
		if _, err := calstore.New(st).GetCalendar(ctx, 1, 1); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("calendar after delete: %v, want not found", err)
		}
		if _, err := st.GetEntity(ctx, 1, calendarEntity); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("the calendar's entity after delete: %v, want not found", err)
		}
		if _, err := st.GetEntity(ctx, 1, townEntity); err != nil {
			t.Errorf("the town's entity after deleting the calendar: %v", err)
		}
		// Read the partitions themselves, as an admin sees them.
		admin := domain.Access{UserID: 1, CampaignID: 1, Role: domain.RoleAdmin}
		page := domain.PageRequest{Page: 1, Limit: 10}
		for _, eid := range []int64{townEntity} {
			evs, err := eventstore.New(st).ListEvents(ctx, 1, eid, admin, domain.Filter{}, page)
			if err != nil || evs.Total != 0 || len(evs.Items) != 0 {
				t.Errorf("events of entity %d after deleting the calendar: total %d, %+v, err %v", eid, evs.Total, evs.Items, err)
			}
		}
		if trash, err := st.ListTrash(ctx, 1, page); err != nil || len(trash.Items) != 1 || trash.Items[0].ID != calendarEntity {
			t.Errorf("trash after deleting the calendar: %+v %v", trash.Items, err)
		}
	}},
	// The Fantasy-Calendar export becomes calendar 2, which the policy test's later entity
	// events use.
	{"calendars-import.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "imported calendar", r.data(), map[string]any{
			"id": 2, "name": "Azure Coast (Fantasy-Calendar)", "date": "1201-4-12", "start_offset": 2, "skip_year_zero": false,
			"weekdays": []string{"Moonday", "Tideday", "Netday", "Saltday", "Restday"},
			"era":      map[string]any{"name": "After the Flood", "abbreviation": "AF", "year": 202},
		})
		leaps, _ := r.data()["leap_days"].([]any)
		if len(leaps) != 1 {
			t.Fatalf("leap_days = %v", r.data()["leap_days"])
		}
		hasFields(t, "leap day", leaps[0].(map[string]any), map[string]any{"name": "Bell Day", "month": 2, "day": 14, "interval": "400,!100,4", "intercalary": true})
		// The clock and the time are the calendar's (issue 21); an event whose conditions are no
		// recurrence of Lorekeep's (every day of a month) a warning naming it.
		hasFields(t, "imported clock", r.data(), map[string]any{
			"clock": map[string]any{"hours": 24, "minutes": 60, "offset": 0}, "current_hour": 8, "current_minute": 0,
		})
		warnings := strings.Join(strs(r.data()["warnings"]), "\n")
		if !strings.Contains(warnings, `Event "Lantern night" is not imported`) || strings.Contains(warnings, "clock") {
			t.Errorf("warnings %q, want one about the event and none about the clock", warnings)
		}
		c, err := calstore.New(st).GetCalendar(context.Background(), 1, 2)
		if err != nil || len(c.Months) != 6 || len(c.LeapDays) != 1 || c.Moons[0].Offset != "-11.5" {
			t.Errorf("stored import = %+v, %v", c, err)
		}
	}},
	// Kanka's recovery lists the deleted calendar's entity and restores it: the calendar, its
	// entity and the town's event on it come back, ids unchanged.
	{"recovery.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the calendar's entity", r.body["data"])
		}
		hasFields(t, "trashed entity", r.list()[0].(map[string]any), map[string]any{"id": calendarEntity, "type": "calendar", "child_id": 1})
	}},
	{"recover.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "recover", r.body, map[string]any{"success": "Successfully recovered deleted entities"})
		ctx := context.Background()
		if _, err := calstore.New(st).GetCalendar(ctx, 1, 1); err != nil {
			t.Errorf("restored calendar: %v", err)
		}
		admin := domain.Access{UserID: 1, CampaignID: 1, Role: domain.RoleAdmin}
		evs, err := eventstore.New(st).ListEvents(ctx, 1, townEntity, admin, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 10})
		if err != nil || evs.Total != 1 || evs.Items[0].CalendarID != 1 {
			t.Errorf("the town's events after the restore: %+v %v", evs.Items, err)
		}
		if problems, err := ops.Audit(ctx, st, 1); err != nil || len(problems) > 0 {
			t.Errorf("audit after the restore: %v %q", err, problems)
		}
	}},
}

// prepareCalendarCascade makes, before calendars-delete.json, what deleting the calendar must
// remove besides itself: an event of the town on the calendar (event 2), an event (3) and a
// note (2) of the calendar's own entity.
func prepareCalendarCascade(t *testing.T, st *store.Store) {
	ctx := context.Background()
	for _, ev := range []*timeline.Event{
		{Meta: domain.Meta{CampaignID: 1, CreatedBy: 1}, EntityID: townEntity, CalendarID: 1, Name: "Storm tide", Date: calengine.Date{Year: 1190, Month: 4, Day: 1}, Length: 1, Visibility: domain.VisibilityAll},
		{Meta: domain.Meta{CampaignID: 1, CreatedBy: 1}, EntityID: calendarEntity, CalendarID: 1, Name: "Reckoning adopted", Date: calengine.Date{Year: 1100, Month: 1, Day: 1}, Length: 1, Visibility: domain.VisibilityAll},
	} {
		if err := eventstore.New(st).CreateEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := notestore.New(st).CreateNote(ctx, &domain.Note{Meta: domain.Meta{CampaignID: 1, CreatedBy: 1}, EntityID: calendarEntity, Name: "Leap days", Visibility: domain.VisibilityAll}); err != nil {
		t.Fatal(err)
	}
}

func mustCalendar(t *testing.T, st *store.Store) *timeline.Calendar {
	t.Helper()
	c, err := calstore.New(st).GetCalendar(context.Background(), 1, 1)
	if err != nil {
		t.Fatalf("calendar 1 of campaign 1: %v", err)
	}
	return c
}

func mustEvent(t *testing.T, st *store.Store, id int64) *timeline.Event {
	t.Helper()
	_, ev, err := eventstore.New(st).GetEventAndEntity(context.Background(), 1, townEntity, id)
	if err != nil {
		t.Fatalf("event %d of entity %d: %v", id, townEntity, err)
	}
	return ev
}

func mustNote(t *testing.T, st *store.Store, id int64) *domain.Note {
	t.Helper()
	_, n, err := notestore.New(st).GetNoteAndEntity(context.Background(), 1, townEntity, id)
	if err != nil {
		t.Fatalf("note %d of entity %d: %v", id, townEntity, err)
	}
	return n
}
