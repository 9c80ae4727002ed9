package compat_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestImporterMapsOverTheRelatedArrays drives ?related=1 as the Foundry importer does: it pages
// locations and calendars with a raw `;` filter in the query, and maps over every embedded array
// of every record (a missing one crashed it).
func TestImporterMapsOverTheRelatedArrays(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	arrays := []string{"attributes", "posts", "entity_notes", "entity_events", "reminders", "relations", "inventory", "entity_abilities", "entity_assets"}
	byName := map[string]map[string]any{}
	for _, path := range []string{"locations?related=1&limit=2", "calendars?related=true&limit=1"} {
		next := fmt.Sprintf("campaigns/%d/%s", w.Campaign, path)
		for pages := 0; next != ""; pages++ {
			if pages > 10 {
				t.Fatal("next links never end")
			}
			r := w.get(t, w.Member, next)
			for _, it := range r.List() {
				m := it.(map[string]any)
				for _, k := range arrays {
					if _, ok := m[k].([]any); !ok {
						t.Errorf("%v: %s is %v, not an array", m["name"], k, m[k])
					}
				}
				byName[m["name"].(string)] = m
			}
			next, _ = r.Body["links"].(map[string]any)["next"].(string)
			if next != "" && strings.Count(next, "related=") != 1 {
				t.Fatalf("next link %s repeats related", next)
			}
		}
	}
	coast, deep := byName["Sword Coast"], byName["Waterdeep"]
	if coast == nil || deep == nil || byName["Undermountain"] != nil {
		t.Fatalf("imported %v", byName)
	}
	if fmt.Sprint(deep["parents"]) != fmt.Sprint([]any{coast["id"]}) || len(coast["children"].([]any)) != 5 || len(coast["parents"].([]any)) != 0 {
		t.Errorf("tree: Waterdeep parents %v, Sword Coast children %v", deep["parents"], coast["children"])
	}
	var posts []string
	for _, p := range deep["posts"].([]any) {
		posts = append(posts, p.(map[string]any)["name"].(string))
	}
	if fmt.Sprint(posts) != "[History of Waterdeep]" || len(deep["reminders"].([]any)) != 1 || deep["reminders"].([]any)[0].(map[string]any)["remindable_id"] != deep["entity_id"] {
		t.Errorf("Waterdeep posts %v, reminders %v", posts, deep["reminders"])
	}
	if _, ok := byName["Calendar of Harptos"]["parents"]; ok {
		t.Error("a calendar has no location tree")
	}
	// Kanka's filter language with a raw `;`, as a client writes it.
	r := w.get(t, w.Member, fmt.Sprintf("campaigns/%d/locations?name=a;!keep&fields=name", w.Campaign))
	var got []string
	for _, it := range r.List() {
		got = append(got, it.(map[string]any)["name"].(string))
	}
	if fmt.Sprint(got) != "[Sword Coast Waterdeep Baldur's Gate Luskan]" || len(r.List()[0].(map[string]any)) != 1 {
		t.Errorf("name=a;!keep: %v", got)
	}
}
