package entities_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func ents(cid int64, query string) string { return apitest.Path(cid, "/entities"+query) }

func create(t *testing.T, e *apitest.Env, cid int64, token, collection string, body map[string]any) map[string]any {
	t.Helper()
	e.EnsureBodyTags(cid, body)
	r := e.Do("POST", apitest.Path(cid, "/"+collection), token, body)
	if r.Status != 200 {
		t.Fatalf("create %s %v: %d %s", collection, body, r.Status, r.Raw)
	}
	return r.Data()
}

func calendarBody(name string) map[string]any {
	return map[string]any{"name": name, "month_name": []string{"One", "Two"}, "month_length": []int{10, 10}, "weekday": []string{"A", "B"}}
}

func ids(r apitest.Response) []int64 {
	var out []int64
	for _, it := range r.List() {
		out = append(out, int64(it.(map[string]any)["id"].(float64)))
	}
	return out
}

func eid(rec map[string]any) int64 { return int64(rec["entity_id"].(float64)) }

func TestEntitiesMirrorTheirRecords(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	loc := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Harbour", "tags": []int{3, 4}})
	cal := create(t, e, e.Campaign, e.Member, "calendars", calendarBody("Tides"))

	r := e.Do("GET", ents(e.Campaign, "?types=location,calendar"), e.Member, nil)
	if r.Status != 200 || len(r.List()) != 2 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	got := r.List()[0].(map[string]any)
	want := map[string]any{"id": float64(eid(loc)), "name": "Harbour", "type": "location", "child_id": loc["id"],
		"is_private": false, "tags": []any{float64(3), float64(4)}, "created_by": float64(e.AdminID), "updated_by": float64(e.AdminID),
		"created_at": loc["created_at"], "updated_at": loc["updated_at"]}
	for k, v := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(v) {
			t.Errorf("entity %s = %v, want %v", k, got[k], v)
		}
	}
	if api := got["urls"].(map[string]any)["api"]; api != e.Server.URL+apitest.Path(e.Campaign, fmt.Sprintf("/locations/%v", loc["id"])) {
		t.Errorf("urls.api = %v", api)
	}
	if _, ok := got["child"]; ok {
		t.Errorf("child without ?image=1: %v", got["child"])
	}
	second := r.List()[1].(map[string]any)
	if second["type"] != "calendar" || second["child_id"] != cal["id"] || second["created_by"] != float64(e.MemberID) {
		t.Errorf("calendar entity = %v", second)
	}

	// An update of the record (name, tags, image) shows on its entity.
	e.EnsureTags(e.Campaign, 5)
	up := e.Do("PATCH", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%v", loc["id"])), e.Member, map[string]any{"name": "Old Harbour", "tags": []int{5}})
	if up.Status != 200 {
		t.Fatalf("%d %s", up.Status, up.Raw)
	}
	s := e.Do("GET", ents(e.Campaign, fmt.Sprintf("/%d?image=1", eid(loc))), e.Viewer, nil)
	if s.Status != 200 {
		t.Fatalf("%d %s", s.Status, s.Raw)
	}
	d := s.Data()
	if d["name"] != "Old Harbour" || fmt.Sprint(d["tags"]) != "[5]" || d["updated_by"] != float64(e.MemberID) || d["updated_at"] != up.Data()["updated_at"] {
		t.Errorf("entity after update = %v", d)
	}
	if c, _ := d["child"].(map[string]any); c == nil || c["image_full"] != "" || c["has_custom_image"] != false {
		t.Errorf("child with ?image=1 = %v", d["child"])
	}
}

func TestHiddenEntitiesStayHidden(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	open := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Open"})
	secret := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Secret", "is_private": true})
	pubOpen := create(t, e, e.PublicCampaign, e.Admin, "calendars", calendarBody("Public"))
	pubSecret := create(t, e, e.PublicCampaign, e.Admin, "calendars", map[string]any{"name": "Hidden", "is_private": true,
		"month_name": []string{"One", "Two"}, "month_length": []int{10, 10}, "weekday": []string{"A", "B"}})
	// Another campaign's entities: ids are per campaign, so the same id is another entity here.
	other := create(t, e, e.OtherCampaign, e.Stranger, "locations", map[string]any{"name": "Elsewhere"})
	other2 := create(t, e, e.OtherCampaign, e.Stranger, "locations", map[string]any{"name": "Elsewhere too"})
	other3 := create(t, e, e.OtherCampaign, e.Stranger, "locations", map[string]any{"name": "Elsewhere three"})
	if r := e.Do("GET", ents(e.Campaign, fmt.Sprintf("/%d", eid(other3))), e.Admin, nil); r.Status != 404 {
		t.Errorf("an id only another campaign has: %d %s, want 404", r.Status, r.Raw)
	}
	for _, o := range []map[string]any{other, other2} {
		if r := e.Do("GET", ents(e.Campaign, fmt.Sprintf("/%d", eid(o))), e.Admin, nil); r.Status == 200 && strings.HasPrefix(r.Data()["name"].(string), "Elsewhere") {
			t.Errorf("another campaign's entity shows through this campaign: %s", r.Raw)
		}
	}

	cases := []struct {
		name      string
		cid       int64
		token     string
		list      []int64
		shows     []int64
		notShown  []int64
		listTotal int
	}{
		{"admin sees private ones", e.Campaign, e.Admin, []int64{eid(open), eid(secret)}, []int64{eid(open), eid(secret)}, nil, 2},
		{"member", e.Campaign, e.Member, []int64{eid(open)}, []int64{eid(open)}, []int64{eid(secret)}, 1},
		{"viewer", e.Campaign, e.Viewer, []int64{eid(open)}, []int64{eid(open)}, []int64{eid(secret)}, 1},
		{"public reader", e.PublicCampaign, e.Outsider, []int64{eid(pubOpen)}, []int64{eid(pubOpen)}, []int64{eid(pubSecret)}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("GET", ents(c.cid, ""), c.token, nil)
			if r.Status != 200 || !slices.Equal(ids(r), c.list) || r.Body["meta"].(map[string]any)["total"] != float64(c.listTotal) {
				t.Fatalf("list: %d %s, want ids %v", r.Status, r.Raw, c.list)
			}
			for _, id := range c.shows {
				if s := e.Do("GET", ents(c.cid, fmt.Sprintf("/%d", id)), c.token, nil); s.Status != 200 {
					t.Errorf("show %d: %d", id, s.Status)
				}
			}
			for _, id := range c.notShown {
				if s := e.Do("GET", ents(c.cid, fmt.Sprintf("/%d", id)), c.token, nil); s.Status != 404 || s.Body["message"] != "Not found." {
					t.Errorf("show hidden %d: %d %s, want 404", id, s.Status, s.Raw)
				}
			}
		})
	}
	// A private campaign is closed to outsiders; ids that are not ids are 404s.
	for _, c := range []struct{ path, token string }{
		{ents(e.Campaign, ""), e.Outsider},
		{ents(e.Campaign, fmt.Sprintf("/%d", eid(open))), e.Outsider},
		{ents(e.Campaign, "/abc"), e.Admin},
		{ents(e.Campaign, "/0"), e.Admin},
	} {
		if r := e.Do("GET", c.path, c.token, nil); r.Status != 404 {
			t.Errorf("GET %s: %d, want 404", c.path, r.Status)
		}
	}
	if r := e.Do("GET", ents(e.Campaign, ""), "", nil); r.Status != 401 {
		t.Errorf("no token: %d", r.Status)
	}
}

func TestEntityListFiltersAndPages(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	before := time.Now().UTC().Add(-time.Hour)
	e.EnsureTags(e.Campaign, 1, 2) // tags are entities too: entities 1 and 2
	var all []int64
	for i := 0; i < 5; i++ {
		all = append(all, eid(create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": fmt.Sprintf("Port %d", i), "tags": []int{i%2 + 1}})))
	}
	calRec := create(t, e, e.Campaign, e.Admin, "calendars", calendarBody("Harbour Reckoning"))
	cal := eid(calRec)
	all = append(all, cal)
	every := append([]int64{1, 2}, all...) // with the tags' entities
	mid := calRec["updated_at"].(string)   // the last write before the update below
	if r := e.Do("PATCH", apitest.Path(e.Campaign, "/locations/2"), e.Admin, map[string]any{"type": "Dock"}); r.Status != 200 {
		t.Fatal(r.Status)
	}
	cases := []struct {
		query string
		want  []int64
	}{
		{"", every},
		{"?types=location,calendar", all},
		{"?types=", every},
		{"?types=calendar", []int64{cal}},
		{"?types=location", all[:5]},
		{"?types=character,family", nil},
		{"?types=Calendar,+character", []int64{cal}},
		{"?name=harbour", []int64{cal}},
		{"?name=PORT+3", []int64{all[3]}},
		{"?tags[]=2", []int64{all[1], all[3]}},
		{"?lastSync=" + url.QueryEscape(before.Format(time.RFC3339Nano)), every},
		{"?lastSync=" + url.QueryEscape(mid), []int64{all[1]}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r := e.Do("GET", ents(e.Campaign, c.query), e.Admin, nil)
			if r.Status != 200 || !slices.Equal(ids(r), c.want) {
				t.Fatalf("%d %s, want ids %v", r.Status, r.Raw, c.want)
			}
			if r.Body["meta"].(map[string]any)["total"] != float64(len(c.want)) {
				t.Errorf("total = %v, want %d", r.Body["meta"].(map[string]any)["total"], len(c.want))
			}
		})
	}
	// Pages by number, as Kanka clients page, and by the next link.
	var byNumber []int64
	for p := 1; p <= 4; p++ {
		r := e.Do("GET", ents(e.Campaign, fmt.Sprintf("?limit=2&page=%d", p)), e.Admin, nil)
		if r.Status != 200 || len(r.List()) != 2 || r.Body["meta"].(map[string]any)["last_page"] != float64(4) {
			t.Fatalf("page %d: %d %s", p, r.Status, r.Raw)
		}
		byNumber = append(byNumber, ids(r)...)
	}
	if !slices.Equal(byNumber, every) {
		t.Errorf("pages by number = %v, want %v", byNumber, every)
	}
	var byLink []int64
	next := e.Server.URL + ents(e.Campaign, "?limit=4")
	for next != "" {
		r := e.Do("GET", strings.TrimPrefix(next, e.Server.URL), e.Admin, nil)
		byLink = append(byLink, ids(r)...)
		next, _ = r.Body["links"].(map[string]any)["next"].(string)
	}
	if !slices.Equal(byLink, every) {
		t.Errorf("pages by link = %v, want %v", byLink, every)
	}
	// Bad filters are 422s naming the parameter.
	for q, field := range map[string]string{"?tags[]=x": "tags.0", "?is_private=maybe": "is_private"} {
		r := e.Do("GET", ents(e.Campaign, q), e.Admin, nil)
		if r.Status != 422 || r.Errors()[field] == nil {
			t.Errorf("%s: %d %s, want 422 naming %s", q, r.Status, r.Raw, field)
		}
	}
}

func TestEntityRoutesHeadAndMethods(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	loc := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Harbour"})
	for _, p := range []string{ents(e.Campaign, ""), ents(e.Campaign, fmt.Sprintf("/%d", eid(loc)))} {
		get := e.Do("GET", p, e.Admin, nil)
		head := e.Do("HEAD", p, e.Admin, nil)
		if head.Status != 200 || len(head.Raw) != 0 || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d %q", p, head.Status, head.Raw)
		}
		for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			r := e.Do(m, p, e.Admin, map[string]any{"name": "x"})
			if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
				t.Errorf("%s %s: %d Allow %q, want 405 with GET, HEAD, OPTIONS", m, p, r.Status, r.Header.Get("Allow"))
			}
		}
	}
}

// TestEntityRoundTrips: a show is one BatchGetItem (the entity read ahead with the campaign
// access); a list page that and one Query (the range counter read ahead too), by number as well.
func TestEntityRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	loc := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Harbour"})
	for _, c := range []struct {
		name, path string
		max        int64
	}{
		{"show", ents(e.Campaign, fmt.Sprintf("/%d", eid(loc))), 1},
		{"list page", ents(e.Campaign, "?types=location,calendar&page=1"), 2},
		{"list page by number", ents(e.Campaign, "?limit=1&page=2"), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, tok := range []string{e.Admin, e.Member} {
				e.Counter.Reset()
				if r := e.Do("GET", c.path, tok, nil); r.Status != 200 {
					t.Fatalf("%d %s", r.Status, r.Raw)
				}
				if n := e.Counter.N(); n > c.max || n == 0 {
					t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
				}
			}
		})
	}
}

// Entities answer Kanka's shape of today beside 2022's: the Foundry importer reads
// `module.code`, the 2024 docs `entity_type`; both on the list and on the show.
func TestEntitiesAnswerTodaysModuleShape(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	loc := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Harbour"})
	cal := create(t, e, e.Campaign, e.Admin, "calendars", calendarBody("Tides"))
	cases := []struct {
		record         map[string]any
		code, singular string
		id             float64
	}{
		{loc, "location", "Location", 3},
		{cal, "calendar", "Calendar", 8},
	}
	list := e.Do("GET", ents(e.Campaign, ""), e.Member, nil)
	for i, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			show := e.Do("GET", ents(e.Campaign, fmt.Sprintf("/%d", eid(c.record))), e.Member, nil)
			for _, got := range []map[string]any{list.List()[i].(map[string]any), show.Data()} {
				want := map[string]any{"type": c.code, "entity_type": c.code, "type_id": c.id, "child_id": c.record["id"],
					"campaign_id": float64(e.Campaign), "is_template": false, "type_field": nil, "header_uuid": nil, "archived_at": nil,
					"module": map[string]any{"id": c.id, "code": c.code, "singular": c.singular, "plural": c.singular + "s"}}
				for k, v := range want {
					if fmt.Sprint(got[k]) != fmt.Sprint(v) {
						t.Errorf("%s = %v, want %v", k, got[k], v)
					}
					if _, ok := got[k]; !ok {
						t.Errorf("%s missing", k)
					}
				}
				urls := got["urls"].(map[string]any)
				if urls["view"] != nil || urls["api"] != e.Server.URL+apitest.Path(e.Campaign, fmt.Sprintf("/%ss/%v", c.code, c.record["id"])) {
					t.Errorf("urls = %v", urls)
				}
			}
		})
	}
}
