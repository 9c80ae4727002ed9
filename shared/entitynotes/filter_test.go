package entitynotes_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func TestNoteListsTakeKankasFilters(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Old Lore"})
	createNote(t, e, e.Campaign, eid, e.Member, map[string]any{"name": "Lore of the Keep"})
	createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Secret Lore", "visibility": "admin"})
	cases := []struct {
		query, token, want string
	}{
		{"name=lore;!keep", e.Admin, "[Old Lore Secret Lore]"},
		{"name=old+lore!", e.Admin, "[Old Lore]"},
		{fmt.Sprintf("created_by=%d", e.MemberID), e.Admin, "[Lore of the Keep]"},
		{fmt.Sprintf("updated_by=%d", e.AdminID), e.Admin, "[Old Lore Secret Lore]"},
		{"name=secret", e.Member, "[]"},                                         // an admin-only note stays hidden from a filter
		{"type=x&tags[]=1", e.Admin, "[Old Lore Lore of the Keep Secret Lore]"}, // notes have neither: ignored
		{"is_private=0", e.Admin, "[Old Lore Lore of the Keep Secret Lore]"},    // notes are never private
		{"is_private=1", e.Admin, "[]"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r := e.Do("GET", notes(e.Campaign, eid)+"?"+c.query, c.token, nil)
			got := []string{}
			for _, it := range r.List() {
				got = append(got, it.(map[string]any)["name"].(string))
			}
			if r.Status != 200 || fmt.Sprint(got) != c.want || r.Body["meta"].(map[string]any)["total"] != float64(len(got)) {
				t.Fatalf("%d %v (%v), want %s", r.Status, got, r.Body["meta"], c.want)
			}
		})
	}
	if r := e.Do("GET", notes(e.Campaign, eid)+"?created_by=me", e.Admin, nil); r.Status != 422 || r.Errors()["created_by"] == nil {
		t.Fatalf("bad created_by: %d %s", r.Status, r.Raw)
	}
}
