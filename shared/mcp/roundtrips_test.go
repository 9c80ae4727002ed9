package mcp_test

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A tool costs the DynamoDB round trips of the REST requests it makes, nothing more: a list is
// the REST list's, a batch of n creates n times the REST create's, a get by entity id the
// entity's read plus the record's.
func TestToolsCostTheirRESTRequestsRoundTrips(t *testing.T) {
	e := newEnv(t)
	cs := connect(t, e, e.Admin)
	cid := e.Campaign
	rest := func(method, path string, body any) int64 {
		e.Counter.Reset()
		if r := e.Do(method, apitest.Path(cid, path), e.Admin, body); r.Status != 200 {
			t.Fatalf("%s %s: %d", method, path, r.Status)
		}
		return e.Counter.N()
	}
	tool := func(name string, args map[string]any) int64 {
		e.Counter.Reset()
		ok[map[string]any](t, cs, name, args)
		return e.Counter.N()
	}
	rest("POST", "/characters", map[string]any{"name": "First"}) // the campaign's first record also makes its counters
	create := rest("POST", "/characters", map[string]any{"name": "A"})
	if got := tool("create_records", map[string]any{"campaign_id": cid, "module": "characters", "entry_format": "html",
		"items": []any{map[string]any{"name": "B"}, map[string]any{"name": "C"}, map[string]any{"name": "D"}}}); got != 3*create {
		t.Errorf("3 creates: %d round trips, want 3 x %d", got, create)
	}
	list := rest("GET", "/characters?limit=2", nil)
	if got := tool("list_records", map[string]any{"campaign_id": cid, "module": "characters", "limit": 2, "entry_format": "html"}); got != list {
		t.Errorf("list: %d round trips, want the REST list's %d", got, list)
	}
	show := rest("GET", "/characters/1", nil)
	entity := rest("GET", "/entities/1", nil)
	if got := tool("get_records", map[string]any{"campaign_id": cid, "items": []any{map[string]any{"entity_id": 1}}}); got != show+entity {
		t.Errorf("get by entity: %d round trips, want %d + %d", got, entity, show)
	}
	t.Logf("round trips: create %d, list %d, show %d, entity %d", create, list, show, entity)
}
