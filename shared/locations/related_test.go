package locations_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// relatedWorld is a tree Root > Hidden (private) > Mid > Leaf, Root > Secret (private),
// Root > Open; posts and events on Leaf of every visibility; a calendar with a post.
type relatedWorld struct {
	*apitest.Env
	root, hidden, mid, leaf, secret, open int64
	cal                                   int64
}

func newRelatedWorld(t *testing.T) relatedWorld {
	e := apitest.New(t, families.Register)
	w := relatedWorld{Env: e}
	mk := func(body map[string]any) int64 { return create(t, e, e.Campaign, e.Admin, body) }
	w.root = mk(map[string]any{"name": "Root"})
	w.hidden = mk(map[string]any{"name": "Hidden", "is_private": true, "parent_location_id": w.root})
	w.mid = mk(map[string]any{"name": "Mid", "parent_location_id": w.hidden})
	w.leaf = mk(map[string]any{"name": "Leaf", "parent_location_id": w.mid})
	w.secret = mk(map[string]any{"name": "Secret", "is_private": true, "parent_location_id": w.root})
	w.open = mk(map[string]any{"name": "Open", "parent_location_id": w.root})
	cal := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, map[string]any{
		"name": "Reckoning", "month_name": []string{"One", "Two"}, "month_length": []int{30, 30}, "weekday": []string{"A", "B"},
	})
	if cal.Status != 200 {
		t.Fatalf("calendar: %d %s", cal.Status, cal.Raw)
	}
	w.cal = int64(cal.Data()["id"].(float64))
	leafEntity := w.entityOf(w.leaf)
	hiddenEntity := w.entityOf(w.hidden)
	post := func(eid any, token string, body map[string]any) {
		if r := e.Do("POST", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%v/entity_notes", eid)), token, body); r.Status != 200 {
			t.Fatalf("note: %d %s", r.Status, r.Raw)
		}
	}
	post(leafEntity, e.Admin, map[string]any{"name": "Public", "entry": fmt.Sprintf("<p>Near [location:%v]</p>", hiddenEntity)})
	post(leafEntity, e.Admin, map[string]any{"name": "Admins only", "visibility": "admin"})
	post(leafEntity, e.Member, map[string]any{"name": "Member's own", "visibility": "self"})
	post(cal.Data()["entity_id"], e.Admin, map[string]any{"name": "Calendar lore"})
	event := func(body map[string]any) {
		body["calendar_id"], body["day"], body["month"], body["year"], body["length"] = w.cal, 3, 1, 10, 1
		if r := e.Do("POST", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%v/entity_events", leafEntity)), e.Admin, body); r.Status != 200 {
			t.Fatalf("event: %d %s", r.Status, r.Raw)
		}
	}
	event(map[string]any{"name": "Founding"})
	event(map[string]any{"name": "Secret rite", "is_private": true})
	return w
}

func (w relatedWorld) entityOf(id int64) any {
	return w.Do("GET", loc(w.Campaign, id), w.Admin, nil).Data()["entity_id"]
}

func namesOf(v any) string {
	var out []string
	for _, it := range v.([]any) {
		out = append(out, it.(map[string]any)["name"].(string))
	}
	return strings.Join(out, ",")
}

func TestRelatedEmbedsWhatTheCallerMaySee(t *testing.T) {
	t.Parallel()
	w := newRelatedWorld(t)
	ids := func(v ...int64) string { return fmt.Sprint(v) }
	cases := []struct {
		name, path, token                      string
		parents, children, posts, events, misc string
	}{
		{"admin, leaf", loc(w.Campaign, w.leaf) + "?related=1", w.Admin, ids(w.mid, w.hidden, w.root), "[]", "Public,Admins only", "Founding,Secret rite", ""},
		{"member, leaf: ancestors end below the hidden one; admin records left out", loc(w.Campaign, w.leaf) + "?related=true", w.Member, ids(w.mid), "[]", "Public,Member's own", "Founding", ""},
		{"viewer, leaf", loc(w.Campaign, w.leaf) + "?related=1", w.Viewer, ids(w.mid), "[]", "Public", "Founding", ""},
		{"member, mid: under a hidden parent, like a root", loc(w.Campaign, w.mid) + "?related=1", w.Member, "[]", ids(w.leaf), "", "", ""},
		{"admin, mid", loc(w.Campaign, w.mid) + "?related=1", w.Admin, ids(w.hidden, w.root), ids(w.leaf), "", "", ""},
		{"admin, root", loc(w.Campaign, w.root) + "?related=1", w.Admin, "[]", ids(w.hidden, w.secret, w.open), "", "", ""},
		{"member, root: private children left out", loc(w.Campaign, w.root) + "?related=1", w.Member, "[]", ids(w.open), "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := w.Do("GET", c.path, c.token, nil)
			d := r.Data()
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			got := func(k string) string {
				var out []int64
				for _, v := range d[k].([]any) {
					out = append(out, int64(v.(float64)))
				}
				if out == nil {
					return "[]"
				}
				return fmt.Sprint(out)
			}
			if got("parents") != c.parents || got("children") != c.children {
				t.Errorf("parents %s children %s, want %s %s", got("parents"), got("children"), c.parents, c.children)
			}
			if namesOf(d["posts"]) != c.posts || namesOf(d["entity_events"]) != c.events || namesOf(d["reminders"]) != c.events {
				t.Errorf("posts %q events %q reminders %q, want %q %q", namesOf(d["posts"]), namesOf(d["entity_events"]), namesOf(d["reminders"]), c.posts, c.events)
			}
			for _, k := range []string{"attributes", "relations", "inventory", "entity_abilities", "entity_assets"} {
				if l, ok := d[k].([]any); !ok || len(l) != 0 {
					t.Errorf("%s = %v, want []", k, d[k])
				}
			}
		})
	}
	// Embedded posts are rendered like their own route: a mention of the hidden location is
	// Unknown to a member, a link for an admin.
	for token, want := range map[string]string{w.Member: "entity-mention-unknown", w.Admin: `class="entity-mention"`} {
		d := w.Do("GET", loc(w.Campaign, w.leaf)+"?related=1", token, nil).Data()
		if parsed := d["posts"].([]any)[0].(map[string]any)["entry_parsed"].(string); !strings.Contains(parsed, want) {
			t.Errorf("entry_parsed %s lacks %s", parsed, want)
		}
	}
	// Without related, or related=0: none of the arrays.
	for _, q := range []string{"", "?related=0", "?related=false"} {
		d := w.Do("GET", loc(w.Campaign, w.leaf)+q, w.Admin, nil).Data()
		for _, k := range []string{"posts", "parents", "children", "attributes"} {
			if _, ok := d[k]; ok {
				t.Errorf("%q: %s present", q, k)
			}
		}
	}
	if r := w.Do("GET", loc(w.Campaign, w.leaf)+"?related=maybe", w.Admin, nil); r.Status != 422 || r.Errors()["related"] == nil {
		t.Errorf("related=maybe: %d %s", r.Status, r.Raw)
	}
	// A hidden location is still a 404 with related.
	if r := w.Do("GET", loc(w.Campaign, w.hidden)+"?related=1", w.Member, nil); r.Status != 404 {
		t.Errorf("hidden with related: %d", r.Status)
	}
	// Calendars: the entity's arrays, no tree.
	r := w.Do("GET", apitest.Path(w.Campaign, fmt.Sprintf("/calendars/%d?related=1", w.cal)), w.Member, nil)
	if d := r.Data(); r.Status != 200 || namesOf(d["posts"]) != "Calendar lore" || d["parents"] != nil || d["children"] != nil || d["months"] == nil {
		t.Errorf("calendar related: %d %s", r.Status, r.Raw)
	}
	list := w.Do("GET", apitest.Path(w.Campaign, "/calendars?related=1"), w.Member, nil)
	if list.Status != 200 || len(list.List()) != 1 || namesOf(list.List()[0].(map[string]any)["posts"]) != "Calendar lore" {
		t.Errorf("calendar list related: %d %s", list.Status, list.Raw)
	}
}

func TestRelatedListPageMatchesEachShow(t *testing.T) {
	t.Parallel()
	w := newRelatedWorld(t)
	for _, token := range []string{w.Admin, w.Member} {
		list := w.Do("GET", apitest.Path(w.Campaign, "/locations?related=1&limit=100"), token, nil)
		if list.Status != 200 {
			t.Fatalf("%d %s", list.Status, list.Raw)
		}
		for _, it := range list.List() {
			row := it.(map[string]any)
			one := w.Do("GET", loc(w.Campaign, int64(row["id"].(float64)))+"?related=1", token, nil).Data()
			for _, k := range []string{"parents", "children", "posts", "entity_events", "reminders"} {
				if fmt.Sprint(row[k]) != fmt.Sprint(one[k]) {
					t.Errorf("%s of %v: list %v, show %v", k, row["name"], row[k], one[k])
				}
			}
		}
		if token == w.Member && len(list.List()) != 4 {
			t.Errorf("member sees %d locations, want 4", len(list.List()))
		}
	}
}

// TestRelatedRoundTrips holds ?related=1 to its budget whatever the page's size: beside the
// record or page, one BatchGetItem of attribute packs, one Query per related bucket (the world's
// entities and locations fall in one of each), one batch per tree level for ancestors not on
// the page, all concurrent; then one batch for the entities the posts mention. calls counts
// every DynamoDB call, waves the round trips a client waits for (calls that overlap count once).
func TestRelatedRoundTrips(t *testing.T) {
	t.Parallel()
	w := newRelatedWorld(t)
	// Ten more roots, so that the page has rows enough to show the reads do not grow with it.
	for i := 0; i < 10; i++ {
		create(t, w.Env, w.Campaign, w.Admin, map[string]any{"name": fmt.Sprint("Extra ", i)})
	}
	const rows, depth = 16, 3
	cases := []struct {
		name         string
		path         string
		calls, waves int64
	}{
		// access and record (read ahead); attributes, 2 buckets and the ancestors (Mid, Hidden,
		// Root: one per level) concurrently; mentions
		{"show", loc(w.Campaign, w.leaf) + "?related=1", 1 + 3 + depth + 1, 1 + depth + 1},
		// access and counters, the page; attributes, 2 buckets (ancestors are all on the page); mentions
		{"list page", apitest.Path(w.Campaign, "/locations?related=1&limit=100"), 2 + 3 + 1, 2 + 1 + 1},
		// a page without the leaf's ancestors: read level by level (the name filter reads the
		// name shards, then the page: one call more than a page)
		{"list page of the leaf alone", apitest.Path(w.Campaign, "/locations?related=1&name=leaf!"), 3 + 3 + depth + 1, 3 + depth + 1},
		// a calendar has no children: one bucket
		{"calendar show", apitest.Path(w.Campaign, fmt.Sprintf("/calendars/%d?related=1", w.cal)), 1 + 2 + 1, 1 + 1 + 1},
		{"member list page", apitest.Path(w.Campaign, "/locations?related=1&limit=100"), 2 + 3 + 1, 2 + 1 + 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			token := w.Admin
			if strings.HasPrefix(c.name, "member") {
				token = w.Member
			}
			w.Counter.Reset()
			r := w.Do("GET", c.path, token, nil)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n, waves := w.Counter.N(), w.Counter.Waves(); n > c.calls || waves > c.waves {
				t.Fatalf("%d DynamoDB calls in %d round trips, budget %d in %d", n, waves, c.calls, c.waves)
			}
		})
	}
	w.Counter.Reset()
	if r := w.Do("GET", apitest.Path(w.Campaign, "/locations?related=1&limit=100"), w.Admin, nil); len(r.List()) != rows {
		t.Fatalf("%d rows, want %d", len(r.List()), rows)
	}
}

// TestRelatedRoundTripsByPageSize: pages of 10, 45 and 100 locations, each with posts, events
// and children, cost the same round trips (v2: four Queries per row). Items evaluated grow with
// the page's owners' children (and those of owners between them in the buckets), not with the
// campaign.
func TestRelatedRoundTripsByPageSize(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	e.SeedLocations(e.Campaign, 300, 10)
	ctx := context.Background()
	for id := int64(1); id <= 100; id++ {
		n := domain.Note{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, EntityID: id, Name: "Post", Entry: "<p>lore</p>", Visibility: domain.VisibilityAll}
		if err := notestore.New(e.Store).CreateNote(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if id%10 == 1 { // a child for every tenth: the location buckets hold links
			create(t, e, e.Campaign, e.Admin, map[string]any{"name": fmt.Sprint("Child of ", id), "parent_location_id": id})
		}
	}
	for _, c := range []struct {
		token        string
		limit        int
		calls, waves int64
		evaluated    int64
	}{
		// access and counters, page; attributes, 2 entity and 2 location buckets at most; no mentions
		{e.Admin, 10, 2 + 1 + 2, 3, 10 + 1 + 10 + 1},
		{e.Admin, 45, 2 + 1 + 2, 3, 45 + 1 + 45 + 5},
		{e.Admin, 100, 2 + 1 + 4, 3, 100 + 1 + 100 + 10},
		{e.Member, 10, 2 + 1 + 2, 3, 10 + 1 + 11 + 2}, // the 10 public rows span ids 1-11
		{e.Member, 45, 2 + 1 + 4, 3, 45 + 1 + 50 + 5},
		{e.Member, 100, 2 + 1 + 4, 3, 100 + 1 + 111 + 12},
	} {
		t.Run(fmt.Sprintf("%s/%d", map[bool]string{true: "admin", false: "member"}[c.token == e.Admin], c.limit), func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/locations?related=1&limit=%d", c.limit)), c.token, nil)
			if r.Status != 200 || len(r.List()) != c.limit {
				t.Fatalf("%d, %d rows %s", r.Status, len(r.List()), r.Raw)
			}
			for _, row := range r.List() {
				row := row.(map[string]any)
				if id := row["id"].(float64); id <= 100 && len(row["posts"].([]any)) != 1 {
					t.Fatalf("location %v: posts %v", id, row["posts"])
				}
			}
			n, waves, ev := e.Counter.N(), e.Counter.Waves(), e.Counter.Scanned()
			t.Logf("page of %d: %d calls, %d round trips, %d items evaluated, %d bytes", c.limit, n, waves, ev, e.Counter.Bytes())
			if n > c.calls || waves > c.waves || ev > c.evaluated {
				t.Errorf("%d calls in %d round trips evaluating %d items; budget %d in %d, %d", n, waves, ev, c.calls, c.waves, c.evaluated)
			}
		})
	}
}

func TestRelatedShapesAreTheirRoutesShapes(t *testing.T) {
	t.Parallel()
	w := newRelatedWorld(t)
	eid := w.entityOf(w.leaf)
	d := w.Do("GET", loc(w.Campaign, w.leaf)+"?related=1", w.Admin, nil).Data()
	for k, route := range map[string]string{"posts": "posts", "entity_notes": "entity_notes", "entity_events": "entity_events", "reminders": "reminders"} {
		list := w.Do("GET", apitest.Path(w.Campaign, fmt.Sprintf("/entities/%v/%s", eid, route)), w.Admin, nil)
		if list.Status != 200 {
			t.Fatalf("%s: %d %s", route, list.Status, list.Raw)
		}
		if fmt.Sprint(d[k]) != fmt.Sprint(list.Body["data"]) {
			t.Errorf("%s embedded:\n%v\nits route:\n%v", k, d[k], list.Body["data"])
		}
	}
}
