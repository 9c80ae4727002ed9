package modules_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func registerWithLocations(api *httpapi.API, st *store.Store) {
	register(api, st)
	locations.Register(api, st)
}

func ids(v any) []int64 {
	var out []int64
	for _, x := range v.([]any) {
		out = append(out, num(x))
	}
	return out
}

func show(t *testing.T, e *apitest.Env, path, token string) map[string]any {
	t.Helper()
	r := e.Do("GET", apitest.Path(e.Campaign, path), token, nil)
	if r.Status != 200 {
		t.Fatalf("show %s: %d %s", path, r.Status, r.Raw)
	}
	return r.Data()
}

// A character's races, families and locations: written in both eras, answered as each reader
// may see them, kept exact through the targets' privacy changes, trash, restore and purge, and
// answered in reverse as a family's members.
func TestCharacterReferences(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, registerWithLocations)
	elf := num(create(t, e, "/races", e.Admin, map[string]any{"name": "Elf"})["id"])
	orc := num(create(t, e, "/races", e.Admin, map[string]any{"name": "Orc"})["id"])
	secret := create(t, e, "/races", e.Admin, map[string]any{"name": "Secret", "is_private": true})
	hidden := num(secret["id"])
	fam := create(t, e, "/families", e.Admin, map[string]any{"name": "House"})
	house := num(fam["id"])
	town := num(create(t, e, "/locations", e.Admin, map[string]any{"name": "Town"})["id"])

	// A member cannot name a private race; an admin can. Unknown ids and other campaigns' are
	// refused by index, and nothing is written.
	for _, c := range []struct {
		token string
		body  map[string]any
		field string
	}{
		{e.Member, map[string]any{"name": "A", "races": []int64{elf, hidden}}, "races.1"},
		{e.Admin, map[string]any{"name": "A", "races": []int64{elf, 999_999}}, "races.1"},
		{e.Admin, map[string]any{"name": "A", "families": []int64{house + 999}}, "families.0"},
		{e.Admin, map[string]any{"name": "A", "races": []any{"x"}}, "races.0"},
		{e.Admin, map[string]any{"name": "A", "locations": []int64{town + 999}}, "locations.0"},
	} {
		r := e.Do("POST", apitest.Path(e.Campaign, "/characters"), c.token, c.body)
		if r.Status != 422 || r.Errors()[c.field] == nil {
			t.Fatalf("%v: %d %s, want a 422 naming %s", c.body, r.Status, r.Raw, c.field)
		}
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/characters"), e.Admin, nil); len(r.List()) != 0 {
		t.Fatalf("a refused write stored: %s", r.Raw)
	}

	c := create(t, e, "/characters", e.Admin, map[string]any{"name": "Aria", "races": []int64{elf, hidden}, "families": []int64{house}, "locations": []int64{town}})
	path := fmt.Sprintf("/characters/%d", num(c["id"]))
	if !slices.Equal(ids(c["races"]), []int64{elf, hidden}) || !slices.Equal(ids(c["private_races"]), []int64{hidden}) ||
		num(c["race_id"]) != elf || num(c["family_id"]) != house || num(c["location_id"]) != town {
		t.Fatalf("created: %v", c)
	}
	m := show(t, e, path, e.Member)
	if !slices.Equal(ids(m["races"]), []int64{elf}) || len(m["private_races"].([]any)) != 0 {
		t.Fatalf("a member sees the private race: %v", m)
	}
	// A member's write keeps the race it cannot see; the legacy race_id replaces the first.
	if r := e.Do("PATCH", apitest.Path(e.Campaign, path), e.Member, map[string]any{"race_id": orc}); r.Status != 200 || !slices.Equal(ids(r.Data()["races"]), []int64{orc}) {
		t.Fatalf("legacy race_id: %d %s", r.Status, r.Raw)
	}
	if a := show(t, e, path, e.Admin); !slices.Equal(ids(a["races"]), []int64{orc, hidden}) {
		t.Fatalf("the member's write dropped the private race: %v", a["races"])
	}
	// Filters: any of races[], race_id, families[].
	for q, want := range map[string]int{"?races[]=" + fmt.Sprint(orc): 1, "?race_id=" + fmt.Sprint(elf): 0, "?family_id=" + fmt.Sprint(house): 1, "?locations[]=" + fmt.Sprint(town): 1} {
		if r := e.Do("GET", apitest.Path(e.Campaign, "/characters"+q), e.Member, nil); r.Status != 200 || len(r.List()) != want {
			t.Errorf("filter %s: %d %s, want %d", q, r.Status, r.Raw, want)
		}
	}
	// The family answers its members.
	if f := show(t, e, fmt.Sprintf("/families/%d", house), e.Member); !slices.Equal(ids(f["members"]), []int64{num(c["id"])}) {
		t.Fatalf("members: %v", f["members"])
	}
	// The race made private: gone for the member, kept for the admin.
	orcPath := apitest.Path(e.Campaign, fmt.Sprintf("/races/%d", orc))
	if r := e.Do("PATCH", orcPath, e.Admin, map[string]any{"is_private": true}); r.Status != 200 {
		t.Fatalf("race private: %d %s", r.Status, r.Raw)
	}
	if m := show(t, e, path, e.Member); len(m["races"].([]any)) != 0 || m["race_id"] != nil {
		t.Fatalf("a private race shown to a member: %v", m)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/characters?race_id="+fmt.Sprint(orc)), e.Member, nil); len(r.List()) != 0 {
		t.Fatalf("a member filters by a private race: %s", r.Raw)
	}
	if r := e.Do("PATCH", orcPath, e.Admin, map[string]any{"is_private": false}); r.Status != 200 {
		t.Fatalf("race public: %d %s", r.Status, r.Raw)
	}
	if m := show(t, e, path, e.Member); !slices.Equal(ids(m["races"]), []int64{orc}) {
		t.Fatalf("the race made public again: %v", m["races"])
	}
	// The race trashed: nobody sees it; restored: back.
	orcEntity := num(show(t, e, fmt.Sprintf("/races/%d", orc), e.Admin)["entity_id"])
	if r := e.Do("DELETE", orcPath, e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete race: %d %s", r.Status, r.Raw)
	}
	if a := show(t, e, path, e.Admin); !slices.Equal(ids(a["races"]), []int64{hidden}) {
		t.Fatalf("a trashed race shown: %v", a["races"])
	}
	// A write while the race is in the trash keeps it for the restore.
	if r := e.Do("PATCH", apitest.Path(e.Campaign, path), e.Admin, map[string]any{"races": []int64{elf}}); r.Status != 200 || !slices.Equal(ids(r.Data()["races"]), []int64{elf}) {
		t.Fatalf("write during trash: %d %s", r.Status, r.Raw)
	}
	audit(t, e, e.Campaign)
	if r := e.Do("POST", apitest.Path(e.Campaign, "/recover"), e.Admin, map[string]any{"entities": []int64{orcEntity}}); r.Status != 200 {
		t.Fatalf("recover: %d %s", r.Status, r.Raw)
	}
	if a := show(t, e, path, e.Admin); !slices.Equal(ids(a["races"]), []int64{elf, orc}) {
		t.Fatalf("the restored race: %v", a["races"])
	}
	// The character trashed: the family's members leave it out; restored, back.
	charEntity := num(c["entity_id"])
	if r := e.Do("DELETE", apitest.Path(e.Campaign, path), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete character: %d", r.Status)
	}
	if f := show(t, e, fmt.Sprintf("/families/%d", house), e.Admin); len(f["members"].([]any)) != 0 {
		t.Fatalf("a trashed member: %v", f["members"])
	}
	if r := e.Do("POST", apitest.Path(e.Campaign, "/recover"), e.Admin, map[string]any{"entities": []int64{charEntity}}); r.Status != 200 {
		t.Fatalf("recover character: %d %s", r.Status, r.Raw)
	}
	if f := show(t, e, fmt.Sprintf("/families/%d", house), e.Admin); !slices.Equal(ids(f["members"]), []int64{num(c["id"])}) {
		t.Fatalf("restored member: %v", f["members"])
	}
	// Clearing the list removes the links.
	if r := e.Do("PATCH", apitest.Path(e.Campaign, path), e.Admin, map[string]any{"families": nil, "location_id": nil}); r.Status != 200 ||
		len(r.Data()["families"].([]any)) != 0 || r.Data()["location_id"] != nil {
		t.Fatalf("clear: %d %s", r.Status, r.Raw)
	}
	if f := show(t, e, fmt.Sprintf("/families/%d", house), e.Admin); len(f["members"].([]any)) != 0 {
		t.Fatalf("members after clear: %v", f["members"])
	}
	audit(t, e, e.Campaign)
}

// Single references by entity id (a journal's author, an item's creators and legacy
// character_id).
func TestEntityReferences(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, registerWithLocations)
	hero := create(t, e, "/characters", e.Admin, map[string]any{"name": "Hero"})
	town := create(t, e, "/locations", e.Admin, map[string]any{"name": "Town"})
	j := create(t, e, "/journals", e.Admin, map[string]any{"name": "Log", "author_id": num(hero["entity_id"])})
	if num(j["author_id"]) != num(hero["entity_id"]) {
		t.Fatalf("author: %v", j)
	}
	if r := e.Do("POST", apitest.Path(e.Campaign, "/journals"), e.Admin, map[string]any{"name": "Bad", "author_id": 999_999}); r.Status != 422 || r.Errors()["author_id"] == nil {
		t.Fatalf("unknown author: %d %s", r.Status, r.Raw)
	}
	it := create(t, e, "/items", e.Admin, map[string]any{"name": "Sword", "creators": []int64{num(town["entity_id"])}, "character_id": num(hero["id"]),
		"location_id": num(town["id"])})
	// creators sent wins over the legacy character_id.
	if !slices.Equal(ids(it["creators"]), []int64{num(town["entity_id"])}) || it["character_id"] != nil || num(it["location_id"]) != num(town["id"]) {
		t.Fatalf("item: %v", it)
	}
	p := apitest.Path(e.Campaign, fmt.Sprintf("/items/%d", num(it["id"])))
	r := e.Do("PATCH", p, e.Admin, map[string]any{"character_id": num(hero["id"])})
	if r.Status != 200 || !slices.Equal(ids(r.Data()["creators"]), []int64{num(hero["entity_id"]), num(town["entity_id"])}) || num(r.Data()["character_id"]) != num(hero["id"]) {
		t.Fatalf("legacy character_id: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/items?creators[]=%d", num(hero["entity_id"]))), e.Member, nil); len(r.List()) != 1 {
		t.Fatalf("creators filter: %s", r.Raw)
	}
	// The author purged: its referrers drop it (the sweeper's purge after the trash).
	if r := e.Do("DELETE", apitest.Path(e.Campaign, fmt.Sprintf("/characters/%d", num(hero["id"]))), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete hero: %d", r.Status)
	}
	if j2 := show(t, e, fmt.Sprintf("/journals/%d", num(j["id"])), e.Admin); j2["author_id"] != nil {
		t.Fatalf("a trashed author: %v", j2)
	}
	audit(t, e, e.Campaign)
}

// References keep the budgets: a write adds one round trip (its new targets' BatchGetItem), a
// show none (they live on the home); a character holds 100 races, written in as many writes
// as the transaction's budget needs (a 422 says how many fit); a family's page answers its
// members with one Query a row.
func TestReferenceRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	var races []int64
	for i := range 100 {
		races = append(races, num(create(t, e, "/races", e.Admin, map[string]any{"name": fmt.Sprint("Race ", i)})["id"]))
	}
	house := num(create(t, e, "/families", e.Admin, map[string]any{"name": "House"})["id"])
	e.Counter.Reset()
	c := create(t, e, "/characters", e.Admin, map[string]any{"name": "Many", "races": races[:40], "families": []int64{house}})
	if n := e.Counter.N(); n > 4 {
		t.Fatalf("create with 41 references: %d DynamoDB calls, budget 4", n)
	}
	path := apitest.Path(e.Campaign, fmt.Sprintf("/characters/%d", num(c["id"])))
	r := e.Do("PATCH", path, e.Admin, map[string]any{"races": races})
	if r.Status != 422 || r.Errors()["races"] == nil {
		t.Fatalf("60 new races at once: %d %s", r.Status, r.Raw)
	}
	for _, upto := range []int{80, 100} {
		if r := e.Do("PATCH", path, e.Admin, map[string]any{"races": races[:upto]}); r.Status != 200 || len(r.Data()["races"].([]any)) != upto {
			t.Fatalf("races up to %d: %d %s", upto, r.Status, r.Raw)
		}
	}
	e.Counter.Reset()
	if s := show(t, e, fmt.Sprintf("/characters/%d", num(c["id"])), e.Member); !slices.Equal(ids(s["races"]), races) {
		t.Fatalf("100 races: %v", s["races"])
	}
	if n := e.Counter.N(); n > 1 {
		t.Fatalf("show with 101 references: %d DynamoDB calls, budget 1", n)
	}
	if r := e.Do("PATCH", path, e.Admin, map[string]any{"races": append(slices.Clone(races), races[0]+1000)}); r.Status != 422 || r.Errors()["races"] == nil {
		t.Fatalf("101 races: %d %s", r.Status, r.Raw)
	}
	e.Counter.Reset()
	if r := e.Do("GET", apitest.Path(e.Campaign, "/families"), e.Member, nil); r.Status != 200 || !slices.Equal(ids(r.List()[0].(map[string]any)["members"]), []int64{num(c["id"])}) {
		t.Fatalf("families page: %d %s", r.Status, r.Raw)
	}
	if n := e.Counter.N(); n > 3 {
		t.Fatalf("a page of 1 family with its members: %d DynamoDB calls, budget 3", n)
	}
}

// A module's own filters hold with lastSync too (the delta filters the changed records in
// memory as the list's conditions do).
func TestModuleFiltersWithLastSync(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	since := create(t, e, "/races", e.Admin, map[string]any{"name": "Old"})["updated_at"].(string)
	elf := num(create(t, e, "/races", e.Admin, map[string]any{"name": "Elf"})["id"])
	create(t, e, "/characters", e.Admin, map[string]any{"name": "Dead elf", "is_dead": true, "races": []int64{elf}, "title": "Queen"})
	create(t, e, "/characters", e.Admin, map[string]any{"name": "Alive"})
	for q, want := range map[string]int{"": 2, "&is_dead=1": 1, "&is_dead=0": 1, fmt.Sprintf("&race_id=%d", elf): 1, "&title=quee": 1, "&title=king": 0} {
		r := e.Do("GET", apitest.Path(e.Campaign, "/characters?lastSync="+since+q), e.Member, nil)
		if r.Status != 200 || len(r.List()) != want {
			t.Errorf("lastSync%s: %d %s, want %d rows", q, r.Status, r.Raw, want)
		}
	}
}
