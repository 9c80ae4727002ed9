package attributes_test

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/attributes"
	"github.com/lorekeep/lorekeep/shared/attributes/attrstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func register(api *httpapi.API, st *store.Store) { attributes.Register(api, st) }

// entity makes a location and returns its entity id.
func entity(t *testing.T, e *apitest.Env, cid int64, private bool) int64 {
	t.Helper()
	l := domain.Location{Meta: domain.Meta{CampaignID: cid, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Place", IsPrivate: private}}
	if err := locstore.New(e.Store).CreateLocation(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	return l.EntityID
}

func attrs(cid, eid int64) string {
	return apitest.Path(cid, fmt.Sprintf("/entities/%d/attributes", eid))
}

func create(t *testing.T, e *apitest.Env, cid, eid int64, token string, body map[string]any) int64 {
	t.Helper()
	r := e.Do("POST", attrs(cid, eid), token, body)
	if r.Status != 200 {
		t.Fatalf("create attribute %v: %d %s", body, r.Status, r.Raw)
	}
	return int64(r.Data()["id"].(float64))
}

// stored reads the entity's attributes from the store, by name.
func stored(t *testing.T, e *apitest.Env, cid, eid int64) map[string]domain.Attribute {
	t.Helper()
	_, set, err := attrstore.New(e.Store).GetAttributes(context.Background(), cid, eid)
	all := set.Items
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]domain.Attribute{}
	for _, a := range all {
		out[a.Name] = a
	}
	return out
}

func TestFieldsOfBothEras(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	cases := []struct {
		name string
		body map[string]any
		want map[string]any
	}{
		{"today", map[string]any{"name": "Population", "value": "1200", "type_id": 6, "is_pinned": true, "default_order": 3, "api_key": "pop"},
			map[string]any{"name": "Population", "value": "1200", "parsed": "1200", "type_id": float64(6), "type": "number",
				"is_pinned": true, "is_star": true, "default_order": float64(3), "api_key": "pop", "is_private": false}},
		{"2022", map[string]any{"name": "Walled", "value": "1", "type": "checkbox", "is_star": true},
			map[string]any{"name": "Walled", "type_id": float64(3), "type": "checkbox", "is_pinned": true, "is_star": true}},
		{"standard, empty value", map[string]any{"name": "Notes", "value": "", "type": "text"},
			map[string]any{"name": "Notes", "value": nil, "type_id": float64(1), "type": nil, "api_key": nil}},
		{"value sanitised", map[string]any{"name": "Motto", "value": `<b>Salt</b><script>x()</script>`},
			map[string]any{"value": "<b>Salt</b>"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", attrs(e.Campaign, eid), e.Member, c.body)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			for k, v := range c.want {
				if got := r.Data()[k]; fmt.Sprint(got) != fmt.Sprint(v) {
					t.Errorf("%s = %v, want %v", k, got, v)
				}
			}
			if r.Data()["entity_id"] != float64(eid) || r.Data()["created_by"] != float64(e.MemberID) {
				t.Errorf("entity_id, created_by = %v, %v", r.Data()["entity_id"], r.Data()["created_by"])
			}
			id := int64(r.Data()["id"].(float64))
			show := e.Do("GET", fmt.Sprintf("%s/%d", attrs(e.Campaign, eid), id), e.Viewer, nil)
			if show.Status != 200 || fmt.Sprint(show.Data()) != fmt.Sprint(r.Data()) {
				t.Errorf("show: %d %v, created %v", show.Status, show.Data(), r.Data())
			}
		})
	}
	s := stored(t, e, e.Campaign, eid)
	if a := s["Walled"]; a.TypeID != 3 || !a.IsPinned || a.Value == nil || *a.Value != "1" {
		t.Errorf("stored Walled = %+v", a)
	}
}

func TestValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"value": "x"}, "name"},
		{map[string]any{"name": strings.Repeat("n", 192)}, "name"},
		{map[string]any{"name": "x", "type_id": 8}, "type_id"},
		{map[string]any{"name": "x", "type": "colour"}, "type"},
		{map[string]any{"name": "x", "api_key": strings.Repeat("k", 21)}, "api_key"},
		{map[string]any{"name": "x", "value": strings.Repeat("v", domain.MaxAttributeValue+1)}, "value"},
		{map[string]any{"name": "x", "is_private": "maybe"}, "is_private"},
	} {
		r := e.Do("POST", attrs(e.Campaign, eid), e.Admin, c.body)
		if r.Status != 422 || r.Errors()[c.field] == nil {
			t.Errorf("%v: %d %s, want 422 naming %s", c.body, r.Status, r.Raw, c.field)
		}
	}
	if n := len(stored(t, e, e.Campaign, eid)); n != 0 {
		t.Errorf("refused writes stored %d attributes", n)
	}
}

func TestPrivateAttributesAreForAdmins(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	secret := create(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Secret", "value": "cult", "is_private": true})
	create(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Open", "value": "port"})
	one := fmt.Sprintf("%s/%d", attrs(e.Campaign, eid), secret)
	for _, c := range []struct {
		who, token string
		list       int
		show       int
	}{{"admin", e.Admin, 2, 200}, {"member", e.Member, 1, 404}, {"viewer", e.Viewer, 1, 404}, {"outsider", e.Outsider, -1, 404}} {
		l := e.Do("GET", attrs(e.Campaign, eid), c.token, nil)
		switch {
		case c.list < 0 && l.Status != 404:
			t.Errorf("%s list: %d, want 404", c.who, l.Status)
		case c.list >= 0 && (l.Status != 200 || len(l.List()) != c.list || l.Body["meta"].(map[string]any)["total"] != float64(c.list)):
			t.Errorf("%s list: %d %s, want %d rows", c.who, l.Status, l.Raw, c.list)
		}
		if r := e.Do("GET", one, c.token, nil); r.Status != c.show {
			t.Errorf("%s show: %d, want %d", c.who, r.Status, c.show)
		}
	}
	if r := e.Do("PATCH", one, e.Member, map[string]any{"value": "none"}); r.Status != 404 {
		t.Errorf("member update of a private attribute: %d", r.Status)
	}
	if r := e.Do("DELETE", one, e.Member, nil); r.Status != 404 {
		t.Errorf("member delete of a private attribute: %d", r.Status)
	}
	if r := e.Do("POST", attrs(e.Campaign, eid), e.Member, map[string]any{"name": "Mine", "is_private": true}); r.Status != 403 {
		t.Errorf("member creating a private attribute: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("POST", attrs(e.Campaign, eid), e.Viewer, map[string]any{"name": "Mine"}); r.Status != 403 {
		t.Errorf("viewer create: %d", r.Status)
	}
	// A member's bulk replace neither sees nor deletes the private one.
	r := e.Do("PUT", attrs(e.Campaign, eid), e.Member, map[string]any{"attribute": []any{map[string]any{"name": "Fresh", "type_id": 1}}})
	if r.Status != 200 || len(r.List()) != 1 || r.List()[0].(map[string]any)["name"] != "Fresh" {
		t.Fatalf("member PUT: %d %s", r.Status, r.Raw)
	}
	s := stored(t, e, e.Campaign, eid)
	if _, ok := s["Secret"]; !ok || len(s) != 2 {
		t.Errorf("after a member's PUT: %v, want Secret and Fresh", s)
	}
	if s["Secret"].Value == nil || *s["Secret"].Value != "cult" {
		t.Errorf("private attribute changed: %+v", s["Secret"])
	}
}

func TestHiddenAndForeignEntities(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	hidden := entity(t, e, e.Campaign, true)
	create(t, e, e.Campaign, hidden, e.Admin, map[string]any{"name": "Secret"})
	var foreign int64 // an id our campaign does not have
	for foreign <= hidden+1 {
		foreign = entity(t, e, e.OtherCampaign, false)
	}
	pub := entity(t, e, e.PublicCampaign, false)
	create(t, e, e.PublicCampaign, pub, e.Admin, map[string]any{"name": "Open"})
	for _, c := range []struct {
		name, method, path, token string
		want                      int
	}{
		{"member, private entity", "GET", attrs(e.Campaign, hidden), e.Member, 404},
		{"member, private entity, write", "POST", attrs(e.Campaign, hidden), e.Member, 404},
		{"member, bulk on a private entity", "PATCH", attrs(e.Campaign, hidden), e.Member, 404},
		{"another campaign's entity in ours", "GET", attrs(e.Campaign, foreign), e.Admin, 404},
		{"another campaign", "GET", attrs(e.OtherCampaign, foreign), e.Admin, 404},
		{"public reader", "GET", attrs(e.PublicCampaign, pub), e.Outsider, 200},
		{"public reader write", "POST", attrs(e.PublicCampaign, pub), e.Outsider, 403},
		{"no such entity", "GET", attrs(e.Campaign, 99999), e.Admin, 404},
	} {
		r := e.Do(c.method, c.path, c.token, map[string]any{"name": "X", "attribute": []any{}})
		if r.Status != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, r.Status, r.Raw, c.want)
		}
	}
	if n := len(stored(t, e, e.Campaign, hidden)); n != 1 {
		t.Errorf("hidden entity has %d attributes, want 1", n)
	}
}

func TestBulkReplaceAndUpdate(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	keep := create(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Keep", "value": "1", "is_pinned": true})
	drop := create(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Drop", "value": "2"})
	row := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name   string
		method string
		rows   []any
		status int
		want   map[string]string // name -> value, the whole stored set
		field  string
	}{
		{"PATCH updates by id, creates, skips empty and repeated names, keeps the rest", "PATCH", []any{
			row("id", keep, "name", "Kept", "value", "10"), row("name", "New", "value", "n", "type_id", 1),
			row("name", ""), row("name", "New", "value", "dup"), row("name", "Drop", "value", "taken")},
			200, map[string]string{"Kept": "10", "New": "n", "Drop": "2"}, ""},
		{"unknown id", "PATCH", []any{row("id", 999999, "name", "Ghost")}, 422, nil, "attribute.0.id"},
		{"a row that is not an object", "PATCH", []any{"x"}, 422, nil, "attribute.0"},
		{"a bad value", "PATCH", []any{row("name", "Big", "value", strings.Repeat("v", domain.MaxAttributeValue+1))}, 422, nil, "attribute.0.value"},
		{"PUT replaces", "PUT", []any{row("id", keep, "value", "11"), row("name", "Third", "type_id", 2, "value", "t")},
			200, map[string]string{"Kept": "11", "Third": "t"}, ""},
		{"empty PUT deletes all", "PUT", []any{}, 200, map[string]string{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := stored(t, e, e.Campaign, eid)
			r := e.Do(c.method, attrs(e.Campaign, eid), e.Admin, map[string]any{"attribute": c.rows})
			if r.Status != c.status {
				t.Fatalf("%d %s, want %d", r.Status, r.Raw, c.status)
			}
			s := stored(t, e, e.Campaign, eid)
			if c.status != 200 {
				if r.Errors()[c.field] == nil {
					t.Errorf("errors %v, want %s", r.Errors(), c.field)
				}
				if snapshot(s) != snapshot(before) {
					t.Errorf("a refused bulk write changed the attributes")
				}
				return
			}
			got := map[string]string{}
			for n, a := range s {
				got[n] = ""
				if a.Value != nil {
					got[n] = *a.Value
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("stored %v, want %v", got, c.want)
			}
			if len(r.List()) != len(c.want) {
				t.Errorf("answered %d rows, want %d", len(r.List()), len(c.want))
			}
		})
	}
	_ = drop
}

// A new row without type_id is a standard attribute in a bulk PUT as in a PATCH (and as a
// single create): Kanka's attribute column defaults to 1, and only its PUT's validation asked
// for type_id, which PATCH and POST never did (issue 38).
func TestBulkNewRowsDefaultToStandard(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	cases := []struct {
		name, method string
		row          map[string]any
		typeID       int
		typ          any // the 2022 `type` answered
	}{
		{"PUT without type_id", "PUT", map[string]any{"name": "Typeless", "value": "v"}, domain.AttributeStandard, nil},
		{"PATCH without type_id", "PATCH", map[string]any{"name": "Typeless", "value": "v"}, domain.AttributeStandard, nil},
		{"PUT with type_id null", "PUT", map[string]any{"name": "Typeless", "value": "v", "type_id": nil}, domain.AttributeStandard, nil},
		{"PUT with the 2022 type", "PUT", map[string]any{"name": "Typed", "value": "v", "type": "checkbox"}, 3, "checkbox"},
		{"PUT with type_id", "PUT", map[string]any{"name": "Numbered", "value": "7", "type_id": 6}, 6, "number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			eid := entity(t, e, e.Campaign, false)
			r := e.Do(c.method, attrs(e.Campaign, eid), e.Admin, map[string]any{"attribute": []any{c.row}})
			if r.Status != 200 || len(r.List()) != 1 {
				t.Fatalf("got %d %s, want 200 with the one attribute", r.Status, r.Raw)
			}
			got := r.List()[0].(map[string]any)
			if got["name"] != c.row["name"] || got["type_id"] != float64(c.typeID) || got["type"] != c.typ {
				t.Errorf("answered %v, want type_id %d and type %v", got, c.typeID, c.typ)
			}
			s := stored(t, e, e.Campaign, eid)
			if a, ok := s[c.row["name"].(string)]; len(s) != 1 || !ok || a.TypeID != c.typeID || a.Value == nil || *a.Value != c.row["value"] {
				t.Errorf("stored %s, want the one attribute of type %d", snapshot(s), c.typeID)
			}
		})
	}
}

func TestBulkRewritesOrderAndClearsFlags(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	a := create(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "A", "is_pinned": true, "is_private": true, "default_order": 9})
	b := create(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "B", "default_order": 0})
	r := e.Do("PATCH", attrs(e.Campaign, eid), e.Admin, map[string]any{"attribute": []any{
		map[string]any{"id": b, "name": "B"}, map[string]any{"id": a, "name": "A"}}})
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	s := stored(t, e, e.Campaign, eid)
	if s["B"].DefaultOrder != 0 || s["A"].DefaultOrder != 1 || s["A"].IsPinned || s["A"].IsPrivate {
		t.Errorf("after PATCH: A %+v, B %+v; want orders 1, 0 and A's flags cleared (Kanka)", s["A"], s["B"])
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	var rows []any
	for i := 0; i <= domain.MaxAttributes; i++ {
		rows = append(rows, map[string]any{"name": fmt.Sprint("A", i), "type_id": 1})
	}
	if r := e.Do("PUT", attrs(e.Campaign, eid), e.Admin, map[string]any{"attribute": rows}); r.Status != 422 || r.Errors()["attribute"] == nil {
		t.Errorf("251 attributes: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("PUT", attrs(e.Campaign, eid), e.Admin, map[string]any{"attribute": rows[:domain.MaxAttributes]}); r.Status != 200 || len(r.List()) != domain.MaxAttributes {
		t.Fatalf("250 attributes: %d", r.Status)
	}
	if r := e.Do("POST", attrs(e.Campaign, eid), e.Admin, map[string]any{"name": "One more"}); r.Status != 422 || r.Errors()["value"] == nil {
		t.Errorf("the 251st attribute: %d %s", r.Status, r.Raw)
	}
	// Bytes: five values of 64 KiB fit no entity (300 KiB).
	big := strings.Repeat("v", domain.MaxAttributeValue)
	other := entity(t, e, e.Campaign, false)
	for i := 0; i < 4; i++ {
		create(t, e, e.Campaign, other, e.Admin, map[string]any{"name": fmt.Sprint("Big", i), "value": big})
	}
	if r := e.Do("POST", attrs(e.Campaign, other), e.Admin, map[string]any{"name": "Big4", "value": big}); r.Status != 422 || r.Errors()["value"] == nil {
		t.Errorf("over 300 KiB: %d %s", r.Status, r.Raw)
	}
	if n := len(stored(t, e, e.Campaign, other)); n != 4 {
		t.Errorf("%d stored, want 4", n)
	}
}

// TestRoundTrips: a show and a list are one read (the entity and its pack, read ahead with
// the campaign access); an update or a bulk write one more, its one transaction.
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	id := create(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "A"})
	for i := 0; i < 60; i++ {
		create(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": fmt.Sprint("More", i)})
	}
	one := fmt.Sprintf("%s/%d", attrs(e.Campaign, eid), id)
	for _, c := range []struct {
		method, path string
		body         any
		want         int64
	}{
		{"GET", one, nil, 1},
		{"GET", attrs(e.Campaign, eid) + "?page=2&limit=10", nil, 1},
		{"PATCH", one, map[string]any{"value": "x"}, 2},
		{"DELETE", one, nil, 2},
		{"PATCH", attrs(e.Campaign, eid), map[string]any{"attribute": []any{map[string]any{"name": "More1", "value": "y"}}}, 2},
	} {
		e.Counter.Reset()
		r := e.Do(c.method, c.path, e.Admin, c.body)
		if r.Status != 200 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, r.Status, r.Raw)
		}
		if n := e.Counter.N(); n != c.want {
			t.Errorf("%s %s: %d DynamoDB calls, want %d", c.method, c.path, n, c.want)
		}
	}
}

// snapshot renders stored attributes comparably (their pointers' targets, not addresses).
func snapshot(m map[string]domain.Attribute) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(m)) {
		a := m[name]
		v := "<nil>"
		if a.Value != nil {
			v = *a.Value
		}
		fmt.Fprintf(&b, "%d %s=%s %d %v %v %d;", a.ID, a.Name, v, a.TypeID, a.IsPrivate, a.IsPinned, a.DefaultOrder)
	}
	return b.String()
}

// TestDeletions: `?deleted=1` answers the attributes deleted after lastSync (one at a time or
// by a bulk PUT), private ones to admins only, in one read; lastSync lists what changed.
func TestDeletions(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	cid := e.Campaign
	eid := entity(t, e, cid, false)
	hiddenEid := entity(t, e, cid, true)
	var ids []int64
	for i := 0; i < 5; i++ {
		ids = append(ids, create(t, e, cid, eid, e.Admin, map[string]any{"name": fmt.Sprint("A", i), "is_private": i == 1}))
	}
	since := apitest.SyncPoint()
	for _, id := range ids[:2] {
		if r := e.Do("DELETE", fmt.Sprintf("%s/%d", attrs(cid, eid), id), e.Admin, nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Raw)
		}
	}
	// A bulk PUT keeps A3 (updated) and A4, so A2 goes.
	if r := e.Do("PUT", attrs(cid, eid), e.Admin, map[string]any{"attribute": []any{
		map[string]any{"id": ids[3], "name": "A3", "value": "v"}, map[string]any{"id": ids[4], "name": "A4"}}}); r.Status != 200 {
		t.Fatalf("bulk: %d %s", r.Status, r.Raw)
	}
	ts := url.QueryEscape(domain.FormatTime(since))
	rows := func(r apitest.Response) string {
		var out []int64
		for _, row := range r.List() {
			out = append(out, int64(row.(map[string]any)["id"].(float64)))
		}
		return fmt.Sprint(out)
	}
	for _, c := range []struct {
		name, path, token, want string
		status                  int
	}{
		{"admin", attrs(cid, eid) + "?deleted=1&lastSync=" + ts, e.Admin, fmt.Sprint([]int64{ids[0], ids[1], ids[2]}), 200},
		{"member", attrs(cid, eid) + "?deleted=1&lastSync=" + ts, e.Member, fmt.Sprint([]int64{ids[0], ids[2]}), 200},
		{"viewer, no lastSync", attrs(cid, eid) + "?deleted=1", e.Viewer, fmt.Sprint([]int64{ids[0], ids[2]}), 200},
		{"after them", attrs(cid, eid) + "?deleted=1&lastSync=" + url.QueryEscape(domain.FormatTime(time.Now().UTC())), e.Admin, "[]", 200},
		{"changed since", attrs(cid, eid) + "?lastSync=" + ts, e.Admin, fmt.Sprint([]int64{ids[3], ids[4]}), 200},
		{"hidden entity", attrs(cid, hiddenEid) + "?deleted=1", e.Member, "[]", 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", c.path, c.token, nil)
			if r.Status != c.status || (c.status == 200 && rows(r) != c.want) {
				t.Fatalf("%d %s, want %d ids %s", r.Status, r.Raw, c.status, c.want)
			}
			if n := e.Counter.N(); c.status == 200 && n != 1 {
				t.Errorf("%d DynamoDB calls, want 1", n)
			}
		})
	}
}
