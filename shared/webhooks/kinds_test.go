package webhooks_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"

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

// A calendar's weather is announced (calendar_weather.created...), its path and calendar_id
// naming its calendar, by its visibility: an admins' weather to include_private webhooks only.
func TestCalendarWeatherEvents(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	public, everything := newReceiver(t, nil), newReceiver(t, nil)
	e.createHook(t, map[string]any{"url": public.URL, "events": []any{"calendar_weather.created", "calendar_weather.deleted"}})
	e.createHook(t, map[string]any{"url": everything.URL, "include_private": true, "events": []any{"calendar_weather.created"}})
	cal := e.do(t, "POST", "/calendars", map[string]any{"name": "Reckoning", "month_name": []any{"A", "B"}, "month_length": []any{30, 30},
		"weekday": []any{"X", "Y"}, "current_year": 1, "current_month": 1, "current_day": 1})
	calID := int64(cal["id"].(float64))
	e.do(t, "POST", fmt.Sprintf("/calendars/%d/calendar_weather", calID), map[string]any{"weather": "Storm", "year": 1, "month": 1, "day": 2, "visibility_id": 2})
	w := e.do(t, "POST", fmt.Sprintf("/calendars/%d/calendar_weather", calID), map[string]any{"weather": "Rain", "year": 1, "month": 1, "day": 3})
	id := int64(w["id"].(float64))
	e.do(t, "DELETE", fmt.Sprintf("/calendars/%d/calendar_weather/%d", calID, id), nil)
	got, all := public.wait(t, 2), everything.wait(t, 2)
	if fmt.Sprint(events(got)) != "[calendar_weather.created calendar_weather.deleted]" {
		t.Fatalf("events = %v", events(got))
	}
	data := got[0].event["data"].(map[string]any)
	if data["kind"] != "calendar_weather" || data["name"] != "Rain" || data["calendar_id"] != float64(calID) ||
		data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d/calendars/%d/calendar_weather/%d", e.Campaign, calID, id) {
		t.Errorf("calendar_weather.created data = %v", data)
	}
	if len(all) != 2 {
		t.Errorf("include_private: %v", events(all))
	}
}

// An entity's image set or removed (Kanka's entities/{id}/image) is its record's update: the
// record's `.updated` event, whatever its kind.
func TestImageChangesAreRecordUpdates(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	rc := newReceiver(t, nil)
	e.createHook(t, map[string]any{"url": rc.URL, "events": []any{"location.updated", "character.updated"}})
	for _, path := range []string{"/locations", "/characters"} {
		rec := e.do(t, "POST", path, map[string]any{"name": "Pictured"})
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		f, _ := w.CreateFormFile("image", "p.png")
		_, _ = f.Write(imagetest.PNG(16, 16))
		_ = w.Close()
		img := apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/image", int64(rec["entity_id"].(float64))))
		if r := e.DoRaw("POST", img, e.Admin, w.FormDataContentType(), &buf); r.Status != 200 {
			t.Fatalf("upload: %d %s", r.Status, r.Raw)
		}
		if r := e.Do("DELETE", img, e.Admin, nil); r.Status != 200 {
			t.Fatalf("remove: %d %s", r.Status, r.Raw)
		}
	}
	if got := events(rc.wait(t, 4)); fmt.Sprint(got) != "[location.updated location.updated character.updated character.updated]" {
		t.Fatalf("events = %v", got)
	}
}

// Relations are announced (relation.created, .updated, .deleted, their path under their
// owner's entity), one with a private end to include_private webhooks only.
func TestRelationEvents(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	public, everything := newReceiver(t, nil), newReceiver(t, nil)
	e.createHook(t, map[string]any{"url": public.URL, "events": []any{"relation.created", "relation.updated", "relation.deleted"}})
	e.createHook(t, map[string]any{"url": everything.URL, "include_private": true, "events": []any{"relation.created"}})
	a := e.do(t, "POST", "/characters", map[string]any{"name": "A"})
	b := e.do(t, "POST", "/characters", map[string]any{"name": "B"})
	hidden := e.do(t, "POST", "/characters", map[string]any{"name": "Hidden", "is_private": true})
	owner := int64(a["entity_id"].(float64))
	e.do(t, "POST", fmt.Sprintf("/entities/%d/relations", owner), map[string]any{"owner_id": owner, "target_id": hidden["entity_id"], "relation": "Spy"})
	rel := e.do(t, "POST", fmt.Sprintf("/entities/%d/relations", owner), map[string]any{"owner_id": owner, "target_id": b["entity_id"], "relation": "Friend"})
	id := int64(rel["id"].(float64))
	e.do(t, "PATCH", fmt.Sprintf("/entities/%d/relations/%d", owner, id), map[string]any{"relation": "Best friend"})
	e.do(t, "DELETE", fmt.Sprintf("/entities/%d/relations/%d", owner, id), nil)
	got, all := public.wait(t, 3), everything.wait(t, 2)
	if fmt.Sprint(events(got)) != "[relation.created relation.updated relation.deleted]" {
		t.Fatalf("events = %v", events(got))
	}
	data := got[0].event["data"].(map[string]any)
	if data["kind"] != "relation" || data["name"] != "Friend" || data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d/entities/%d/relations/%d", e.Campaign, owner, id) {
		t.Errorf("relation.created data = %v", data)
	}
	if len(all) != 2 {
		t.Errorf("include_private: %v", events(all))
	}
}

// An entity's attributes are announced one by one (attribute.created, .updated, .deleted,
// their path under their entity), a private one to include_private webhooks only.
func TestAttributeEvents(t *testing.T) {
	e := newEnv(t, webhooks.Settings{})
	public, everything := newReceiver(t, nil), newReceiver(t, nil)
	e.createHook(t, map[string]any{"url": public.URL, "events": []any{"attribute.created", "attribute.updated", "attribute.deleted"}})
	e.createHook(t, map[string]any{"url": everything.URL, "include_private": true, "events": []any{"attribute.created"}})
	c := e.do(t, "POST", "/characters", map[string]any{"name": "Hero"})
	eid := int64(c["entity_id"].(float64))
	e.do(t, "POST", fmt.Sprintf("/entities/%d/attributes", eid), map[string]any{"name": "Secret", "value": "x", "is_private": true})
	a := e.do(t, "POST", fmt.Sprintf("/entities/%d/attributes", eid), map[string]any{"name": "Strength", "value": "18"})
	id := int64(a["id"].(float64))
	e.do(t, "PATCH", fmt.Sprintf("/entities/%d/attributes/%d", eid, id), map[string]any{"value": "19"})
	e.do(t, "DELETE", fmt.Sprintf("/entities/%d/attributes/%d", eid, id), nil)
	got, all := public.wait(t, 3), everything.wait(t, 2)
	if fmt.Sprint(events(got)) != "[attribute.created attribute.updated attribute.deleted]" {
		t.Fatalf("events = %v", events(got))
	}
	data := got[0].event["data"].(map[string]any)
	if data["kind"] != "attribute" || data["name"] != "Strength" || data["path"] != fmt.Sprintf("/api/1.0/campaigns/%d/entities/%d/attributes/%d", e.Campaign, eid, id) {
		t.Errorf("attribute.created data = %v", data)
	}
	if len(all) != 2 {
		t.Errorf("include_private: %v", events(all))
	}
}
