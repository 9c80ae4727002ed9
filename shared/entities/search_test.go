package entities_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func search(cid int64, term, query string) string {
	return apitest.Path(cid, "/search/"+url.PathEscape(term)+query)
}

func childIDs(r apitest.Response) []int64 { return ids(r) }

func entityIDs(r apitest.Response) []int64 {
	var out []int64
	for _, it := range r.List() {
		out = append(out, int64(it.(map[string]any)["entity_id"].(float64)))
	}
	return out
}

// Kanka's search: every kind, a case-insensitive substring of the name, `%` and `_` literal,
// only what the caller may see, in Kanka's hit shape, paged 10 by default.
func TestSearchFindsNamesTheCallerMaySee(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	harbour := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Old Harbour"})
	secret := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Harbour of Secrets", "is_private": true})
	tides := create(t, e, e.Campaign, e.Admin, "calendars", calendarBody("HARBOUR tides"))
	pct := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "100% sure_thing"})
	other := create(t, e, e.OtherCampaign, e.Stranger, "locations", map[string]any{"name": "Harbour elsewhere"})
	pubOpen := create(t, e, e.PublicCampaign, e.Admin, "locations", map[string]any{"name": "Public harbour"})
	create(t, e, e.PublicCampaign, e.Admin, "locations", map[string]any{"name": "Hidden harbour", "is_private": true})
	_ = other

	cases := []struct {
		name  string
		cid   int64
		token string
		term  string
		want  []int64 // entity ids
	}{
		{"admin sees private hits, every kind", e.Campaign, e.Admin, "harbour", []int64{eid(harbour), eid(secret), eid(tides)}},
		{"member sees public hits only", e.Campaign, e.Member, "HARBOUR", []int64{eid(harbour), eid(tides)}},
		{"viewer", e.Campaign, e.Viewer, "arbo", []int64{eid(harbour), eid(tides)}},
		{"trimmed term", e.Campaign, e.Admin, "  tides ", []int64{eid(tides)}},
		{"percent is literal", e.Campaign, e.Admin, "%", []int64{eid(pct)}},
		{"underscore is literal", e.Campaign, e.Admin, "e_t", []int64{eid(pct)}},
		{"no hit", e.Campaign, e.Admin, "nowhere", nil},
		{"public reader of a public campaign", e.PublicCampaign, e.Outsider, "harbour", []int64{eid(pubOpen)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("GET", search(c.cid, c.term, ""), c.token, nil)
			if r.Status != 200 || !slices.Equal(entityIDs(r), c.want) {
				t.Fatalf("%d %s, want entities %v", r.Status, r.Raw, c.want)
			}
			meta := r.Body["meta"].(map[string]any)
			if meta["total"] != float64(len(c.want)) || meta["per_page"] != float64(10) || r.Body["sync"] == nil {
				t.Errorf("meta %v sync %v", meta, r.Body["sync"])
			}
		})
	}

	// The hit shape (Kanka's Resources\Entity).
	r := e.Do("GET", search(e.Campaign, "old", ""), e.Member, nil)
	hit := r.List()[0].(map[string]any)
	want := map[string]any{"id": harbour["id"], "entity_id": float64(eid(harbour)), "name": "Old Harbour", "type": "location",
		"entity_type": "location", "type_id": float64(3), "is_private": false, "url": nil, "tooltip": nil, "type_field": nil,
		"has_custom_image": false, "created_by": float64(e.AdminID)}
	for k, v := range want {
		if got, ok := hit[k]; !ok || fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("hit %s = %v, want %v", k, got, v)
		}
	}
	if api := hit["urls"].(map[string]any)["api"]; api != e.Server.URL+apitest.Path(e.Campaign, fmt.Sprintf("/locations/%v", harbour["id"])) {
		t.Errorf("urls.api = %v", api)
	}

	// Closed to outsiders of a private campaign; a term longer than any name is a 422.
	for _, c := range []struct {
		path, token string
		status      int
	}{
		{search(e.Campaign, "harbour", ""), e.Outsider, 404},
		{search(e.Campaign, "harbour", ""), "", 401},
		{search(e.Campaign, string(make([]byte, 0))+fmt.Sprintf("%0192d", 0), ""), e.Admin, 422},
	} {
		if r := e.Do("GET", c.path, c.token, nil); r.Status != c.status {
			t.Errorf("GET %s: %d %s, want %d", c.path, r.Status, r.Raw, c.status)
		}
	}
}

// Renames, privacy changes and deletes reach the search in the record's own transaction.
func TestSearchFollowsWrites(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	loc := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Lighthouse"})
	path := apitest.Path(e.Campaign, fmt.Sprintf("/locations/%v", loc["id"]))
	steps := []struct {
		name        string
		method      string
		body        map[string]any
		term        string
		admin, memb []int64
	}{
		{"created", "", nil, "light", []int64{eid(loc)}, []int64{eid(loc)}},
		{"renamed", "PATCH", map[string]any{"name": "Beacon"}, "light", nil, nil},
		{"found by the new name", "", nil, "beacon", []int64{eid(loc)}, []int64{eid(loc)}},
		{"made private", "PATCH", map[string]any{"is_private": true}, "beacon", []int64{eid(loc)}, nil},
		{"deleted", "DELETE", nil, "beacon", nil, nil},
	}
	for _, s := range steps {
		if s.method != "" {
			if r := e.Do(s.method, path, e.Admin, s.body); r.Status != 200 {
				t.Fatalf("%s: %d %s", s.name, r.Status, r.Raw)
			}
		}
		for _, who := range []struct {
			token string
			want  []int64
		}{{e.Admin, s.admin}, {e.Member, s.memb}} {
			if r := e.Do("GET", search(e.Campaign, s.term, ""), who.token, nil); r.Status != 200 || !slices.Equal(entityIDs(r), who.want) {
				t.Errorf("%s: %d %s, want %v", s.name, r.Status, r.Raw, who.want)
			}
		}
	}
	if problems, err := ops.Audit(context.Background(), e.Store, e.Campaign); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
}

// A search page follows links.next; a search is three round trips (access, shards, the
// page's entities) whatever the campaign's size.
func TestSearchPagesAndRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	e.SeedLocations(e.Campaign, 25, 5)
	r := e.Do("GET", search(e.Campaign, "place", ""), e.Admin, nil)
	if r.Status != 200 || len(r.List()) != 10 || r.Body["meta"].(map[string]any)["total"] != float64(25) {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	var got []int64
	next := r.Body["links"].(map[string]any)["next"]
	got = append(got, entityIDs(r)...)
	for next != nil {
		u, _ := url.Parse(next.(string))
		r = e.Do("GET", u.RequestURI(), e.Admin, nil)
		got = append(got, entityIDs(r)...)
		next = r.Body["links"].(map[string]any)["next"]
	}
	if len(got) != 25 || !slices.IsSorted(got) {
		t.Fatalf("pages: %v", got)
	}
	for _, tok := range []string{e.Admin, e.Member} {
		e.Counter.Reset()
		if r := e.Do("GET", search(e.Campaign, "place 1", "?limit=5"), tok, nil); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		if n := e.Counter.N(); n != 3 {
			t.Errorf("search: %d DynamoDB calls, want 3", n)
		}
	}
}

// ?name= on locations, calendars and entities, and the search, read the name shards rather
// than every record: at 1,000 records (every tenth private) they read at most 60 KB, where a
// filtered scan of the range read every record (about 300 KB here).
func TestNameFilterReadsTheShardsNotTheRecords(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	e.SeedLocations(e.Campaign, 1000, 10)
	create(t, e, e.Campaign, e.Admin, "calendars", calendarBody("Place of tides"))
	cases := []struct {
		name, path, token string
		total             int
	}{
		{"locations, admin", apitest.Path(e.Campaign, "/locations?name=place%2012"), e.Admin, 11},
		{"locations, member", apitest.Path(e.Campaign, "/locations?name=place%2012"), e.Member, 10},
		{"locations, two terms", apitest.Path(e.Campaign, "/locations?name=place%2012;!place%20121"), e.Member, 9},
		{"calendars", apitest.Path(e.Campaign, "/calendars?name=place"), e.Member, 1},
		{"entities", ents(e.Campaign, "?name=tides"), e.Member, 1},
		{"entities of one type", ents(e.Campaign, "?name=place%2099&types=location"), e.Member, 10},
		{"search", search(e.Campaign, "place 99", ""), e.Member, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", c.path, c.token, nil)
			if r.Status != 200 || r.Body["meta"].(map[string]any)["total"] != float64(c.total) {
				t.Fatalf("%d %s, want total %d", r.Status, r.Raw, c.total)
			}
			t.Logf("%s: %d calls, %d bytes read", c.name, e.Counter.N(), e.Counter.Bytes())
			if b := e.Counter.Bytes(); b > 60_000 {
				t.Errorf("%d bytes read, budget 60 KB", b)
			}
			if n := e.Counter.N(); n != 3 {
				t.Errorf("%d DynamoDB calls, want 3", n)
			}
		})
	}
}
