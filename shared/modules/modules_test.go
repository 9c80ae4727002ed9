package modules_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/modules"
	"github.com/lorekeep/lorekeep/shared/modules/spec"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func register(api *httpapi.API, st *store.Store) {
	modules.Register(api, st)
	entities.Register(api, st)
}

func audit(t *testing.T, e *apitest.Env, cid int64) {
	t.Helper()
	if problems, err := ops.Audit(context.Background(), e.Store, cid); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
}

func create(t *testing.T, e *apitest.Env, path, token string, body map[string]any) map[string]any {
	t.Helper()
	r := e.Do("POST", apitest.Path(e.Campaign, path), token, body)
	if r.Status != 200 {
		t.Fatalf("create %s %v: %d %s", path, body, r.Status, r.Raw)
	}
	return r.Data()
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

// Every declared module: create, show, list, update, the entity of its type, delete to the
// trash and restore, each answer checked against the OpenAPI document, the table audited.
func TestEveryModulesCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	for _, m := range spec.All {
		t.Run(m.Module.Code, func(t *testing.T) {
			body := map[string]any{"name": " First " + m.Module.Singular + " ", "entry": "<p>Hello <script>x</script></p>", "type": "Kind"}
			for _, f := range m.Fields {
				switch f.Kind {
				case spec.Text:
					body[f.Name] = "v-" + f.Name
				case spec.Date:
					body[f.Name] = "2026-11-30"
				case spec.Flag:
					body[f.Name] = true
				}
			}
			d := create(t, e, m.Path, e.Admin, body)
			id, eid := num(d["id"]), num(d["entity_id"])
			if d["name"] != "First "+m.Module.Singular || d["entry"] != "<p>Hello </p>" || d["type"] != "Kind" || eid == 0 {
				t.Fatalf("created: %v", d)
			}
			for _, f := range m.Fields {
				if d[f.Name] != body[f.Name] {
					t.Errorf("%s = %v, want %v", f.Name, d[f.Name], body[f.Name])
				}
			}
			one := apitest.Path(e.Campaign, fmt.Sprintf("%s/%d", m.Path, id))
			if r := e.Do("GET", one, e.Member, nil); r.Status != 200 || r.Data()["name"] != d["name"] {
				t.Fatalf("show: %d %s", r.Status, r.Raw)
			}
			if r := e.Do("GET", apitest.Path(e.Campaign, m.Path), e.Member, nil); r.Status != 200 || len(r.List()) != 1 {
				t.Fatalf("list: %d %s", r.Status, r.Raw)
			}
			ent := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d", eid)), e.Member, nil)
			if ent.Status != 200 || ent.Data()["type"] != m.Module.Code || num(ent.Data()["child_id"]) != id {
				t.Fatalf("entity: %d %s", ent.Status, ent.Raw)
			}
			if r := e.Do("GET", apitest.Path(e.Campaign, "/entities?types="+m.Module.Code), e.Member, nil); r.Status != 200 || len(r.List()) != 1 {
				t.Fatalf("entities of the type: %d %s", r.Status, r.Raw)
			}
			if len(m.Fields) > 0 {
				f := m.Fields[0]
				u := e.Do("PATCH", one, e.Member, map[string]any{f.Name: nil})
				if u.Status != 200 || (f.Kind != spec.Flag && u.Data()[f.Name] != nil) || u.Data()["name"] != d["name"] {
					t.Fatalf("patch %s: %d %s", f.Name, u.Status, u.Raw)
				}
			}
			if r := e.Do("GET", one+"?related=1", e.Member, nil); r.Status != 200 {
				t.Fatalf("related: %d %s", r.Status, r.Raw)
			} else if _, ok := r.Data()["posts"].([]any); !ok {
				t.Fatalf("related=1 without posts: %s", r.Raw)
			}
			if r := e.Do("DELETE", one, e.Admin, nil); r.Status != 200 {
				t.Fatalf("delete: %d %s", r.Status, r.Raw)
			}
			if r := e.Do("GET", one, e.Admin, nil); r.Status != 404 {
				t.Fatalf("show after delete: %d", r.Status)
			}
			if r := e.Do("POST", apitest.Path(e.Campaign, "/recover"), e.Admin, map[string]any{"entities": []int64{eid}}); r.Status != 200 {
				t.Fatalf("recover: %d %s", r.Status, r.Raw)
			}
			if r := e.Do("GET", one, e.Admin, nil); r.Status != 200 {
				t.Fatalf("show after restore: %d %s", r.Status, r.Raw)
			}
		})
	}
	audit(t, e, e.Campaign)
}

// Bad input is a 422 naming the field, and writes nothing.
func TestModuleInputRefused(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	cases := []struct {
		name, path string
		body       map[string]any
		field      string
	}{
		{"no name", "/characters", map[string]any{"title": "x"}, "name"},
		{"title too long", "/characters", map[string]any{"name": "a", "title": fmt.Sprintf("%0200d", 1)}, "title"},
		{"age not text", "/characters", map[string]any{"name": "a", "age": []int{1}}, "age"},
		{"flag not a boolean", "/characters", map[string]any{"name": "a", "is_personality_visible": "maybe"}, "is_personality_visible"},
		{"a character has no parent", "/characters", map[string]any{"name": "a", "parent_id": 1}, "parent_id"},
		{"status of another module", "/characters", map[string]any{"name": "a", "status_id": 12}, "status_id"},
		{"status not a number", "/characters", map[string]any{"name": "a", "status_id": "dead"}, "status_id"},
		{"journal date not a date", "/journals", map[string]any{"name": "a", "date": "yesterday"}, "date"},
		{"parent entity missing", "/organisations", map[string]any{"name": "a", "parent_id": 999999}, "parent_id"},
		{"legacy parent missing", "/organisations", map[string]any{"name": "a", "organisation_id": 999999}, "organisation_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", apitest.Path(e.Campaign, c.path), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("%d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	for _, m := range spec.All {
		if r := e.Do("GET", apitest.Path(e.Campaign, m.Path), e.Admin, nil); r.Status != 200 || len(r.List()) != 0 {
			t.Fatalf("%s after refused writes: %d %s", m.Path, r.Status, r.Raw)
		}
	}
}

// Both eras' status fields: status_id with the status object, and the 2025 booleans, written
// either way and answered both ways.
func TestStatusesInBothEras(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	c := create(t, e, "/characters", e.Admin, map[string]any{"name": "Bob", "is_dead": true})
	one := apitest.Path(e.Campaign, fmt.Sprintf("/characters/%d", num(c["id"])))
	if num(c["status_id"]) != 3 || c["is_dead"] != true || c["status"].(map[string]any)["key"] != "dead" {
		t.Fatalf("dead by is_dead: %v", c)
	}
	steps := []struct {
		body   map[string]any
		status any
		dead   bool
	}{
		{map[string]any{"is_dead": false}, float64(1), false},                // alive, Kanka's default
		{map[string]any{"status_id": 2}, float64(2), false},                  // missing
		{map[string]any{"is_dead": false}, float64(2), false},                // not dead: missing stays
		{map[string]any{"status_id": 3, "is_dead": false}, float64(3), true}, // status_id wins
		{map[string]any{"status_id": nil}, nil, false},
	}
	for i, s := range steps {
		u := e.Do("PATCH", one, e.Admin, s.body)
		if u.Status != 200 || u.Data()["status_id"] != s.status || u.Data()["is_dead"] != s.dead {
			t.Fatalf("step %d %v: %d %s", i, s.body, u.Status, u.Raw)
		}
	}
	cr := create(t, e, "/creatures", e.Admin, map[string]any{"name": "Dodo", "is_extinct": true})
	if num(cr["status_id"]) != 5 || cr["is_extinct"] != true || cr["is_dead"] != false {
		t.Fatalf("creature: %v", cr)
	}
	q := create(t, e, "/quests", e.Admin, map[string]any{"name": "Find the map", "is_completed": true, "date": "2026-12-01"})
	if num(q["status_id"]) != 10 || q["is_completed"] != true || q["date"] != "2026-12-01" {
		t.Fatalf("quest: %v", q)
	}
	qp := apitest.Path(e.Campaign, fmt.Sprintf("/quests/%d", num(q["id"])))
	if u := e.Do("PATCH", qp, e.Admin, map[string]any{"is_completed": false}); u.Status != 200 || num(u.Data()["status_id"]) != 8 || u.Data()["is_completed"] != false {
		t.Fatalf("a quest no longer completed is not started (Kanka's default): %d %s", u.Status, u.Raw)
	}
	r := e.Do("GET", apitest.Path(e.Campaign, "/category_statuses"), e.Member, nil)
	if r.Status != 200 || len(r.List()) != 15 { // the served modules' (a location's is not yet)
		t.Fatalf("category statuses: %d %s", r.Status, r.Raw)
	}
	audit(t, e, e.Campaign)
}

// Nesting in both eras: parent_id (the parent's entity id) or <module>_id (its module id);
// cycles, other modules' entities and hidden parents refused; a private parent hidden from
// non-admins.
func TestParentsInBothEras(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	top := create(t, e, "/organisations", e.Admin, map[string]any{"name": "Guild"})
	mid := create(t, e, "/organisations", e.Admin, map[string]any{"name": "Chapter", "parent_id": top["entity_id"]})
	if mid["organisation_id"] != top["id"] {
		t.Fatalf("parent by entity id: %v", mid)
	}
	low := create(t, e, "/organisations", e.Admin, map[string]any{"name": "Cell", "organisation_id": mid["id"]})
	if low["organisation_id"] != mid["id"] {
		t.Fatalf("parent by module id: %v", low)
	}
	topPath := apitest.Path(e.Campaign, fmt.Sprintf("/organisations/%d", num(top["id"])))
	if r := e.Do("PATCH", topPath, e.Admin, map[string]any{"organisation_id": low["id"]}); r.Status != 422 || r.Errors()["organisation_id"] == nil {
		t.Fatalf("cycle: %d %s", r.Status, r.Raw)
	}
	char := create(t, e, "/characters", e.Admin, map[string]any{"name": "Ann"})
	if r := e.Do("POST", apitest.Path(e.Campaign, "/organisations"), e.Admin, map[string]any{"name": "X", "parent_id": char["entity_id"]}); r.Status != 422 || r.Errors()["parent_id"] == nil {
		t.Fatalf("a character as parent: %d %s", r.Status, r.Raw)
	}
	// An old client echoing what it read with its own field changed: the legacy field wins.
	lowPath := apitest.Path(e.Campaign, fmt.Sprintf("/organisations/%d", num(low["id"])))
	if r := e.Do("PUT", lowPath, e.Admin, map[string]any{"parent_id": mid["entity_id"], "organisation_id": top["id"]}); r.Status != 200 || r.Data()["organisation_id"] != top["id"] {
		t.Fatalf("echoed parent_id with a changed legacy parent: %d %s", r.Status, r.Raw)
	}
	// A private parent: a member sees none, and cannot nest under it.
	if r := e.Do("PATCH", topPath, e.Admin, map[string]any{"is_private": true}); r.Status != 200 {
		t.Fatalf("private: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", lowPath, e.Member, nil); r.Status != 200 || r.Data()["organisation_id"] != nil {
		t.Fatalf("a member's view of a private parent: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", topPath, e.Member, nil); r.Status != 404 {
		t.Fatalf("a member's view of a private record: %d", r.Status)
	}
	// A member sending back the none it read keeps the hidden parent (as locations do).
	if r := e.Do("PUT", lowPath, e.Member, map[string]any{"name": "Cell", "organisation_id": nil}); r.Status != 200 {
		t.Fatalf("a member's write back: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", lowPath, e.Admin, nil); r.Data()["organisation_id"] != top["id"] {
		t.Fatalf("the hidden parent after a member's write back: %s", r.Raw)
	}
	if r := e.Do("POST", apitest.Path(e.Campaign, "/organisations"), e.Member, map[string]any{"name": "Y", "parent_id": top["entity_id"]}); r.Status != 422 || r.Errors()["parent_id"] == nil {
		t.Fatalf("a member nesting under a private parent: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/organisations"), e.Member, nil); r.Status != 200 || len(r.List()) != 2 {
		t.Fatalf("a member's list: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/organisations"), e.Outsider, nil); r.Status != 404 && r.Status != 403 {
		t.Fatalf("an outsider's list of a private campaign: %d", r.Status)
	}
	audit(t, e, e.Campaign)
}

// A module's list takes Kanka's filters on its own fields, its status in both eras and its
// legacy parent, on the stored lower-case copies and attributes.
func TestModuleFilters(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	ann := create(t, e, "/characters", e.Admin, map[string]any{"name": "Ann", "title": "Sea Captain", "sex": "Female", "is_dead": true})
	bob := create(t, e, "/characters", e.Admin, map[string]any{"name": "Bob", "title": "Cook", "sex": "Male"})
	cy := create(t, e, "/characters", e.Admin, map[string]any{"name": "Cy", "title": "Captain", "status_id": 2})
	g := create(t, e, "/organisations", e.Admin, map[string]any{"name": "Guild"})
	ch := create(t, e, "/organisations", e.Admin, map[string]any{"name": "Chapter", "organisation_id": g["id"]})
	ids := func(r apitest.Response) []int64 {
		var out []int64
		for _, it := range r.List() {
			out = append(out, num(it.(map[string]any)["id"]))
		}
		return out
	}
	cases := []struct {
		query string
		want  []any
	}{
		{"/characters?title=captain", []any{ann["id"], cy["id"]}},
		{"/characters?title=!captain", []any{bob["id"]}},
		{"/characters?title=captain!", []any{cy["id"]}},
		{"/characters?sex=female&title=sea", []any{ann["id"]}},
		{"/characters?is_dead=1", []any{ann["id"]}},
		{"/characters?is_dead=0", []any{bob["id"], cy["id"]}},
		{"/characters?status_id=2", []any{cy["id"]}},
		{"/characters?name=y&title=cook", nil}, // a name with another filter reads the range, not the name shards (Cy)
		{"/organisations?organisation_id=" + fmt.Sprint(num(g["id"])), []any{ch["id"]}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r := e.Do("GET", apitest.Path(e.Campaign, c.query), e.Member, nil)
			var want []int64
			for _, w := range c.want {
				want = append(want, num(w))
			}
			if got := ids(r); r.Status != 200 || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%d %v, want %v: %s", r.Status, got, want, r.Raw)
			}
		})
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/characters?status_id=dead"), e.Member, nil); r.Status != 422 || r.Errors()["status_id"] == nil {
		t.Fatalf("a status filter that is no number: %d %s", r.Status, r.Raw)
	}
}

// A mention of a module record's entity resolves in other entries (entry_parsed links it) and
// in the mentions list; its name is found by search.
func TestModuleRecordsAreMentionedAndSearched(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	ann := create(t, e, "/characters", e.Admin, map[string]any{"name": "Annabel"})
	org := create(t, e, "/organisations", e.Admin, map[string]any{"name": "Guild", "entry": fmt.Sprintf("<p>Led by [character:%d]</p>", num(ann["entity_id"]))})
	parsed, _ := org["entry_parsed"].(string)
	if !strings.Contains(parsed, "Annabel") || !strings.Contains(parsed, "<a ") {
		t.Fatalf("entry_parsed = %q", parsed)
	}
	r := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/mentions?direction=in", num(ann["entity_id"]))), e.Member, nil)
	if r.Status != 200 || len(r.List()) != 1 {
		t.Fatalf("mentions of the character: %d %s", r.Status, r.Raw)
	}
	s := e.Do("GET", apitest.Path(e.Campaign, "/search/annab"), e.Member, nil)
	if s.Status != 200 || len(s.List()) != 1 || s.List()[0].(map[string]any)["type"] != "character" {
		t.Fatalf("search: %d %s", s.Status, s.Raw)
	}
}

// A module's routes keep the owner kinds' budgets (DESIGN 3): a show is one round trip after
// the access read (read ahead), a list page two, a write one transaction after its reads; a
// page evaluates about what it answers, whatever the module holds.
func TestModuleRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	top := create(t, e, "/races", e.Admin, map[string]any{"name": "Budget"})
	for i := 0; i < 60; i++ {
		create(t, e, "/races", e.Admin, map[string]any{"name": fmt.Sprintf("Filler %d", i)})
	}
	one := apitest.Path(e.Campaign, fmt.Sprintf("/races/%d", num(top["id"])))
	org := create(t, e, "/organisations", e.Admin, map[string]any{"name": "Guild"})
	for i := 0; i < 12; i++ {
		create(t, e, "/organisations", e.Admin, map[string]any{"name": fmt.Sprintf("Guild %d", i)})
	}
	cases := []struct {
		name         string
		method, path string
		body         any
		max          int64
		page         bool
	}{
		{"show", "GET", one, nil, 1, false},
		{"list page 1", "GET", apitest.Path(e.Campaign, "/races?limit=10"), nil, 2, true},
		{"list page 3", "GET", apitest.Path(e.Campaign, "/races?limit=10&page=3"), nil, 3, true},
		{"create", "POST", apitest.Path(e.Campaign, "/races"), map[string]any{"name": "New"}, 3, false},
		{"create under a parent", "POST", apitest.Path(e.Campaign, "/races"), map[string]any{"name": "Sub", "parent_id": top["entity_id"]}, 5, false},
		// An organisation answers its members: one Query more a record (concurrent on a page).
		{"organisation show", "GET", apitest.Path(e.Campaign, fmt.Sprintf("/organisations/%d", num(org["id"]))), nil, 2, false},
		{"organisations page", "GET", apitest.Path(e.Campaign, "/organisations?limit=10"), nil, 2 + 10, true},
		{"update", "PATCH", one, map[string]any{"type": "Keep"}, 2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do(c.method, c.path, e.Admin, c.body)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := e.Counter.N(); n > c.max || n == 0 {
				t.Fatalf("%d DynamoDB calls, budget %d", n, c.max)
			}
			if got := e.Counter.Fetched(); c.page && got > 10+2+1+100+10 {
				t.Fatalf("%d items evaluated for a page of 10", got)
			}
		})
	}
}

// A character's traits, written as Kanka's parallel arrays (positions for new traits, ids for
// kept ones) and answered as traits[]; personality traits hidden from other members unless
// is_personality_visible; bounds refused with the field named.
func TestCharacterTraits(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	c := create(t, e, "/characters", e.Admin, map[string]any{"name": "Ann",
		"appearance_name": []any{"Eyes", "", "Hair"}, "appearance_entry": []any{"Green", "skipped", "Red"},
		"personality_name": []any{"Brave"}, "personality_entry": []any{"Very"}})
	one := apitest.Path(e.Campaign, fmt.Sprintf("/characters/%d", num(c["id"])))
	traits := func(r apitest.Response) []string {
		var out []string
		for _, it := range r.Data()["traits"].([]any) {
			m := it.(map[string]any)
			out = append(out, fmt.Sprintf("%v:%v=%v#%v", m["section"], m["name"], m["entry"], m["default_order"]))
		}
		return out
	}
	admin := e.Do("GET", one, e.Admin, nil)
	if got := fmt.Sprint(traits(admin)); got != "[appearance:Eyes=Green#0 appearance:Hair=Red#1 personality:Brave=Very#0]" {
		t.Fatalf("traits = %s", got)
	}
	if got := fmt.Sprint(traits(e.Do("GET", one, e.Member, nil))); got != "[appearance:Eyes=Green#0 appearance:Hair=Red#1]" {
		t.Fatalf("a member's traits = %s (personality hidden)", got)
	}
	if r := e.Do("PATCH", one, e.Admin, map[string]any{"is_personality_visible": true}); r.Status != 200 {
		t.Fatalf("visible: %d %s", r.Status, r.Raw)
	}
	if got := len(traits(e.Do("GET", one, e.Member, nil))); got != 3 {
		t.Fatalf("a member sees %d traits once personality is visible", got)
	}
	// Kept by id (an object), reordered and renamed; the section left out keeps its traits.
	var eyes, hair float64
	for _, it := range admin.Data()["traits"].([]any) {
		m := it.(map[string]any)
		switch m["name"] {
		case "Eyes":
			eyes = m["id"].(float64)
		case "Hair":
			hair = m["id"].(float64)
		}
	}
	u := e.Do("PATCH", one, e.Admin, map[string]any{"appearance_name": map[string]any{fmt.Sprint(hair): "Hair", "new": "Height"},
		"appearance_entry": map[string]any{fmt.Sprint(hair): "Grey", "new": "Tall"}})
	if u.Status != 200 || fmt.Sprint(traits(u)) != "[appearance:Hair=Grey#0 appearance:Height=Tall#1 personality:Brave=Very#0]" {
		t.Fatalf("patch traits: %d %v", u.Status, traits(u))
	}
	for _, it := range u.Data()["traits"].([]any) {
		if m := it.(map[string]any); m["name"] == "Hair" && m["id"] != hair || m["id"] == eyes {
			t.Fatalf("ids: %v (hair was %v, eyes %v)", m, hair, eyes)
		}
	}
	names := make([]any, 101)
	for i := range names {
		names[i] = fmt.Sprint("T", i)
	}
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"too many", map[string]any{"appearance_name": names}, "appearance_name"},
		{"a name too long", map[string]any{"personality_name": []any{fmt.Sprintf("%0200d", 1)}}, "personality_name.0"},
		{"an entry too long", map[string]any{"personality_name": []any{"A"}, "personality_entry": []any{fmt.Sprintf("%01001d", 1)}}, "personality_entry.0"},
		{"not a string", map[string]any{"appearance_name": []any{3}}, "appearance_name.0"},
		{"not an array", map[string]any{"appearance_name": "Eyes"}, "appearance_name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := e.Do("PATCH", one, e.Admin, c.body); r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("%d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
	if got := len(traits(e.Do("GET", one, e.Admin, nil))); got != 3 {
		t.Fatalf("refused writes changed the traits: %d", got)
	}
	audit(t, e, e.Campaign)
}

// Two concurrent moves that would close a cycle (A under B, B under A) never both succeed:
// the kernel's nesting holds the parent chain read in each write's transaction. Concurrent
// updates of one record lose no write: each answers 200 or 409, and the last 200 is stored.
func TestModuleWritesUnderRaces(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	for round := 0; round < 8; round++ {
		a := create(t, e, "/organisations", e.Admin, map[string]any{"name": fmt.Sprint("A", round)})
		b := create(t, e, "/organisations", e.Admin, map[string]any{"name": fmt.Sprint("B", round)})
		pa := apitest.Path(e.Campaign, fmt.Sprintf("/organisations/%d", num(a["id"])))
		pb := apitest.Path(e.Campaign, fmt.Sprintf("/organisations/%d", num(b["id"])))
		var wg sync.WaitGroup
		status := make([]int, 2)
		for i, c := range []struct {
			path   string
			parent any
		}{{pa, b["id"]}, {pb, a["id"]}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status[i] = e.Do("PATCH", c.path, e.Admin, map[string]any{"organisation_id": c.parent}).Status
			}()
		}
		wg.Wait()
		if status[0] == 200 && status[1] == 200 {
			t.Fatalf("round %d: both moves succeeded: a cycle", round)
		}
		for _, s := range status {
			if s != 200 && s != 409 && s != 422 {
				t.Fatalf("round %d: statuses %v", round, status)
			}
		}
	}
	c := create(t, e, "/characters", e.Admin, map[string]any{"name": "Race"})
	one := apitest.Path(e.Campaign, fmt.Sprintf("/characters/%d", num(c["id"])))
	var mu sync.Mutex
	won := map[string]bool{}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			title := fmt.Sprint("T", i)
			r := e.Do("PATCH", one, e.Admin, map[string]any{"title": title})
			switch {
			case r.Status == 200:
				mu.Lock()
				won[title] = true
				mu.Unlock()
			case r.Status == 409 && r.Header.Get("Retry-After") != "":
			default:
				t.Errorf("concurrent update: %d %s", r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	final := e.Do("GET", one, e.Admin, nil).Data()
	if len(won) == 0 || !won[fmt.Sprint(final["title"])] {
		t.Fatalf("stored title %v, the updates that answered 200: %v", final["title"], won)
	}
	var it struct {
		Version int64 `dynamo:"version"`
	}
	if err := e.Store.GetItem(context.Background(), store.RecordKey(e.Campaign, "CHARACTER", num(c["id"])), &it); err != nil || it.Version != int64(1+len(won)) {
		t.Fatalf("version %d (%v), want one write per 200 (%d)", it.Version, err, 1+len(won))
	}
	audit(t, e, e.Campaign)
}
