package compat_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/token"
)

// model is what a strict client of the 2022 API (firelilith/pykanka's dataclasses) accepts of
// a record: the fields it declares (every other key is an error) and, among them, those the
// 2022 API always answered. It is the 2022 field set written out again, independently of
// httpapi.Fields2022, from the spec's tables and Kanka's 2022 resources as pykanka models them
// (ed222f85, March 2022: EntityData, LocationData, EntityEvent, EntityNotes, Attribute,
// Relation build a record with **data, so an unknown key raises) and its recorded Kanka answers
// (no location has a location_id there, and LocationData has none).
type model struct {
	always, optional []string
	nested           map[string]*model // a field's object, or each object of its array
}

var audit = []string{"created_at", "created_by", "updated_at", "updated_by"}

func withAudit(keys ...string) []string { return append(keys, audit...) }

var (
	event2022 = &model{always: withAudit("id", "entity_id", "calendar_id", "comment", "date", "year", "length",
		"is_recurring", "recurring_periodicity", "recurring_until", "type_id", "is_private", "visibility")}
	note2022      = &model{always: withAudit("id", "entity_id", "name", "entry", "entry_parsed", "position", "visibility", "settings")}
	attribute2022 = &model{always: withAudit("id", "entity_id", "name", "value", "parsed", "type", "default_order", "is_private", "is_star", "api_key")}
	relation2022  = &model{always: withAudit("id", "owner_id", "target_id", "relation", "attitude", "colour", "visibility", "is_star")}
	related2022   = map[string]*model{"attributes": attribute2022, "entity_notes": note2022, "entity_events": event2022,
		"relations": relation2022, "inventory": {}, "entity_abilities": {}}
	location2022 = &model{always: withAudit("id", "name", "entry", "image", "image_full", "image_thumb", "has_custom_image",
		"is_private", "parent_location_id", "entity_id", "tags", "map", "is_map_private", "type"), nested: related2022}
	mapPoint2022 = &model{always: []string{"id", "location_id", "target_entity_id", "name", "axis_x", "axis_y", "colour",
		"size", "icon", "shape", "created_at", "updated_at"}}
	calendar2022 = &model{always: withAudit("id", "name", "entry", "image", "image_full", "image_thumb", "has_custom_image",
		"is_private", "entity_id", "tags", "type", "date", "parameters", "months", "start_offset", "weekdays", "years",
		"seasons", "moons", "suffix", "has_leap_year", "leap_year_amount", "leap_year_month", "leap_year_offset", "leap_year_start"),
		nested: map[string]*model{"months": {always: []string{"name", "length", "type"}}, "seasons": {always: []string{"name", "month", "day"}},
			"moons":      {always: []string{"name", "fullmoon", "offset", "colour"}},
			"attributes": attribute2022, "entity_notes": note2022, "entity_events": event2022, "relations": relation2022,
			"inventory": {}, "entity_abilities": {}}}
	entity2022 = &model{always: withAudit("id", "name", "type", "child_id", "tags", "is_private", "campaign_id",
		"is_attributes_private", "is_template", "tooltip", "header_image", "image_uuid"), optional: []string{"child"}, nested: related2022}
)

// accept fails t unless v (a record, or each record of a list) is what m accepts.
func (m *model) accept(t *testing.T, what string, v any) {
	t.Helper()
	if list, ok := v.([]any); ok {
		for i, x := range list {
			m.accept(t, fmt.Sprintf("%s[%d]", what, i), x)
		}
		return
	}
	rec, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s = %v, want an object", what, v)
		return
	}
	var unknown []string
	for k, x := range rec {
		if n, isNested := m.nested[k]; isNested {
			if len(n.always)+len(n.optional)+len(n.nested) > 0 {
				n.accept(t, what+"."+k, x)
			}
			continue
		}
		if !slices.Contains(m.always, k) && !slices.Contains(m.optional, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("%s has fields the 2022 API never answered, which a strict 2022 client refuses: %v", what, unknown)
	}
	for _, k := range m.always {
		if _, ok := rec[k]; !ok {
			t.Errorf("%s has no %s, a 2022 field", what, k)
		}
	}
}

// A token bound to the 2022 field set answers the 2022 API's fields only, on every route the
// 2022 API had, for every method; what it writes is stored as any token's write (read back
// with a token of every field); a token of every field still reads today's fields.
func TestATokenBoundTo2022AnswersThe2022FieldSet(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	old := e.TokenWithFieldSet(e.AdminID, 0, token.Fields2022)
	api := func(rest string) string { return apitest.Path(e.Campaign, rest) }
	must := func(r apitest.Response) map[string]any {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		return r.Data()
	}
	e.EnsureTags(e.Campaign, 1)
	cal := must(e.Do("POST", api("/calendars"), e.Admin, calendarBody("Harptos")))
	loc := must(e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Waterdeep", "entry": "<p>City.</p>", "tags": []int{1}}))
	other := must(e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Luskan"}))
	eid, lid, cid := loc["entity_id"], loc["id"], cal["id"]
	ent := func(rest string) string { return api(fmt.Sprintf("/entities/%v%s", eid, rest)) }
	ev := must(e.Do("POST", ent("/entity_events"), e.Admin, map[string]any{"name": "Founding", "calendar_id": cid,
		"day": 3, "month": 2, "year": 900, "length": 1, "colour": "#aa0000"}))
	note := must(e.Do("POST", ent("/entity_notes"), e.Admin, map[string]any{"name": "History", "entry": "<p>Old.</p>", "visibility": "all"}))
	attr := must(e.Do("POST", ent("/attributes"), e.Admin, map[string]any{"name": "Population", "value": "1200", "type_id": 6}))
	rel := must(e.Do("POST", ent("/relations"), e.Admin, map[string]any{"target_id": other["entity_id"], "relation": "rival"}))
	point := must(e.Do("POST", api(fmt.Sprintf("/locations/%v/map_points", lid)), e.Admin, map[string]any{
		"name": "Gate", "axis_x": 1, "axis_y": 2, "colour": "red", "shape": "circle", "size": "small", "icon": "pin"}))

	cases := []struct {
		method, path string
		body         any
		m            *model
	}{
		{"GET", api("/locations"), nil, location2022},
		{"GET", api(fmt.Sprintf("/locations/%v", lid)), nil, location2022},
		{"GET", api("/locations?related=1"), nil, location2022},
		{"GET", api(fmt.Sprintf("/locations/%v?related=1", lid)), nil, location2022},
		{"POST", api("/locations"), map[string]any{"name": "Neverwinter", "entity_image_uuid": nil}, location2022},
		{"PATCH", api(fmt.Sprintf("/locations/%v", lid)), map[string]any{"type": "City"}, location2022},
		{"PUT", api(fmt.Sprintf("/locations/%v", lid)), map[string]any{"type": "Metropolis"}, location2022},
		{"GET", api(fmt.Sprintf("/locations/%v/map_points", lid)), nil, mapPoint2022},
		{"GET", api(fmt.Sprintf("/locations/%v/map_points/%v", lid, point["id"])), nil, mapPoint2022},
		{"PATCH", api(fmt.Sprintf("/locations/%v/map_points/%v", lid, point["id"])), map[string]any{"axis_x": 5}, mapPoint2022},
		{"GET", api("/calendars"), nil, calendar2022},
		{"GET", api(fmt.Sprintf("/calendars/%v?related=1", cid)), nil, calendar2022},
		{"POST", api("/calendars"), calendarBody("Reckoning"), calendar2022},
		{"PATCH", api(fmt.Sprintf("/calendars/%v", cid)), map[string]any{"current_day": 11}, calendar2022},
		{"GET", ent("/entity_events"), nil, event2022},
		{"GET", ent(fmt.Sprintf("/entity_events/%v", ev["id"])), nil, event2022},
		{"POST", ent("/entity_events"), map[string]any{"name": "Fall", "calendar_id": cid, "day": 1, "month": 1, "year": 901, "length": 2}, event2022},
		{"PUT", ent(fmt.Sprintf("/entity_events/%v", ev["id"])), map[string]any{"comment": "first"}, event2022},
		{"GET", ent("/entity_notes"), nil, note2022},
		{"GET", ent(fmt.Sprintf("/entity_notes/%v", note["id"])), nil, note2022},
		{"POST", ent("/entity_notes"), map[string]any{"name": "Rumours", "visibility": "members"}, note2022},
		{"PATCH", ent(fmt.Sprintf("/entity_notes/%v", note["id"])), map[string]any{"position": 2}, note2022},
		{"GET", api("/entities"), nil, entity2022},
		{"GET", ent(""), nil, entity2022},
		{"GET", ent("?image=1"), nil, entity2022},
		{"GET", api("/entities?related=1"), nil, entity2022},
		{"GET", ent("/attributes"), nil, attribute2022},
		{"GET", ent(fmt.Sprintf("/attributes/%v", attr["id"])), nil, attribute2022},
		{"POST", ent("/attributes"), map[string]any{"name": "Ruler", "value": "Laeral"}, attribute2022},
		{"PATCH", ent("/attributes"), map[string]any{"attribute": []any{map[string]any{"id": attr["id"], "name": "Population", "value": "1300"}}}, attribute2022},
		{"GET", ent("/relations"), nil, relation2022},
		{"GET", ent(fmt.Sprintf("/relations/%v", rel["id"])), nil, relation2022},
		{"PATCH", ent(fmt.Sprintf("/relations/%v", rel["id"])), map[string]any{"attitude": 10}, relation2022},
	}
	for _, c := range cases {
		t.Run(c.method+" "+strings.TrimPrefix(c.path, "/api/1.0/campaigns/"), func(t *testing.T) {
			e := e.For(t)
			r := e.Do(c.method, c.path, old, c.body)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			c.m.accept(t, "data", r.Body["data"])
			if _, list := r.Body["data"].([]any); list && (r.Body["links"] == nil || r.Body["meta"] == nil || r.Body["sync"] == nil) {
				t.Errorf("a list lost its envelope: %s", r.Raw)
			}
			if c.method == "GET" { // HEAD answers the same headers, the trimmed body's length among them
				h := e.DoRaw("HEAD", c.path, old, "", nil)
				if h.Header.Get("Content-Length") != fmt.Sprint(len(r.Raw)) {
					t.Errorf("HEAD Content-Length %q, GET's body %d bytes", h.Header.Get("Content-Length"), len(r.Raw))
				}
			}
		})
	}

	// What a 2022 token wrote is stored whole, and a token of every field reads today's fields.
	created := e.Do("POST", ent("/entity_events"), old, map[string]any{"name": "Siege", "calendar_id": cid, "day": 4, "month": 3, "year": 902, "length": 1, "colour": "#00aa00"})
	if created.Status != 200 {
		t.Fatalf("%d %s", created.Status, created.Raw)
	}
	if _, has := created.Data()["name"]; has {
		t.Errorf("a 2022 token's event answered its name: %s", created.Raw)
	}
	full := must(e.Do("GET", ent(fmt.Sprintf("/entity_events/%v", created.Data()["id"])), e.Admin, nil))
	if full["name"] != "Siege" || full["colour"] != "#00aa00" || full["day"] != float64(4) || full["visibility_id"] == nil {
		t.Errorf("the event a 2022 token wrote, read with a token of every field: %v", full)
	}
	for _, c := range []struct {
		path  string
		field string
	}{
		{api(fmt.Sprintf("/locations/%v", lid)), "entity_image_uuid"},
		{api(fmt.Sprintf("/locations/%v", lid)), "entry_parsed"},
		{api(fmt.Sprintf("/locations/%v", lid)), "location_id"},
		{ent(fmt.Sprintf("/entity_notes/%v", note["id"])), "visibility_id"},
		{api(fmt.Sprintf("/calendars/%v", cid)), "epochs"},
		{ent(""), "module"},
		{ent("/attributes"), "type_id"},
	} {
		r := e.Do("GET", c.path, e.Admin, nil)
		rec, _ := r.Body["data"].(map[string]any)
		if list := r.List(); len(list) > 0 {
			rec, _ = list[0].(map[string]any)
		}
		if _, has := rec[c.field]; r.Status != 200 || !has {
			t.Errorf("GET %s with a token of every field: %d, no %s: %s", c.path, r.Status, c.field, r.Raw)
		}
	}

	// Beside the records: a delete's answer, a ?deleted=1 page's tombstones, the routes the 2022
	// API did not have (posts), and ?fields= on top.
	gone := must(e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Gone"}))
	since := e.Do("GET", api("/locations"), e.Admin, nil).Body["sync"].(string)
	apitest.WaitPastSync(t, since)
	if r := e.Do("DELETE", api(fmt.Sprintf("/locations/%v", gone["id"])), old, nil); r.Status != 200 || r.Data()["deleted"] != true || r.Data()["id"] != gone["id"] {
		t.Errorf("DELETE with a 2022 token: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", api("/locations?deleted=1&lastSync="+since), old, nil); r.Status != 200 || len(r.List()) != 1 || r.List()[0].(map[string]any)["deleted_at"] == nil {
		t.Errorf("?deleted=1 with a 2022 token: %d %s, want the tombstone with its deleted_at", r.Status, r.Raw)
	}
	if r := e.Do("GET", ent("/posts"), old, nil); r.Status != 200 || len(r.List()) == 0 || r.List()[0].(map[string]any)["visibility_id"] == nil {
		t.Errorf("posts (not a 2022 route) with a 2022 token: %d %s, want today's post", r.Status, r.Raw)
	}
	if r := e.Do("GET", api(fmt.Sprintf("/locations/%v?fields=name,entry_parsed", lid)), old, nil); r.Status != 200 || fmt.Sprint(r.Data()) != "map[name:Waterdeep]" {
		t.Errorf("?fields=name,entry_parsed with a 2022 token: %d %s, want the name only", r.Status, r.Raw)
	}
}

// One keyed write, two field sets: the answer stored with the Idempotency-Key is the whole
// record, and each caller reads it in its token's field set.
func TestAKeyedWritesAnswerFollowsTheReadersFieldSet(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	old := e.TokenWithFieldSet(e.AdminID, 0, token.Fields2022)
	path := apitest.Path(e.Campaign, "/locations")
	post := func(tok string) (int, http.Header, map[string]any) {
		req, _ := http.NewRequest("POST", e.Server.URL+path, bytes.NewReader([]byte(`{"name":"Keyed"}`)))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "keyed-2022")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		data, _ := body["data"].(map[string]any)
		return res.StatusCode, res.Header, data
	}
	status, h, first := post(old)
	_, uuid := first["entity_image_uuid"]
	if status != 200 || uuid || h.Get("Idempotent-Replayed") != "" || first["name"] != "Keyed" {
		t.Fatalf("the 2022 token's keyed create: %d %v %v", status, h, first)
	}
	status, h, again := post(e.Admin)
	_, uuid = again["entity_image_uuid"]
	if status != 200 || !uuid || h.Get("Idempotent-Replayed") != "true" || again["id"] != first["id"] {
		t.Fatalf("its replay with a token of every field: %d %v %v, want the stored record whole", status, h, again)
	}
	status, h, third := post(old)
	if _, uuid = third["entity_image_uuid"]; status != 200 || uuid || h.Get("Idempotent-Replayed") != "true" || third["id"] != first["id"] {
		t.Fatalf("its replay with the 2022 token: %d %v %v, want it trimmed", status, h, third)
	}
	if n := e.Do("GET", path, e.Admin, nil).Body["meta"].(map[string]any)["total"]; n != float64(1) {
		t.Fatalf("%v locations stored, want the one", n)
	}
}

// Every route of the 2022 field set is one the API serves: a route renamed or moved would
// otherwise answer every field to a 2022 token without a word.
func TestThe2022FieldSetNamesServedRoutes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	served := map[string]bool{}
	for _, r := range e.API.Routes() {
		served[r.Path] = true
	}
	for pattern := range httpapi.Fields2022 {
		if !served[pattern] {
			t.Errorf("httpapi.Fields2022 has %s, which no family serves", pattern)
		}
	}
}
