package entitynotes_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Mentions make entry_parsed far larger than the stored entry: a page of mention-heavy notes
// ends early under the byte budget instead of passing Lambda's 6 MB, and next continues it.
func TestMentionHeavyNotePagesStayUnderLambdasLimit(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	target := entity(t, e, e.Campaign, false)
	// The most mentions an entry may hold, in the largest entry: about 490 KB once rendered.
	mentions := strings.Repeat(fmt.Sprintf("[location:%d] ", target), domain.MaxMentionLinks)
	entry := "<p>" + mentions + strings.Repeat("filler ", (190_000-len(mentions))/7) + "</p>"
	const n = 15
	for i := 0; i < n; i++ {
		createNote(t, e, e.Campaign, eid, e.Admin, map[string]any{"name": "Heavy", "entry": entry})
	}
	seen := map[float64]bool{}
	pages := 0
	for next := notes(e.Campaign, eid); next != ""; pages++ {
		r := e.Do("GET", next, e.Member, nil)
		if r.Status != 200 {
			t.Fatalf("%d %.300s", r.Status, r.Raw)
		}
		if enc, _ := json.Marshal(string(r.Raw)); len(enc) > 6_000_000 {
			t.Fatalf("page %d is %d bytes in Lambda's answer", pages+1, len(enc))
		}
		for _, row := range r.List() {
			id := row.(map[string]any)["id"].(float64)
			if seen[id] {
				t.Fatalf("note %v twice", id)
			}
			seen[id] = true
		}
		next = ""
		if l, ok := r.Body["links"].(map[string]any)["next"].(string); ok {
			u, _ := url.Parse(l)
			next = u.RequestURI()
		}
	}
	if len(seen) != n || pages < 2 {
		t.Fatalf("read %d of %d notes in %d pages", len(seen), n, pages)
	}
}
