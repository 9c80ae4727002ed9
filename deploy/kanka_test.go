package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Kanka today (DESIGN.md 9): the samples of the current Kanka names, replayed within
// entitiesReplay on the same records as the spec's 2022 routes.

// firstScreenSteps are a Kanka client's first requests, on the seeded campaign (1, "Azure
// Coast", whose admin is user 1), before any record.
var firstScreenSteps = []replayStep{
	{"profile.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "profile", r.data(), map[string]any{"id": 1, "name": "admin", "last_campaign_id": 1, "locale": "en",
			"default_pagination": 45, "rate_limit": 120, "avatar": nil})
	}},
	{"campaigns-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want campaign 1", r.body["data"])
		}
		hasFields(t, "listed campaign", r.list()[0].(map[string]any), map[string]any{"id": 1, "name": "Azure Coast",
			"visibility": "private", "visibility_id": 1, "entry_parsed": "not available on the campaigns/ endpoint",
			"urls": map[string]any{"view": nil, "api": apiBase}})
		if members, _ := r.list()[0].(map[string]any)["members"].([]any); len(members) != 1 {
			t.Errorf("members = %v, want the admin", members)
		} else {
			hasFields(t, "member", members[0].(map[string]any), map[string]any{"id": 1})
		}
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1, "path": strings.TrimSuffix(apiBase, "/1")})
	}},
	{"campaigns-list-head.json", nil},
	{"campaigns-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "campaign", r.data(), map[string]any{"id": 1, "slug": "1", "name": "Azure Coast", "locale": "en", "entry": "",
			"boosted": false, "urls": map[string]any{"view": nil, "api": apiBase}})
		if _, ok := domain.ParseSyncTime(str(r.data()["created_at"])); !ok {
			t.Errorf("created_at = %v", r.data()["created_at"])
		}
	}},
	{"campaign-users.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the admin", r.body["data"])
		}
		hasFields(t, "user", r.list()[0].(map[string]any), map[string]any{"id": 1, "name": "admin", "avatar": nil})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1, "path": apiBase + "/users"})
	}},
	{"campaign-user.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "user", r.data(), map[string]any{"id": 1, "name": "admin", "avatar": nil})
	}},
	{"campaign-entity-types.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != len(domain.Modules) {
			t.Fatalf("data = %v, want every module served (%d)", r.body["data"], len(domain.Modules))
		}
		hasFields(t, "module", r.list()[0].(map[string]any), map[string]any{"id": 1, "code": "character", "is_enabled": true, "is_nested": false})
		hasFields(t, "module", r.list()[2].(map[string]any), map[string]any{"id": 3, "code": "location", "is_enabled": true, "is_nested": true})
	}},
	{"entity-types.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != len(domain.Modules) {
			t.Fatalf("data = %v, want every module served (%d)", r.body["data"], len(domain.Modules))
		}
		hasFields(t, "module", r.list()[7].(map[string]any), map[string]any{"id": 8, "code": "calendar", "plural": "Calendars"})
	}},
	{"entity-types-underscore.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": len(domain.Modules), "current_page": 1})
	}},
}

// kankaEntitySteps run once the town (entity 1) and the calendar (entity 2) exist.
var kankaEntitySteps = []replayStep{
	{"entities-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 2 {
			t.Fatalf("data = %v, want the town's and the calendar's entities", r.body["data"])
		}
		hasFields(t, "town entity", r.list()[0].(map[string]any), map[string]any{
			"id": townEntity, "name": "Saltmarsh", "type": "location", "child_id": 1, "is_private": false, "tags": []int{},
			"created_by": 1, "urls": map[string]any{"view": nil, "api": apiBase + "/locations/1"},
		})
		hasFields(t, "calendar entity", r.list()[1].(map[string]any), map[string]any{
			"id": calendarEntity, "name": "Azure Reckoning", "type": "calendar", "child_id": 1,
			"urls": map[string]any{"view": nil, "api": apiBase + "/calendars/1"},
		})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 2, "per_page": 45, "path": apiBase + "/entities"})
	}},
	{"entities-list-head.json", nil},
	{"entities-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "entity", r.data(), map[string]any{"id": townEntity, "name": "Saltmarsh", "type": "location", "child_id": 1})
		if _, ok := domain.ParseSyncTime(str(r.data()["updated_at"])); !ok {
			t.Errorf("updated_at = %v", r.data()["updated_at"])
		}
	}},
	{"entities-show-head.json", nil},
	{"search.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want the town", r.body["data"])
		}
		hasFields(t, "hit", r.list()[0].(map[string]any), map[string]any{
			"id": 1, "entity_id": townEntity, "name": "Saltmarsh", "type": "location", "entity_type": "location", "type_id": 3,
		})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1, "per_page": 10, "path": apiBase + "/search/salt"})
	}},
	{"search-head.json", nil},
	{"entity-mentions.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 0 {
			t.Fatalf("data = %v, want no mention of the calendar", r.body["data"])
		}
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 0, "path": apiBase + "/entities/2/mentions"})
	}},
	{"entity-mentions-head.json", nil},
}

// kankaReminderSteps read and change event 1 (the town's founding) as a reminder, then make,
// list on the calendar and delete a reminder of their own (event 2).
var kankaReminderSteps = []replayStep{
	{"reminders-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want event 1 as a reminder", r.body["data"])
		}
		hasFields(t, "reminder", r.list()[0].(map[string]any), map[string]any{
			"id": 1, "remindable_id": townEntity, "calendar_id": 1, "recurring_periodicity": "year", "visibility_id": 5,
		})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1, "path": apiBase + "/entities/1/reminders"})
	}},
	{"reminders-list-head.json", nil},
	{"reminders-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "reminder", r.data(), map[string]any{"id": 1, "remindable_id": townEntity, "date": "1150-2-5", "length": 2})
	}},
	{"reminders-show-head.json", nil},
	{"reminders-update-put.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "updated reminder", r.data(), map[string]any{"id": 1, "recurring_periodicity": "month", "name": "Founding of Saltmarsh"})
		if ev := mustEvent(t, st, 1); ev.Recurrence.Kind != calengine.RecurMonthly || ev.Name != "Founding of Saltmarsh" {
			t.Errorf("stored event = %+v", ev)
		}
	}},
	{"reminders-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "patched reminder", r.data(), map[string]any{"id": 1, "visibility_id": 5, "visibility": "member", "recurring_until": 1300})
	}},
	// No name and no length: Kanka's reminder body; a founding (type 5).
	{"reminders-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created reminder", r.data(), map[string]any{
			"id": 2, "remindable_id": townEntity, "calendar_id": 1, "name": nil, "length": 1, "date": "1150-2-3",
			"recurring_periodicity": "year", "is_recurring": true, "type_id": 5, "visibility_id": 1, "colour": "#1e90ff",
		})
		if ev := mustEvent(t, st, 2); ev.Length != 1 || ev.Recurrence.Kind != calengine.RecurYearly || !ev.StartsLife() {
			t.Errorf("stored event = %+v", ev)
		}
	}},
	{"calendar-reminders.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 2 {
			t.Fatalf("data = %v, want the town's two reminders on the calendar", r.body["data"])
		}
		hasFields(t, "first", r.list()[0].(map[string]any), map[string]any{"id": 1, "remindable_id": townEntity})
		hasFields(t, "second", r.list()[1].(map[string]any), map[string]any{"id": 2, "remindable_id": townEntity})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 2, "path": apiBase + "/calendars/1/reminders"})
	}},
	{"calendar-reminders-head.json", nil},
	{"reminders-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted reminder", r.data(), map[string]any{"id": 2, "deleted": true})
		if _, _, err := eventstore.New(st).GetEventAndEntity(context.Background(), 1, townEntity, 2); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("event 2 after delete: %v, want not found", err)
		}
	}},
}

// kankaPostSteps read and change note 1 as a post, then make and delete a post (note 2).
var kankaPostSteps = []replayStep{
	{"posts-list.json", func(t *testing.T, _ *store.Store, r response) {
		if len(r.list()) != 1 {
			t.Fatalf("data = %v, want note 1 as a post", r.body["data"])
		}
		hasFields(t, "post", r.list()[0].(map[string]any), map[string]any{
			"id": 1, "entity_id": townEntity, "name": "Harbour rumours", "visibility_id": 2, "visibility": "admin",
			"is_pinned": true, "position": 2, "tags": []int{}, "layout_id": nil, "is_template": false, "permissions": []int{},
			"calendar_id": nil, "calendar_year": nil, "calendar_month": nil, "calendar_day": nil, "calendar_reminder_length": nil,
		})
		hasFields(t, "meta", r.body["meta"].(map[string]any), map[string]any{"total": 1, "path": apiBase + "/entities/1/posts"})
	}},
	{"posts-list-head.json", nil},
	{"posts-show.json", func(t *testing.T, _ *store.Store, r response) {
		hasFields(t, "post", r.data(), map[string]any{"id": 1, "entity_id": townEntity, "settings": map[string]any{"collapsed": 1}})
	}},
	{"posts-show-head.json", nil},
	{"posts-update-put.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "updated post", r.data(), map[string]any{"id": 1, "visibility_id": 1, "visibility": "all"})
		if n := mustNote(t, st, 1); n.Visibility != domain.VisibilityAll || !strings.Contains(n.Entry, "bell rings") {
			t.Errorf("stored note = %+v", n)
		}
	}},
	{"posts-update-patch.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "patched post", r.data(), map[string]any{"id": 1, "visibility_id": 2, "position": 3})
	}},
	{"posts-create.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "created post", r.data(), map[string]any{
			"id": 2, "entity_id": townEntity, "name": "Tavern talk", "visibility_id": 5, "visibility": "member",
			"position": 1, "is_pinned": true, "settings": map[string]any{"collapsed": 1},
		})
		if parsed := str(r.data()["entry_parsed"]); !strings.Contains(parsed, `href="/api/1.0/campaigns/1/calendars/1"`) {
			t.Errorf("entry_parsed = %q, want a link to calendar 1", parsed)
		}
		if n := mustNote(t, st, 2); n.Visibility != domain.VisibilityMember {
			t.Errorf("stored note = %+v", n)
		}
	}},
	{"posts-delete.json", func(t *testing.T, st *store.Store, r response) {
		hasFields(t, "deleted post", r.data(), map[string]any{"id": 2, "deleted": true})
		if _, _, err := notestore.New(st).GetNoteAndEntity(context.Background(), 1, townEntity, 2); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("note 2 after delete: %v, want not found", err)
		}
	}},
}
