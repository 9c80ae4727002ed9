package compat_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Every list reads its paging in one place (httpapi.Request.Page): a page or limit no list can
// be paged by is a 422 naming it, on every list, never page 1 again; what Kanka's paginator
// reads as its default (missing, not a number, 0) still is the default.
func TestPagingParametersEverywhere(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	api := func(rest string) string { return apitest.Path(e.Campaign, rest) }
	loc := e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Waterdeep"})
	cal := e.Do("POST", api("/calendars"), e.Admin, calendarBody("Harptos"))
	hook := e.Do("POST", api("/webhooks"), e.Admin, map[string]any{"url": "https://example.org/hook", "events": []string{"location.created"}})
	if loc.Status != 200 || cal.Status != 200 || hook.Status != 200 {
		t.Fatalf("setup: %d %s / %d %s / %d %s", loc.Status, loc.Raw, cal.Status, cal.Raw, hook.Status, hook.Raw)
	}
	eid, lid, cid, wid := loc.Data()["entity_id"], loc.Data()["id"], cal.Data()["id"], hook.Data()["id"]
	lists := []string{
		api("/locations"), api("/locations?deleted=1"), api(fmt.Sprintf("/locations/%v/map_points", lid)),
		api("/calendars"), api(fmt.Sprintf("/calendars/%v/reminders", cid)), api(fmt.Sprintf("/calendars/%v/calendar_weather", cid)), api("/tags"), api("/maps"),
		api("/entities"), api(fmt.Sprintf("/entities/%v/entity_events", eid)), api(fmt.Sprintf("/entities/%v/entity_notes", eid)),
		api(fmt.Sprintf("/entities/%v/posts", eid)), api(fmt.Sprintf("/entities/%v/reminders", eid)),
		api(fmt.Sprintf("/entities/%v/attributes", eid)), api(fmt.Sprintf("/entities/%v/relations", eid)), api("/relations"),
		api(fmt.Sprintf("/entities/%v/entity_tags", eid)), api(fmt.Sprintf("/entities/%v/mentions", eid)), api("/search/Water"),
		api("/recovery"), api("/users"), api("/entity_types"), api("/webhooks"), api(fmt.Sprintf("/webhooks/%v/deliveries", wid)),
		"/api/1.0/campaigns", "/api/1.0/entity-types",
	}
	refused := []struct {
		query, field, msg string
	}{
		{"page=-1", "page", "The page must be at least 1."},
		{"page=-99999999999999999999", "page", "The page must be at least 1."},
		{"page=99999999999999999999", "page", "The page must not be greater than 1048576."},
		{"page=9223372036854775807", "page", "The page must not be greater than 1048576."},
		{"page=1048577", "page", "The page must not be greater than 1048576."},
		{"limit=-5", "limit", "The limit must be at least 1."},
		{"per_page=-1", "per_page", "The per page must be at least 1."},
		{"limit=-1&per_page=5", "limit", "The limit must be at least 1."},
	}
	for _, list := range lists {
		for _, c := range refused {
			t.Run(strings.TrimPrefix(list, "/api/1.0/")+"?"+c.query, func(t *testing.T) {
				r := e.Do("GET", withQuery(list, c.query), e.Admin, nil)
				var keys []string
				for k := range r.Errors() {
					keys = append(keys, k)
				}
				if r.Status != 422 || !slices.Equal(keys, []string{c.field}) || r.Body["message"] != c.msg {
					t.Fatalf("got %d %.300s, want 422 %q naming only %s", r.Status, r.Raw, c.msg, c.field)
				}
			})
		}
	}
	// The defaults, as Kanka reads them; a limit past 100, however large, is 100.
	accepted := []struct {
		query         string
		page, perPage float64
	}{
		{"page=0&limit=0", 1, 45},
		{"page=abc&limit=x", 1, 45},
		{"page=&per_page=", 1, 45},
		{"page=+2&limit=+3", 2, 3},
		{"page=1048576&limit=99999999999999999999", 1048576, 100},
		{"page=-0&per_page=500", 1, 100},
	}
	for _, list := range []string{api("/locations"), api("/calendars"), api(fmt.Sprintf("/entities/%v/attributes", eid)), "/api/1.0/campaigns"} {
		for _, c := range accepted {
			r := e.Do("GET", withQuery(list, c.query), e.Admin, nil)
			m, _ := r.Body["meta"].(map[string]any)
			if r.Status != 200 || m["current_page"] != c.page || m["per_page"] != c.perPage {
				t.Errorf("%s?%s: %d %.300s, want page %v of %v", list, c.query, r.Status, r.Raw, c.page, c.perPage)
			}
		}
	}
}

func withQuery(path, q string) string {
	if u, err := url.Parse(path); err == nil && u.RawQuery != "" {
		return path + "&" + q
	}
	return path + "?" + q
}
