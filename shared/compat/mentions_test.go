package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/sanitize"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// mentionPositions are entries with mentions wherever text can be: top level (as scripts, bots
// and AI assistants send them, without a wrapping <p>), beside block and void elements, inside
// elements, tables and lists. {M} is a visible location, {H} a private one.
var mentionPositions = []struct{ name, entry string }{
	{"top level after text", "see {M}"},
	{"top level alone", "{M}"},
	{"top level before a paragraph", "{M}<p>after</p>"},
	{"top level after a heading", "<h1>t</h1>{M}"},
	{"top level after a line break", "a<br>{M}"},
	{"top level, hidden and visible", "x {H} and {M|the port} end"},
	{"inside a paragraph", "<p>in {M} p</p>"},
	{"inside a table cell", "<table><tr><td>{M}</td></tr></table>"},
	{"inside a list, beside a hidden one", "<ul><li>{H}</li><li>{M}</li></ul>"},
	{"inside bold, then top level", "<b>{M}</b> tail {H}"},
}

// TestMentionsInEveryPositionAndFamily: a mention in any position of an entry, on notes, posts,
// locations, calendars and imported calendars, is stored as sent (sanitised), answered as a link
// (or an "Unknown" marker for an entity the caller may not see, never its name), and the record's
// show, its list and every related=1 page holding it answer 200. A top-level mention once
// answered 500 and broke every list holding the record.
func TestMentionsInEveryPositionAndFamily(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	api := func(rest string) string { return apitest.Path(e.Campaign, rest) }
	must := func(r apitest.Response) map[string]any {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		return r.Data()
	}
	port := must(e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Port"}))
	den := must(e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Den", "is_private": true}))
	harbour := must(e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Harbour"}))
	cal := must(e.Do("POST", api("/calendars"), e.Admin, map[string]any{
		"name": "Reckoning", "month_name": []string{"A", "B"}, "month_length": []int{30, 30}, "weekday": []string{"X", "Y"}}))
	portLink := fmt.Sprintf(`href="/api/1.0/campaigns/%d/locations/%v"`, e.Campaign, port["id"])
	expand := func(s string) string {
		return strings.NewReplacer("{M}", fmt.Sprintf("[location:%v]", port["entity_id"]),
			"{M|the port}", fmt.Sprintf("[location:%v|the port]", port["entity_id"]),
			"{H}", fmt.Sprintf("[location:%v]", den["entity_id"])).Replace(s)
	}
	export := func(t *testing.T) map[string]any {
		raw, err := os.ReadFile("../calendars/testdata/fantasy-calendar-export.json")
		if err != nil {
			t.Fatal(err)
		}
		var ex map[string]any
		if err := json.Unmarshal(raw, &ex); err != nil {
			t.Fatal(err)
		}
		return ex
	}
	notes := fmt.Sprintf("/entities/%v/entity_notes", harbour["entity_id"])
	posts := fmt.Sprintf("/entities/%v/posts", cal["entity_id"])
	families := []struct {
		name   string
		create func(t *testing.T, name, entry string) apitest.Response
		show   func(id any) string
		list   string
	}{
		{"note", func(t *testing.T, name, entry string) apitest.Response {
			return e.Do("POST", api(notes), e.Member, map[string]any{"name": name, "entry": entry})
		}, func(id any) string { return api(fmt.Sprintf("%s/%v", notes, id)) }, notes + "?limit=100"},
		{"post", func(t *testing.T, name, entry string) apitest.Response {
			return e.Do("POST", api(posts), e.Member, map[string]any{"name": name, "entry": entry})
		}, func(id any) string { return api(fmt.Sprintf("%s/%v", posts, id)) }, posts + "?limit=100"},
		{"location", func(t *testing.T, name, entry string) apitest.Response {
			return e.Do("POST", api("/locations"), e.Member, map[string]any{"name": name, "entry": entry})
		}, func(id any) string { return api(fmt.Sprintf("/locations/%v", id)) }, "/locations?limit=100"},
		{"calendar", func(t *testing.T, name, entry string) apitest.Response {
			return e.Do("POST", api("/calendars"), e.Member, map[string]any{"name": name, "entry": entry,
				"month_name": []string{"A", "B"}, "month_length": []int{10, 10}, "weekday": []string{"X", "Y"}})
		}, func(id any) string { return api(fmt.Sprintf("/calendars/%v", id)) }, "/calendars?limit=100"},
		{"imported calendar", func(t *testing.T, name, entry string) apitest.Response {
			body := export(t)
			body["name"], body["entry"] = name, entry
			return e.Do("POST", api("/calendars/import"), e.Member, body)
		}, func(id any) string { return api(fmt.Sprintf("/calendars/%v", id)) }, "/calendars?limit=100"},
	}

	// checkParsed: the admin sees both links; anyone else the visible one and "Unknown" in the
	// hidden one's place, never its name.
	checkParsed := func(t *testing.T, where string, admin bool, entry string, got any) {
		t.Helper()
		s, _ := got.(string)
		if !strings.Contains(s, portLink) || !strings.Contains(s, `class="entity-mention"`) {
			t.Errorf("%s: entry_parsed %q lacks the link %s", where, s, portLink)
		}
		if !strings.Contains(entry, fmt.Sprintf("[location:%v", den["entity_id"])) {
			return
		}
		if admin && !strings.Contains(s, ">Den</a>") {
			t.Errorf("%s: the admin's entry_parsed %q lacks the private location's link", where, s)
		}
		if !admin && (strings.Contains(s, "Den") || !strings.Contains(s, `<span class="entity-mention-unknown">Unknown</span>`)) {
			t.Errorf("%s: a member's entry_parsed %q must show Unknown, never the private location", where, s)
		}
	}
	type made struct {
		family, position, entry string
		id                      any
	}
	var all []made
	for _, f := range families {
		for i, p := range mentionPositions {
			name := fmt.Sprintf("%s %d", f.name, i)
			entry := sanitize.HTML(expand(p.entry)) // what is stored: "<br>" becomes "<br/>"
			t.Run(f.name+"/"+p.name, func(t *testing.T) {
				r := f.create(t, name, entry)
				if r.Status != 200 {
					t.Fatalf("create: %d %s", r.Status, r.Raw)
				}
				d := r.Data()
				// Stored sanitised, the mentions' text as sent.
				if d["entry"] != entry || !strings.Contains(entry, fmt.Sprintf("[location:%v", port["entity_id"])) {
					t.Errorf("entry stored as %q, want %q", d["entry"], entry)
				}
				checkParsed(t, "create", false, entry, d["entry_parsed"])
				all = append(all, made{f.name, p.name, entry, d["id"]})
				for _, c := range []struct {
					who, token string
					admin      bool
				}{{"admin", e.Admin, true}, {"member", e.Member, false}, {"viewer", e.Viewer, false}} {
					show := e.Do("GET", f.show(d["id"]), c.token, nil)
					if show.Status != 200 || show.Data()["entry"] != entry {
						t.Fatalf("%s show: %d %s", c.who, show.Status, show.Raw)
					}
					checkParsed(t, c.who+" show", c.admin, entry, show.Data()["entry_parsed"])
				}
			})
		}
	}

	// Every list and related page holding the records answers 200 with each of them parsed.
	byFamily := map[string][]made{}
	for _, m := range all {
		byFamily[m.family] = append(byFamily[m.family], m)
	}
	for _, f := range families {
		for _, who := range []struct {
			name, token string
			admin       bool
		}{{"admin", e.Admin, true}, {"viewer", e.Viewer, false}} {
			r := e.Do("GET", api(f.list), who.token, nil)
			if r.Status != 200 {
				t.Fatalf("%s list as %s: %d %s", f.name, who.name, r.Status, r.Raw)
			}
			rows := map[string]map[string]any{}
			for _, it := range r.List() {
				rows[fmt.Sprint(it.(map[string]any)["id"])] = it.(map[string]any)
			}
			for _, m := range byFamily[f.name] {
				row := rows[fmt.Sprint(m.id)]
				if row == nil {
					t.Errorf("%s list as %s lacks %s", f.name, who.name, m.position)
					continue
				}
				checkParsed(t, f.name+" list as "+who.name+": "+m.position, who.admin, m.entry, row["entry_parsed"])
			}
		}
	}
	for _, c := range []struct {
		path, embedded, family string
	}{
		{fmt.Sprintf("/locations/%v?related=1", harbour["id"]), "posts", "note"},
		{"/locations?related=1&limit=100", "", "location"},
		{fmt.Sprintf("/calendars/%v?related=1", cal["id"]), "entity_notes", "post"},
		{"/calendars?related=1&limit=100", "", "calendar"},
	} {
		for _, who := range []struct {
			name, token string
			admin       bool
		}{{"admin", e.Admin, true}, {"member", e.Member, false}} {
			r := e.Do("GET", api(c.path), who.token, nil)
			if r.Status != 200 {
				t.Fatalf("%s as %s: %d %s", c.path, who.name, r.Status, r.Raw)
			}
			if c.embedded == "" {
				continue
			}
			got := map[string]any{}
			for _, it := range r.Data()[c.embedded].([]any) {
				got[fmt.Sprint(it.(map[string]any)["id"])] = it.(map[string]any)["entry_parsed"]
			}
			for _, m := range byFamily[c.family] {
				checkParsed(t, c.path+" as "+who.name+": "+m.position, who.admin, m.entry, got[fmt.Sprint(m.id)])
			}
		}
	}

	// The stored entries are the sanitised text, mentions as sent.
	for _, m := range byFamily["location"] {
		var id int64
		fmt.Sscan(fmt.Sprint(m.id), &id)
		l, err := locstore.New(e.Store).GetLocation(context.Background(), e.Campaign, id)
		if err != nil || l.Entry != m.entry {
			t.Errorf("stored location %v: %v, %v; want entry %q", m.id, l, err, m.entry)
		}
	}
}

// TestMentionBoundsOnEveryEntry: every record with an entry refuses more than MaxMentionLinks
// mentions or MaxMentions distinct entities with a 422 naming entry, and stores nothing.
func TestMentionBoundsOnEveryEntry(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	api := func(rest string) string { return apitest.Path(e.Campaign, rest) }
	loc := e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Port"})
	if loc.Status != 200 {
		t.Fatal(loc.Raw)
	}
	var distinct strings.Builder
	for i := 1; i <= domain.MaxMentions+1; i++ {
		fmt.Fprintf(&distinct, "[location:%d] ", i)
	}
	calendar := map[string]any{"month_name": []string{"A", "B"}, "month_length": []int{30, 30}, "weekday": []string{"X", "Y"}}
	for _, entry := range []string{strings.Repeat("[location:1]", domain.MaxMentionLinks+1), distinct.String()} {
		for _, c := range []struct {
			path  string
			extra map[string]any
		}{
			{"/locations", nil},
			{"/calendars", calendar},
			{fmt.Sprintf("/entities/%v/posts", loc.Data()["entity_id"]), nil},
			{fmt.Sprintf("/locations/%v", loc.Data()["id"]), nil},
		} {
			body := map[string]any{"name": "x", "entry": entry}
			for k, v := range c.extra {
				body[k] = v
			}
			method := "POST"
			if strings.HasPrefix(c.path, "/locations/") {
				method = "PATCH"
			}
			r := e.Do(method, api(c.path), e.Member, body)
			if r.Status != 422 || r.Errors()["entry"] == nil {
				t.Errorf("%s %s with %d bytes of mentions: %d %s", method, c.path, len(entry), r.Status, r.Raw)
			}
		}
	}
	after := e.Do("GET", api(fmt.Sprintf("/locations/%v", loc.Data()["id"])), e.Admin, nil)
	lists := []string{"/locations", "/calendars", fmt.Sprintf("/entities/%v/posts", loc.Data()["entity_id"])}
	for _, l := range lists {
		if r := e.Do("GET", api(l), e.Admin, nil); r.Status != 200 || (l == "/locations") != (len(r.List()) == 1) || (l != "/locations" && len(r.List()) != 0) {
			t.Errorf("%s after the refusals: %d %s", l, r.Status, r.Raw)
		}
	}
	if after.Data()["entry"] != nil && after.Data()["entry"] != "" {
		t.Errorf("the refused PATCH changed the entry: %v", after.Data()["entry"])
	}
}
