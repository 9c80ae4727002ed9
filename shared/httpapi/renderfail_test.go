package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestOneRowsRenderingFailureFailsNothingElse: when rendering one record's entry_parsed fails
// (here a renderer that panics on entries holding "boom"), every show, list and related=1 page
// holding it still answers 200: the other rows as usual, that row with its sanitised entry as
// entry_parsed, and one log line naming the record (campaign, kind, id) per failed row.
func TestOneRowsRenderingFailureFailsNothingElse(t *testing.T) {
	var logs logBuffer
	e := apitest.NewWith(t, families.Register, withLog(&logs))
	api := func(rest string) string { return apitest.Path(e.Campaign, rest) }
	must := func(r apitest.Response) map[string]any {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		return r.Data()
	}
	port := must(e.Do("POST", api("/locations"), e.Admin, map[string]any{"name": "Port"}))
	mention := fmt.Sprintf("<p>to [location:%v]</p>", port["entity_id"])
	good := must(e.Do("POST", api("/locations"), e.Member, map[string]any{"name": "Good", "entry": mention}))
	bad := must(e.Do("POST", api("/locations"), e.Member, map[string]any{"name": "Bad", "entry": "<p>boom [location:1]</p>"}))
	cal := must(e.Do("POST", api("/calendars"), e.Member, map[string]any{"name": "Bad cal", "entry": "<b>boom</b>",
		"month_name": []string{"A", "B"}, "month_length": []int{30, 30}, "weekday": []string{"X", "Y"}}))
	must(e.Do("POST", api(fmt.Sprintf("/entities/%v/entity_notes", good["entity_id"])), e.Member, map[string]any{"name": "n1", "entry": mention}))
	badNote := must(e.Do("POST", api(fmt.Sprintf("/entities/%v/entity_notes", good["entity_id"])), e.Member, map[string]any{"name": "n2", "entry": "boom <i>x</i>"}))
	calPost := must(e.Do("POST", api(fmt.Sprintf("/entities/%v/posts", cal["entity_id"])), e.Member, map[string]any{"name": "p", "entry": "boom"}))

	t.Cleanup(httpapi.SetRenderMentions(func(entry string, ents map[int64]*domain.Entity, a domain.Access) string {
		if strings.Contains(entry, "boom") {
			panic("deliberate: " + entry)
		}
		return domain.RenderMentions(entry, ents, a)
	}))
	logs.lines(t)
	link := fmt.Sprintf(`href="/api/1.0/campaigns/%d/locations/%v"`, e.Campaign, port["id"])
	key := func(kind string, rec map[string]any) string {
		return fmt.Sprintf("%d %s %v", e.Campaign, kind, rec["id"])
	}
	for _, c := range []struct {
		path string
		rows func(r apitest.Response) []any
		// failed are the records whose rendering fails, by key; the rest mention Port
		failed []string
	}{
		{"/locations?limit=100", apitest.Response.List, []string{key("location", bad)}},
		{fmt.Sprintf("/locations/%v", bad["id"]), one, []string{key("location", bad)}},
		{fmt.Sprintf("/locations/%v?related=1", good["id"]), func(r apitest.Response) []any { return append(one(r), r.Data()["posts"].([]any)...) },
			[]string{key("note", badNote)}},
		{"/locations?related=1&limit=100", apitest.Response.List, []string{key("location", bad), key("note", badNote)}},
		{"/calendars?related=1", apitest.Response.List, []string{key("calendar", cal), key("note", calPost)}},
		{fmt.Sprintf("/entities/%v/entity_notes", good["entity_id"]), apitest.Response.List, []string{key("note", badNote)}},
		{fmt.Sprintf("/entities/%v/posts/%v", good["entity_id"], badNote["id"]), one, []string{key("note", badNote)}},
	} {
		for _, who := range []string{e.Admin, e.Viewer} {
			r := e.Do("GET", api(c.path), who, nil)
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", c.path, r.Status, r.Raw)
			}
			for _, row := range c.rows(r) {
				m := row.(map[string]any)
				parsed, _ := m["entry_parsed"].(string)
				switch entry, _ := m["entry"].(string); {
				case strings.Contains(entry, "boom"):
					if parsed != entry {
						t.Errorf("%s: row %v answers entry_parsed %q, want its sanitised entry %q", c.path, m["name"], parsed, entry)
					}
				case strings.Contains(entry, "[location:"):
					if !strings.Contains(parsed, link) {
						t.Errorf("%s: row %v answers entry_parsed %q, want the link", c.path, m["name"], parsed)
					}
				}
			}
			var got []string
			for _, l := range logs.lines(t) {
				if l["msg"] == "entry_parsed failed" {
					got = append(got, fmt.Sprintf("%v %v %v", l["campaign_id"], l["kind"], l["id"]))
					if l["level"] != "ERROR" || !strings.Contains(fmt.Sprint(l["error"]), "deliberate") {
						t.Errorf("%s: log line %v", c.path, l)
					}
				}
			}
			slices.Sort(got)
			if want := slices.Sorted(slices.Values(c.failed)); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: logged failures %v, want %v", c.path, got, want)
			}
		}
	}
}

func one(r apitest.Response) []any { return []any{r.Data()} }
