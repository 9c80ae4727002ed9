package inventory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/inventory"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/modules"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func register(api *httpapi.API, st *store.Store) {
	modules.Register(api, st)
	entities.Register(api, st)
	locations.Register(api, st)
	inventory.Register(api, st)
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

// An entity's inventory: lines of items or free names, validated as Kanka's UpdateInventory,
// shown by their visibility and their item's privacy, hidden by the item's trash and back with
// its restore, answered with related=1 on any entity's record, audited.
func TestInventory(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	do := func(method, path, token string, body any) apitest.Response {
		return e.Do(method, apitest.Path(e.Campaign, path), token, body)
	}
	mk := func(path string, body map[string]any) map[string]any {
		t.Helper()
		r := do("POST", path, e.Admin, body)
		if r.Status != 200 {
			t.Fatalf("create %s: %d %s", path, r.Status, r.Raw)
		}
		return r.Data()
	}
	sword := mk("/items", map[string]any{"name": "Sword"})
	secret := mk("/items", map[string]any{"name": "Secret", "is_private": true})
	hero := mk("/characters", map[string]any{"name": "Hero"})
	inv := fmt.Sprintf("/entities/%d/inventory", num(hero["entity_id"]))

	r := do("POST", inv, e.Member, map[string]any{"item_id": num(sword["id"]), "amount": 2, "position": " hand ", "is_equipped": true, "copy_item_entry": true})
	if d := r.Data(); r.Status != 200 || num(d["item_id"]) != num(sword["id"]) || num(d["amount"]) != 2 || d["position"] != "hand" ||
		d["is_equipped"] != true || d["copy_item_entry"] != true || num(d["visibility_id"]) != 1 || num(d["entity_id"]) != num(hero["entity_id"]) {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	line := fmt.Sprintf("%s/%d", inv, num(r.Data()["id"]))
	if r := do("POST", inv, e.Member, map[string]any{"name": "Rope", "amount": 1, "copy_item_entry": true}); r.Status != 200 || r.Data()["item_id"] != nil || r.Data()["copy_item_entry"] != false {
		t.Fatalf("a free line: %d %s", r.Status, r.Raw)
	}
	for _, c := range []struct {
		token string
		body  map[string]any
		field string
	}{
		{e.Admin, map[string]any{"item_id": num(sword["id"])}, "amount"},
		{e.Admin, map[string]any{"amount": 1}, "name"},
		{e.Admin, map[string]any{"item_id": 999, "amount": 1}, "item_id"},
		{e.Member, map[string]any{"item_id": num(secret["id"]), "amount": 1}, "item_id"},
		{e.Admin, map[string]any{"name": "x", "amount": -1}, "amount"},
		{e.Admin, map[string]any{"name": "x", "amount": "many"}, "amount"},
		{e.Admin, map[string]any{"name": strings.Repeat("n", 46), "amount": 1}, "name"},
		{e.Admin, map[string]any{"name": "x", "amount": 1, "position": strings.Repeat("p", 192)}, "position"},
		{e.Admin, map[string]any{"name": "x", "amount": 1, "visibility_id": 9}, "visibility_id"},
		{e.Member, map[string]any{"name": "x", "amount": 1, "visibility_id": 2}, "visibility_id"},
	} {
		if r := do("POST", inv, c.token, c.body); r.Status != 422 || r.Errors()[c.field] == nil {
			t.Errorf("%v: %d %s, want a 422 naming %s", c.body, r.Status, r.Raw, c.field)
		}
	}
	if r := do("POST", inv, e.Viewer, map[string]any{"name": "x", "amount": 1}); r.Status != 403 {
		t.Fatalf("a viewer's line: %d", r.Status)
	}
	for _, tok := range []string{e.Outsider, e.Stranger} {
		if r := do("GET", inv, tok, nil); r.Status != 403 && r.Status != 404 {
			t.Fatalf("an outsider reads the inventory: %d", r.Status)
		}
	}
	mk(inv, map[string]any{"item_id": num(secret["id"]), "amount": 1})
	mk(inv, map[string]any{"name": "Admins' map", "amount": 1, "visibility_id": 2})
	count := func(token string) int {
		t.Helper()
		r := do("GET", inv, token, nil)
		if r.Status != 200 {
			t.Fatalf("list: %d %s", r.Status, r.Raw)
		}
		return len(r.List())
	}
	if a, m := count(e.Admin), count(e.Member); a != 4 || m != 2 {
		t.Fatalf("lines: admin %d, member %d", a, m)
	}
	// A page reads the entity and its record's references once: the access, then two reads.
	e.Counter.Reset()
	count(e.Member)
	if n := e.Counter.N(); n > 3 {
		t.Fatalf("inventory page: %d DynamoDB calls, budget 3", n)
	}
	rel := do("GET", fmt.Sprintf("/characters/%d?related=1", num(hero["id"])), e.Member, nil)
	if got := rel.Data()["inventory"].([]any); len(got) != 2 {
		t.Fatalf("related inventory: %v", got)
	}
	// The item trashed: its line hidden; restored: back.
	if r := do("DELETE", fmt.Sprintf("/items/%d", num(sword["id"])), e.Admin, nil); r.Status != 200 {
		t.Fatalf("trash: %d", r.Status)
	}
	if n := count(e.Member); n != 1 {
		t.Fatalf("lines with a trashed item: %d", n)
	}
	if r := do("GET", line, e.Admin, nil); r.Status != 404 {
		t.Fatalf("a trashed item's line: %d", r.Status)
	}
	if r := do("POST", "/recover", e.Admin, map[string]any{"entities": []int64{num(sword["entity_id"])}}); r.Status != 200 {
		t.Fatalf("recover: %d %s", r.Status, r.Raw)
	}
	if r := do("PATCH", line, e.Member, map[string]any{"amount": 5, "item_id": nil, "name": "Broken sword"}); r.Status != 200 || num(r.Data()["amount"]) != 5 || r.Data()["item_id"] != nil {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	if r := do("DELETE", line, e.Member, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if n := count(e.Admin); n != 3 {
		t.Fatalf("lines after a delete: %d", n)
	}
	// Any entity holds an inventory: a location's, answered with related=1.
	town := mk("/locations", map[string]any{"name": "Town"})
	mk(fmt.Sprintf("/entities/%d/inventory", num(town["entity_id"])), map[string]any{"item_id": num(sword["id"]), "amount": 10})
	if r := do("GET", fmt.Sprintf("/locations/%d?related=1", num(town["id"])), e.Member, nil); len(r.Data()["inventory"].([]any)) != 1 {
		t.Fatalf("a location's inventory: %s", r.Raw)
	}
	if problems, err := ops.Audit(context.Background(), e.Store, e.Campaign); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
}
