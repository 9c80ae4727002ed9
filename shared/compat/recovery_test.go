package compat_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// The Foundry importer syncs its journal with `entities?lastSync=`; a deletion reaches it as
// a tombstone (`&deleted=1`), and when an admin recovers the entity (Kanka's recovery routes)
// the next sync brings it back with the same id, its location and its events as they were.
func TestFoundryImporterSyncSeesADeletionAndItsRecovery(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	api := func(rest string) string { return apitest.Path(w.Campaign, rest) }
	luskan := w.locations["Luskan"]
	eid := luskan["entity_id"]
	ev := w.Do("POST", api(fmt.Sprintf("/entities/%v/entity_events", eid)), w.Admin, map[string]any{
		"name": "Founding", "calendar_id": w.calendars["Calendar of Harptos"]["id"], "day": 1, "month": 1, "year": 1200, "length": 1})
	if ev.Status != 200 {
		t.Fatalf("event: %d %s", ev.Status, ev.Raw)
	}
	entityIDs := func(r apitest.Response) []any {
		var out []any
		for _, row := range r.List() {
			out = append(out, row.(map[string]any)["id"])
		}
		return out
	}
	syncOf := func(token string) string {
		r := w.Do("GET", api("/entities?types=location"), token, nil)
		if r.Status != 200 || !slices.Contains(entityIDs(r), eid) {
			t.Fatalf("importer's full read: %d %s", r.Status, r.Raw)
		}
		sync := r.Body["sync"].(string)
		apitest.WaitPastSync(t, sync)
		return url.QueryEscape(sync)
	}
	events := w.Do("GET", api(fmt.Sprintf("/entities/%v/entity_events", eid)), w.Member, nil).Raw
	first := syncOf(w.Member)
	if r := w.Do("DELETE", api(fmt.Sprintf("/locations/%v", luskan["id"])), w.Admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	if r := w.Do("GET", api("/entities?lastSync="+first+"&deleted=1"), w.Member, nil); !slices.Equal(entityIDs(r), []any{eid}) {
		t.Fatalf("deletions since the first sync: %s", r.Raw)
	}
	if r := w.Do("GET", api("/entities?lastSync="+first), w.Member, nil); slices.Contains(entityIDs(r), eid) {
		t.Fatalf("changes since the first sync hold the deleted entity: %s", r.Raw)
	}
	secondSync := w.Do("GET", api("/entities?lastSync="+first), w.Member, nil).Body["sync"].(string)
	apitest.WaitPastSync(t, secondSync)
	second := url.QueryEscape(secondSync)

	// The admin's recovery screen, then the restore.
	r := w.Do("GET", api("/recovery"), w.Admin, nil)
	if r.Status != 200 || !slices.Contains(entityIDs(r), eid) {
		t.Fatalf("recovery: %d %s", r.Status, r.Raw)
	}
	if r := w.Do("POST", api("/recover"), w.Admin, map[string]any{"entities": []any{eid}}); r.Status != 200 {
		t.Fatalf("recover: %d %s", r.Status, r.Raw)
	}
	r = w.Do("GET", api("/entities?lastSync="+second), w.Member, nil)
	if !slices.Equal(entityIDs(r), []any{eid}) {
		t.Fatalf("changes since the second sync: %s, want the restored entity", r.Raw)
	}
	if row := r.List()[0].(map[string]any); row["child_id"] != luskan["id"] || row["name"] != "Luskan" {
		t.Errorf("restored entity: %v", row)
	}
	if r := w.Do("GET", api("/entities?lastSync="+second+"&deleted=1"), w.Member, nil); len(r.List()) != 0 {
		t.Errorf("deletions since the second sync: %s", r.Raw)
	}
	if r := w.Do("GET", api(fmt.Sprintf("/entities/%v/entity_events", eid)), w.Member, nil); len(r.List()) != 2 || !slices.Contains(entityIDs(r), ev.Data()["id"]) {
		t.Errorf("the restored entity's events: %s, before the delete %s", r.Raw, events)
	}
}
