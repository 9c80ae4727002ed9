package compat_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// world is a campaign written through the spec's 2022 routes, as an existing user's data is.
type world struct {
	*apitest.Env
	locations, calendars map[string]map[string]any // by name, as created
	entityIDs            []int64                   // every entity the member may see, ascending
}

func calendarBody(name string) map[string]any {
	return map[string]any{"name": name, "month_name": []string{"Thaw", "Bloom", "Tides"}, "month_length": []int{30, 30, 30},
		"weekday": []string{"Moon", "Tide", "Rest"}, "moon_name": []string{"Pale"}, "moon_fullmoon": []string{"9"},
		"current_year": 1201, "current_month": 2, "current_day": 10}
}

func newWorld(t *testing.T) *world {
	e := apitest.New(t, families.Register)
	w := &world{Env: e, locations: map[string]map[string]any{}, calendars: map[string]map[string]any{}}
	must := func(r apitest.Response) map[string]any {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		return r.Data()
	}
	api := func(rest string) string { return apitest.Path(e.Campaign, rest) }
	for _, name := range []string{"Calendar of Harptos", "Tide Reckoning"} {
		w.calendars[name] = must(e.Do("POST", api("/calendars"), e.Admin, calendarBody(name)))
	}
	e.EnsureTags(e.Campaign, 1)
	root := must(e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Sword Coast", "type": "Region", "tags": []int{1}}))
	w.locations["Sword Coast"] = root
	for i, name := range []string{"Waterdeep", "Neverwinter", "Baldur's Gate", "Luskan", "Candlekeep"} {
		w.locations[name] = must(e.Do("POST", api("/locations"), e.Member, map[string]any{
			"name": name, "parent_location_id": root["id"], "entry": fmt.Sprintf("<p>City %d of [location:%v]</p>", i, root["entity_id"]),
		}))
	}
	w.locations["Undermountain"] = must(e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Undermountain", "is_private": true}))
	harptos := w.calendars["Calendar of Harptos"]
	for _, name := range []string{"Waterdeep", "Luskan"} {
		eid := w.locations[name]["entity_id"]
		must(e.Do("POST", api(fmt.Sprintf("/entities/%v/entity_notes", eid)), e.Member, map[string]any{"name": "History of " + name, "entry": "<p>Old.</p>", "visibility": "all"}))
		must(e.Do("POST", api(fmt.Sprintf("/entities/%v/entity_notes", eid)), e.Admin, map[string]any{"name": "Secrets", "visibility": "admin"}))
		must(e.Do("POST", api(fmt.Sprintf("/entities/%v/entity_events", eid)), e.Member, map[string]any{
			"name": "Founding", "calendar_id": harptos["id"], "day": 3, "month": 2, "year": 900, "length": 1,
			"type_id": 5, "recurring_periodicity": "yearly", "visibility": "members",
		}))
	}
	for _, l := range w.locations {
		if l["is_private"] != true {
			w.entityIDs = append(w.entityIDs, int64(l["entity_id"].(float64)))
		}
	}
	for _, c := range w.calendars {
		w.entityIDs = append(w.entityIDs, int64(c["entity_id"].(float64)))
	}
	slices.Sort(w.entityIDs)
	return w
}

// get is a client's GET of a path relative to the API root (or an absolute link it was given);
// any answer but 200 is the client's error.
func (w *world) get(t *testing.T, token, path string) apitest.Response {
	t.Helper()
	path = strings.TrimPrefix(path, w.Server.URL)
	if !strings.HasPrefix(path, "/api/") {
		path = "/api/1.0/" + path
	}
	r := w.Do("GET", path, token, nil)
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Raw)
	}
	return r
}

func ids(items []any, key string) []int64 {
	var out []int64
	for _, it := range items {
		out = append(out, int64(it.(map[string]any)[key].(float64)))
	}
	return out
}

// checkModel is what python-kanka's pydantic models require of a record: the fields it
// declares without a default, with their types (timestamps ISO 8601, ids integers).
func checkModel(t *testing.T, what string, m map[string]any, required map[string]string) {
	t.Helper()
	for k, kind := range required {
		v, ok := m[k]
		switch {
		case !ok:
			t.Errorf("%s has no %s: %v", what, k, m)
		case kind == "int":
			if f, ok := v.(float64); !ok || f != float64(int64(f)) {
				t.Errorf("%s.%s = %v, want an integer", what, k, v)
			}
		case kind == "str":
			if _, ok := v.(string); !ok {
				t.Errorf("%s.%s = %v, want a string", what, k, v)
			}
		case kind == "bool":
			if _, ok := v.(bool); !ok {
				t.Errorf("%s.%s = %v, want a boolean", what, k, v)
			}
		case kind == "time":
			if _, err := time.Parse(time.RFC3339Nano, fmt.Sprint(v)); err != nil {
				t.Errorf("%s.%s = %v, want an ISO 8601 time", what, k, v)
			}
		case kind == "ints":
			l, ok := v.([]any)
			if !ok {
				t.Errorf("%s.%s = %v, want a list of integers", what, k, v)
			}
			for _, x := range l {
				if _, ok := x.(float64); !ok {
					t.Errorf("%s.%s = %v, want a list of integers", what, k, v)
				}
			}
		}
	}
}

var (
	entityModel = map[string]string{"id": "int", "entity_id": "int", "name": "str", "is_private": "bool", "tags": "ints",
		"created_at": "time", "created_by": "int", "updated_at": "time"}
	postModel = map[string]string{"id": "int", "name": "str", "entry": "str", "entity_id": "int", "created_by": "int",
		"created_at": "time", "updated_at": "time", "visibility_id": "int"}
	reminderModel = map[string]string{"id": "int", "remindable_id": "int", "calendar_id": "int", "date": "str", "day": "int",
		"month": "int", "year": "int", "length": "int", "is_recurring": "bool", "visibility_id": "int", "created_at": "time"}
)

// TestPythonKankaImportsACampaign drives the routes as python-kanka 2.x does: lists paged with
// ?page=N&limit=N while has_next_page, posts and reminders per entity, entities by type, and
// its post writes (visibility_id; PATCH with the name).
func TestPythonKankaImportsACampaign(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := fmt.Sprintf("campaigns/%d/", w.Campaign)
	tok := w.Member

	pageAll := func(endpoint string, limit int, extra string) []any {
		t.Helper()
		var all []any
		for page := 1; ; page++ {
			r := w.get(t, tok, fmt.Sprintf("%s%s?page=%d&limit=%d%s", c, endpoint, page, limit, extra))
			all = append(all, r.List()...)
			if next, _ := r.Body["links"].(map[string]any)["next"].(string); next == "" {
				meta := r.Body["meta"].(map[string]any)
				if meta["total"] != float64(len(all)) || meta["last_page"] != float64(page) {
					t.Errorf("%s: meta %v after %d items on %d pages", endpoint, meta, len(all), page)
				}
				return all
			}
			if page > 50 {
				t.Fatalf("%s: pages never end", endpoint)
			}
		}
	}
	locs := pageAll("locations", 2, "")
	cals := pageAll("calendars", 30, "")
	if len(locs) != 6 || len(cals) != 2 { // the private one is the admin's
		t.Fatalf("imported %d locations and %d calendars, want 6 and 2", len(locs), len(cals))
	}
	for _, l := range append(slices.Clone(locs), cals...) {
		m := l.(map[string]any)
		checkModel(t, "record "+fmt.Sprint(m["name"]), m, entityModel)
		if m["name"] != "Sword Coast" && strings.HasPrefix(fmt.Sprint(m["entry"]), "<p>City") {
			if p, _ := m["entry_parsed"].(string); !strings.Contains(p, ">Sword Coast</a>") {
				t.Errorf("%v entry_parsed = %q", m["name"], m["entry_parsed"])
			}
		}
		eid := int64(m["entity_id"].(float64))
		posts := pageAll(fmt.Sprintf("entities/%d/posts", eid), 30, "")
		for _, p := range posts {
			checkModel(t, "post", p.(map[string]any), postModel)
		}
		reminders := pageAll(fmt.Sprintf("entities/%d/reminders", eid), 30, "")
		for _, r := range reminders {
			checkModel(t, "reminder", r.(map[string]any), reminderModel)
		}
		switch m["name"] {
		case "Waterdeep", "Luskan": // the admin's "Secrets" note is not the member's
			if len(posts) != 1 || len(reminders) != 1 {
				t.Errorf("%v: %d posts and %d reminders, want 1 and 1", m["name"], len(posts), len(reminders))
			} else if r := reminders[0].(map[string]any); r["recurring_periodicity"] != "year" || r["type_id"] != float64(5) || r["remindable_id"] != float64(eid) {
				t.Errorf("%v reminder = %v", m["name"], r)
			}
		}
	}
	ents := pageAll("entities", 3, "&types=location,calendar")
	if got := ids(ents, "id"); !slices.Equal(got, w.entityIDs) {
		t.Errorf("entities = %v, want %v", got, w.entityIDs)
	}
	// Tags as python-kanka sends them: comma-separated.
	if tagged := pageAll("entities", 30, "&tags=1"); len(tagged) != 1 || tagged[0].(map[string]any)["name"] != "Sword Coast" {
		t.Errorf("entities tagged 1 = %v", tagged)
	}
	// Incremental sync with the list's own sync stamp: nothing changed since.
	first := w.get(t, tok, c+"entities?page=1&limit=30")
	if again := w.get(t, tok, c+"entities?page=1&limit=30&lastSync="+url.QueryEscape(first.Body["sync"].(string))); len(again.List()) != 0 {
		t.Errorf("entities changed since the last sync: %v", again.List())
	}

	// Post writes as python-kanka makes them.
	eid := w.locations["Neverwinter"]["entity_id"]
	created := w.Do("POST", apitest.Path(w.Campaign, fmt.Sprintf("/entities/%v/posts", eid)), tok, map[string]any{"name": "Session 12", "entry": "<p>We met.</p>", "visibility_id": 2})
	if created.Status != 200 || created.Data()["visibility_id"] != float64(2) {
		// A member may set admin visibility: Kanka lets any writer choose.
		t.Fatalf("create_post: %d %s", created.Status, created.Raw)
	}
	postPath := apitest.Path(w.Campaign, fmt.Sprintf("/entities/%v/posts/%v", eid, created.Data()["id"]))
	if r := w.Do("PATCH", postPath, w.Admin, map[string]any{"name": "Session 12", "visibility_id": 1, "entry": "<p>We met again.</p>"}); r.Status != 200 || r.Data()["visibility_id"] != float64(1) {
		t.Fatalf("update_post: %d %s", r.Status, r.Raw)
	}
	if r := w.Do("DELETE", postPath, tok, nil); r.Status != 200 {
		t.Fatalf("delete_post: %d %s", r.Status, r.Raw)
	}
}

// TestFoundryImporterImportsACampaign drives the routes as the Foundry VTT importer does: its
// token's exp decoded first, then every list fetched in full by following links.next with the
// original query appended again (so parameters repeat), entities with ?image=1&types=....
func TestFoundryImporterImportsACampaign(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// The importer refuses a token whose payload has no exp, or one in the past.
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(w.Member, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Exp *float64 `json:"exp"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil || claims.Exp == nil || *claims.Exp < float64(time.Now().AddDate(1, 0, 0).Unix()) {
		t.Fatalf("token payload %s: the importer would treat it as expired", payload)
	}

	fetchFullList := func(path string) []any {
		t.Helper()
		query, _ := url.ParseQuery(strings.SplitN(path, "?", 2)[1])
		var all []any
		next := "campaigns/" + fmt.Sprint(w.Campaign) + "/" + path
		for i := 0; next != ""; i++ {
			r := w.get(t, w.Member, next)
			all = append(all, r.List()...)
			link, _ := r.Body["links"].(map[string]any)["next"].(string)
			if link == "" || i > 50 {
				break
			}
			u, err := url.Parse(link)
			if err != nil {
				t.Fatalf("next link %q: %v", link, err)
			}
			q := u.Query()
			for k, vs := range query {
				for _, v := range vs {
					q.Add(k, v)
				}
			}
			u.RawQuery = q.Encode()
			next = u.String()
		}
		return all
	}
	ents := fetchFullList("entities?image=1&types=location,calendar&limit=2")
	if got := ids(ents, "id"); !slices.Equal(got, w.entityIDs) {
		t.Fatalf("entities = %v, want %v", got, w.entityIDs)
	}
	for _, e := range ents {
		m := e.(map[string]any)
		if child, _ := m["child"].(map[string]any); child == nil || child["image_thumb"] == nil {
			t.Errorf("entity %v has no child image with ?image=1: %v", m["id"], m)
		}
		if api, _ := m["urls"].(map[string]any)["api"].(string); !strings.HasPrefix(api, w.Server.URL+"/api/1.0/campaigns/") {
			t.Errorf("entity %v urls.api = %q", m["id"], api)
		}
		// The reference collection files each entity under `module.code` (the importer's
		// "Cannot read properties of undefined (reading 'code')" without it) and fetches its
		// child record from urls.api.
		module, _ := m["module"].(map[string]any)
		if module == nil || module["code"] != m["type"] || module["id"] != m["type_id"] || m["child_id"] == nil {
			t.Errorf("entity %v module = %v (type %v, type_id %v)", m["id"], module, m["type"], m["type_id"])
			continue
		}
		child := w.get(t, w.Member, m["urls"].(map[string]any)["api"].(string)).Data()
		if child["id"] != m["child_id"] || child["entity_id"] != m["id"] {
			t.Errorf("entity %v: urls.api answered %v", m["id"], child)
		}
	}
	locs := fetchFullList("locations?related=1&limit=2")
	cals := fetchFullList("calendars?related=1&limit=1")
	var names []string
	for _, l := range append(locs, cals...) {
		names = append(names, l.(map[string]any)["name"].(string))
	}
	sort.Strings(names)
	want := []string{"Baldur's Gate", "Calendar of Harptos", "Candlekeep", "Luskan", "Neverwinter", "Sword Coast", "Tide Reckoning", "Waterdeep"}
	if !slices.Equal(names, want) {
		t.Errorf("imported %v, want %v", names, want)
	}
	// Each entity shown by id, as the importer refreshes one.
	for _, id := range w.entityIDs {
		w.get(t, w.Member, fmt.Sprintf("campaigns/%d/entities/%d?image=1", w.Campaign, id))
	}
}

// TestThe2022RoutesAreUnchanged: the records a Kanka-today client writes read back through the
// spec's routes in the spec's shape (visibility_id is the only addition), and the reverse.
func TestThe2022RoutesAreUnchanged(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	eid := w.locations["Waterdeep"]["entity_id"]
	cal := w.calendars["Tide Reckoning"]
	base := apitest.Path(w.Campaign, fmt.Sprintf("/entities/%v", eid))
	post := w.Do("POST", base+"/posts", w.Member, map[string]any{"name": "Docks", "visibility_id": 5, "position": 1})
	rem := w.Do("POST", base+"/reminders", w.Member, map[string]any{"calendar_id": cal["id"], "day": 1, "month": 1, "year": 1000, "recurring_periodicity": "month"})
	if post.Status != 200 || rem.Status != 200 {
		t.Fatalf("post %d %s, reminder %d %s", post.Status, post.Raw, rem.Status, rem.Raw)
	}
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	note := w.get(t, w.Member, fmt.Sprintf("%s/entity_notes/%v", base, post.Data()["id"])).Data()
	wantNote := []string{"created_at", "created_by", "entity_id", "entry", "entry_parsed", "id", "name", "position", "settings",
		"updated_at", "updated_by", "visibility", "visibility_id"}
	if got := keys(note); !slices.Equal(got, wantNote) || note["visibility"] != "member" {
		t.Errorf("note keys %v (visibility %v), want %v", got, note["visibility"], wantNote)
	}
	ev := w.get(t, w.Member, fmt.Sprintf("%s/entity_events/%v", base, rem.Data()["id"])).Data()
	wantEvent := []string{"calendar_id", "colour", "comment", "created_at", "created_by", "date", "day", "entity_id", "id",
		"is_private", "is_recurring", "length", "month", "name", "recurring_periodicity", "recurring_until", "type_id",
		"updated_at", "updated_by", "visibility", "visibility_id", "year"}
	if got := keys(ev); !slices.Equal(got, wantEvent) || ev["recurring_periodicity"] != "monthly" || ev["length"] != float64(1) {
		t.Errorf("event keys %v (%v), want %v", got, ev, wantEvent)
	}
	// The 2022 body still needs its name and length.
	r := w.Do("POST", base+"/entity_events", w.Member, map[string]any{"calendar_id": cal["id"], "day": 1, "month": 1, "year": 1000})
	if r.Status != 422 || r.Errors()["name"] == nil || r.Errors()["length"] == nil {
		t.Errorf("2022 event without name and length: %d %s", r.Status, r.Raw)
	}
}

// Henry-Sarabia/kanka appends "?related=1" to a query that already has one, so its lastSync is
// "<timestamp>?related=1": Kanka filters on the timestamp (MySQL reads the leading date). It
// also creates 2022 entity events with entity_id and no name, which Kanka 2022 accepted.
func TestHenrySarabiaSyncAndNamelessEvents(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := fmt.Sprintf("campaigns/%d/", w.Campaign)
	first := w.get(t, w.Member, c+"locations")
	sync := first.Body["sync"].(string)
	apitest.WaitPastSync(t, sync) // updated_at has microseconds: the next write is strictly after sync
	luskan := w.locations["Luskan"]
	if r := w.Do("PATCH", apitest.Path(w.Campaign, fmt.Sprintf("/locations/%v", luskan["id"])), w.Member, map[string]any{"entry": "<p>Ships.</p>"}); r.Status != 200 {
		t.Fatalf("update: %d %s", r.Status, r.Raw)
	}
	for _, q := range []string{"?lastSync=" + sync + "?related=1", "?lastSync=" + url.QueryEscape(sync) + "?related=1"} {
		got := w.get(t, w.Member, c+"locations"+q)
		if names := got.List(); len(names) != 1 || names[0].(map[string]any)["name"] != "Luskan" {
			t.Errorf("%s: %v, want Luskan only", q, names)
		}
	}
	if all := w.get(t, w.Member, c+"locations?lastSync=never"); len(all.List()) != len(first.List()) {
		t.Errorf("an unreadable lastSync filtered: %d of %d", len(all.List()), len(first.List()))
	}
	eid := luskan["entity_id"]
	made := w.Do("POST", apitest.Path(w.Campaign, fmt.Sprintf("/entities/%v/entity_events", eid)), w.Member, map[string]any{
		"entity_id": eid, "calendar_id": w.calendars["Calendar of Harptos"]["id"], "day": 1, "month": 1, "year": 1200, "length": 1})
	if made.Status != 200 || made.Data()["name"] != nil || made.Data()["entity_id"] != eid {
		t.Fatalf("nameless entity event: %d %s", made.Status, made.Raw)
	}
}
