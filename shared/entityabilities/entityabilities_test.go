package entityabilities_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/entityabilities"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/modules"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func register(api *httpapi.API, st *store.Store) {
	modules.Register(api, st)
	entities.Register(api, st)
	entityabilities.Register(api, st)
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

// An entity's abilities: one row per ability of a POST's abilities (Kanka's), validated,
// shown by visibility and by the ability's privacy, hidden by its trash and back with its
// restore, answered with related=1, audited.
func TestEntityAbilities(t *testing.T) {
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
	fire := mk("/abilities", map[string]any{"name": "Fireball", "charges": "3"})
	ice := mk("/abilities", map[string]any{"name": "Ice"})
	secret := mk("/abilities", map[string]any{"name": "Secret", "is_private": true})
	mage := mk("/characters", map[string]any{"name": "Mage"})
	col := fmt.Sprintf("/entities/%d/entity_abilities", num(mage["entity_id"]))

	r := do("POST", col, e.Member, map[string]any{"abilities": []int64{num(fire["id"]), num(ice["id"])}, "charges": 2, "position": 1, "note": "daily"})
	if r.Status != 200 || len(r.List()) != 2 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	first := r.List()[0].(map[string]any)
	if num(first["ability_id"]) != num(fire["id"]) || num(first["charges"]) != 2 || num(first["position"]) != 1 || first["note"] != "daily" || num(first["visibility_id"]) != 1 {
		t.Fatalf("row: %v", first)
	}
	one := fmt.Sprintf("%s/%d", col, num(first["id"]))
	for _, c := range []struct {
		token string
		body  map[string]any
		field string
	}{
		{e.Admin, map[string]any{}, "abilities"},
		{e.Admin, map[string]any{"abilities": []int64{999}}, "abilities.0"},
		{e.Member, map[string]any{"abilities": []int64{num(secret["id"])}}, "abilities.0"},
		{e.Admin, map[string]any{"abilities": []any{"x"}}, "abilities.0"},
		{e.Admin, map[string]any{"abilities": []int64{num(ice["id"])}, "charges": 500}, "charges"},
		{e.Admin, map[string]any{"abilities": []int64{num(ice["id"])}, "position": 101}, "position"},
		{e.Member, map[string]any{"abilities": []int64{num(ice["id"])}, "visibility_id": 2}, "visibility_id"},
	} {
		if r := do("POST", col, c.token, c.body); r.Status != 422 || r.Errors()[c.field] == nil {
			t.Errorf("%v: %d %s, want a 422 naming %s", c.body, r.Status, r.Raw, c.field)
		}
	}
	if r := do("POST", col, e.Viewer, map[string]any{"abilities": []int64{num(ice["id"])}}); r.Status != 403 {
		t.Fatalf("a viewer's write: %d", r.Status)
	}
	mk(col, map[string]any{"abilities": []int64{num(secret["id"])}})
	mk(col, map[string]any{"abilities": []int64{num(ice["id"])}, "visibility_id": 2})
	count := func(token string) int {
		t.Helper()
		r := do("GET", col, token, nil)
		if r.Status != 200 {
			t.Fatalf("list: %d %s", r.Status, r.Raw)
		}
		return len(r.List())
	}
	if a, m := count(e.Admin), count(e.Member); a != 4 || m != 2 {
		t.Fatalf("rows: admin %d, member %d", a, m)
	}
	e.Counter.Reset()
	count(e.Member)
	if n := e.Counter.N(); n > 3 {
		t.Fatalf("entity abilities page: %d DynamoDB calls, budget 3", n)
	}
	if rel := do("GET", fmt.Sprintf("/characters/%d?related=1", num(mage["id"])), e.Member, nil); len(rel.Data()["entity_abilities"].([]any)) != 2 {
		t.Fatalf("related: %s", rel.Raw)
	}
	if r := do("DELETE", fmt.Sprintf("/abilities/%d", num(fire["id"])), e.Admin, nil); r.Status != 200 {
		t.Fatalf("trash: %d", r.Status)
	}
	if r := do("GET", one, e.Admin, nil); r.Status != 404 {
		t.Fatalf("a trashed ability's row: %d", r.Status)
	}
	if r := do("POST", "/recover", e.Admin, map[string]any{"entities": []int64{num(fire["entity_id"])}}); r.Status != 200 {
		t.Fatalf("recover: %d %s", r.Status, r.Raw)
	}
	if r := do("PATCH", one, e.Member, map[string]any{"charges": nil, "note": "weekly", "ability_id": num(ice["id"])}); r.Status != 200 ||
		r.Data()["charges"] != nil || r.Data()["note"] != "weekly" || num(r.Data()["ability_id"]) != num(ice["id"]) {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	if r := do("DELETE", one, e.Member, nil); r.Status != 200 {
		t.Fatalf("delete: %d", r.Status)
	}
	if n := count(e.Admin); n != 3 {
		t.Fatalf("rows after a delete: %d", n)
	}
	if problems, err := ops.Audit(context.Background(), e.Store, e.Campaign); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
}
