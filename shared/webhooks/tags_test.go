package webhooks_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/webhooks"
)

// Tags are announced as every owner record is (tag.created, .updated, .deleted, their path the
// tag's), a private tag to include_private webhooks only.
func TestTagEvents(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	public, everything := newReceiver(t, nil), newReceiver(t, nil)
	e.createHook(t, map[string]any{"url": public.URL, "events": []any{"tag.created", "tag.updated", "tag.deleted"}})
	e.createHook(t, map[string]any{"url": everything.URL, "include_private": true, "events": []any{"tag.created"}})
	e.do(t, "POST", "/tags", map[string]any{"name": "Secret", "is_private": true})
	tag := e.do(t, "POST", "/tags", map[string]any{"name": "Villain", "colour": "red"})
	id := int64(tag["id"].(float64))
	e.do(t, "PATCH", fmt.Sprintf("/tags/%d", id), map[string]any{"name": "Villains"})
	e.do(t, "DELETE", fmt.Sprintf("/tags/%d", id), nil)
	got, all := public.wait(t, 3), everything.wait(t, 2)
	if fmt.Sprint(events(got)) != "[tag.created tag.updated tag.deleted]" {
		t.Fatalf("events = %v", events(got))
	}
	data := got[0].event["data"].(map[string]any)
	if data["kind"] != "tag" || data["name"] != "Villain" || data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d/tags/%d", e.Campaign, id) {
		t.Errorf("tag.created data = %v", data)
	}
	if len(all) != 2 {
		t.Errorf("include_private: %v", events(all))
	}
}
