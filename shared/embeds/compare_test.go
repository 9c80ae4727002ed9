package embeds_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// mixedWorld is a public campaign of 110 locations (entity ids across a related bucket's
// boundary) in a tree with private branches; on a spread of them, notes of every visibility by
// an admin and a member, events private and not, relations to public and private entities,
// attributes; and a calendar with its own notes and events.
func mixedWorld(t *testing.T) (*apitest.Env, int64) {
	e := apitest.New(t, families.Register)
	cid := e.PublicCampaign
	do := func(token, method, path string, body map[string]any) map[string]any {
		t.Helper()
		r := e.Do(method, apitest.Path(cid, path), token, body)
		if r.Status != 200 && r.Status != 201 {
			t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Raw)
		}
		return r.Data()
	}
	type loc struct{ id, eid int64 }
	var locs []loc
	for i := 0; i < 110; i++ {
		body := map[string]any{"name": fmt.Sprint("L", i), "is_private": i%7 == 3}
		if i > 0 && i%4 != 0 {
			body["parent_location_id"] = locs[(i-1)/2].id
		}
		d := do(e.Admin, "POST", "/locations", body)
		locs = append(locs, loc{int64(d["id"].(float64)), int64(d["entity_id"].(float64))})
	}
	cal := do(e.Admin, "POST", "/calendars", map[string]any{"name": "Reckoning", "month_name": []string{"One", "Two"},
		"month_length": []int{30, 30}, "weekday": []string{"A", "B"}})
	calID, calEntity := int64(cal["id"].(float64)), int64(cal["entity_id"].(float64))
	owners, private := []int64{calEntity}, map[int64]bool{}
	for _, i := range []int{0, 1, 2, 3, 5, 8, 13, 50, 97, 98, 99, 100, 101, 102, 109} {
		owners = append(owners, locs[i].eid)
		private[locs[i].eid] = i%7 == 3
	}
	for n, eid := range owners {
		for _, v := range []string{"all", "member", "admin", "self", "self-admin"} {
			for _, who := range []string{e.Admin, e.Member} {
				if who == e.Member && (v == "admin" || private[eid]) {
					continue
				}
				do(who, "POST", fmt.Sprintf("/entities/%d/entity_notes", eid), map[string]any{"name": "Note " + v, "visibility": v,
					"entry": fmt.Sprintf("<p>See [location:%d]</p>", locs[(n*5)%len(locs)].eid)})
			}
			do(e.Admin, "POST", fmt.Sprintf("/entities/%d/entity_events", eid), map[string]any{"name": "Event " + v, "visibility": v,
				"is_private": n%2 == 0, "calendar_id": calID, "day": 1 + n, "month": 1, "year": 3, "length": 1})
		}
		do(e.Admin, "POST", fmt.Sprintf("/entities/%d/relations", eid), map[string]any{"target_id": locs[(n*3)%len(locs)].eid, "relation": "near"})
		do(e.Admin, "POST", fmt.Sprintf("/entities/%d/attributes", eid), map[string]any{"name": "Size", "value": "3", "is_private": n%3 == 0})
	}
	return e, calID
}

// TestRelatedBucketsAnswerAsTheRanges holds related=1 (read from the related buckets, filtered
// in memory) to the audience ranges every reader's lists read: for every kind of reader, each
// row's posts and entity_events are exactly the entity's notes and events lists, object for
// object. (Before the ranges' read of related=1 was deleted, this test compared the two reads'
// whole answers byte for byte, on the same world.)
func TestRelatedBucketsAnswerAsTheRanges(t *testing.T) {
	t.Parallel()
	e, calID := mixedWorld(t)
	paths := []string{"/locations?related=1&limit=100", "/locations?related=1&limit=45&page=2", "/locations?related=1&limit=10&page=10",
		"/locations/1?related=1", "/locations/101?related=1", fmt.Sprintf("/calendars/%d?related=1", calID), "/calendars?related=1"}
	for _, c := range []struct{ name, token string }{{"admin", e.Admin}, {"member", e.Member}, {"viewer", e.Viewer}, {"public reader", e.Outsider}} {
		// The readers only read the world: they run at once.
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			compareRelated(t, e.For(t), c.token, paths)
		})
	}
}

// compareRelated checks, for one reader (token), every row of paths' related=1 answers against
// the entity's own notes and events lists.
func compareRelated(t *testing.T, e *apitest.Env, token string, paths []string) {
	seen := map[string]int{}
	for _, p := range paths {
		r := e.Do("GET", apitest.Path(e.PublicCampaign, p), token, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", p, r.Status, r.Raw)
		}
		rows := []any{r.Body["data"]}
		if list, ok := r.Body["data"].([]any); ok {
			rows = list
		}
		for _, row := range rows {
			row := row.(map[string]any)
			eid := int64(row["entity_id"].(float64))
			for _, k := range []struct{ field, route string }{{"entity_notes", "entity_notes"}, {"entity_events", "entity_events"}} {
				list := e.Do("GET", apitest.Path(e.PublicCampaign, fmt.Sprintf("/entities/%d/%s?limit=100", eid, k.route)), token, nil)
				if list.Status != 200 {
					t.Fatalf("%s of %d: %d", k.route, eid, list.Status)
				}
				want, _ := json.Marshal(list.Body["data"])
				got, _ := json.Marshal(row[k.field])
				if string(got) != string(want) {
					t.Errorf("%s: %s of entity %d:\n%s\nits list answers\n%s", p, k.field, eid, got, want)
				}
				seen[k.field] += len(row[k.field].([]any))
			}
			seen["relations"] += len(row["relations"].([]any))
			seen["attributes"] += len(row["attributes"].([]any))
			if ch, ok := row["children"].([]any); ok {
				seen["children"] += len(ch)
			}
		}
	}
	for _, k := range []string{"entity_notes", "entity_events", "relations", "attributes", "children"} {
		if seen[k] == 0 {
			t.Errorf("no answer has %s: the comparison proves nothing", k)
		}
	}
}
