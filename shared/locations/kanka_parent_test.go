package locations_test

import (
	"context"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func TestParentByEntityOnInput(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(api *httpapi.API, st *store.Store) {
		locations.Register(api, st)
		calendars.Register(api, st)
		calendardays.Register(api, st)
	})
	entityOf := func(id int64) float64 {
		return e.Do("GET", loc(e.Campaign, id), e.Admin, nil).Data()["entity_id"].(float64)
	}
	a := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "A"})
	hidden := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Hidden", "is_private": true})
	cal := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, map[string]any{
		"name": "Reckoning", "month_name": []string{"One", "Two"}, "month_length": []int{30, 30}, "weekday": []string{"A", "B"},
	})
	if cal.Status != 200 {
		t.Fatalf("calendar: %d %s", cal.Status, cal.Raw)
	}

	r := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Member, map[string]any{"name": "B", "parent_id": entityOf(a)})
	if r.Status != 200 || r.Data()["parent_location_id"] != float64(a) || r.Data()["location_id"] != float64(a) {
		t.Fatalf("create under A by entity: %d %s", r.Status, r.Raw)
	}
	b := int64(r.Data()["id"].(float64))
	cases := []struct {
		name  string
		id    int64
		token string
		body  map[string]any
	}{
		{"not an id", b, e.Admin, map[string]any{"parent_id": "abc"}},
		{"missing entity", b, e.Admin, map[string]any{"parent_id": 999999}},
		{"a calendar's entity", b, e.Admin, map[string]any{"parent_id": cal.Data()["entity_id"]}},
		{"hidden from a member", b, e.Member, map[string]any{"parent_id": entityOf(hidden)}},
		{"itself", b, e.Admin, map[string]any{"parent_id": entityOf(b)}},
		{"a cycle", a, e.Admin, map[string]any{"parent_id": entityOf(b)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("PATCH", loc(e.Campaign, c.id), c.token, c.body)
			if r.Status != 422 || r.Errors()["parent_id"] == nil {
				t.Fatalf("%d %s, want a 422 naming parent_id", r.Status, r.Raw)
			}
		})
	}
	if l, _ := locstore.New(e.Store).GetLocation(context.Background(), e.Campaign, a); l.ParentID != nil {
		t.Fatalf("a refused move was stored: %v", *l.ParentID)
	}
	// The spec's name wins when both are sent; null parent_id clears the parent.
	if r := e.Do("PATCH", loc(e.Campaign, b), e.Admin, map[string]any{"parent_location_id": hidden, "parent_id": 999999}); r.Status != 200 || r.Data()["parent_location_id"] != float64(hidden) {
		t.Fatalf("both names: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("PATCH", loc(e.Campaign, b), e.Admin, map[string]any{"parent_id": nil}); r.Status != 200 || r.Data()["parent_location_id"] != nil {
		t.Fatalf("null parent_id: %d %s", r.Status, r.Raw)
	}
	// The entity read is one round trip besides the parent check.
	body := map[string]any{"name": "C", "parent_id": entityOf(a)}
	e.Counter.Reset()
	if r := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, body); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if n := e.Counter.N(); n > 1+1+1+2 {
		t.Fatalf("create by parent entity: %d DynamoDB calls, budget 5", n)
	}
}
