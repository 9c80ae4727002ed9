package mcp_test

import (
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// The REST API reads and answers entries as Markdown with ?entry_format=markdown, on every
// route (the shared HTTP layer does it), sanitised exactly as HTML entries are.
func TestRESTEntryFormatMarkdown(t *testing.T) {
	e := newEnv(t)
	cid := e.Campaign
	md := "Sworn to [character:1|the captain].\n\n[x](javascript:alert(1)) <b onclick=\"x()\">bold</b>\n\n<script>alert(1)</script>"
	r := e.Do("POST", apitest.Path(cid, "/characters?entry_format=markdown"), e.Admin, map[string]any{"name": "Bo", "entry": md})
	if r.Status != 200 {
		t.Fatalf("create: %d %v", r.Status, r.Body)
	}
	cid2 := r.Data()["id"].(float64)
	html := e.Do("GET", apitest.Path(cid, "/characters/"+itoa(int64(cid2))), e.Admin, nil).Data()["entry"].(string)
	for _, bad := range []string{"<script", `href="javascript`, "onclick"} {
		if strings.Contains(html, bad) {
			t.Errorf("stored entry %q keeps %s", html, bad)
		}
	}
	if !strings.Contains(html, "<p>Sworn to [character:1|the captain].</p>") || !strings.Contains(html, "<b>bold</b>") {
		t.Errorf("stored entry %q", html)
	}
	back := e.Do("GET", apitest.Path(cid, "/characters/"+itoa(int64(cid2))+"?entry_format=markdown"), e.Admin, nil).Data()
	if got := back["entry"].(string); !strings.HasPrefix(got, "Sworn to [character:1|the captain].") || strings.Contains(got, "<") {
		t.Errorf("entry as Markdown: %q", got)
	}
	list := e.Do("GET", apitest.Path(cid, "/characters?entry_format=markdown"), e.Admin, nil).List()
	if len(list) != 1 || strings.Contains(list[0].(map[string]any)["entry"].(string), "<p>") {
		t.Errorf("list as Markdown: %v", list)
	}
	// A post through the same layer.
	eid := int64(r.Data()["entity_id"].(float64))
	p := e.Do("POST", apitest.Path(cid, "/entities/"+itoa(eid)+"/posts?entry_format=markdown"), e.Admin, map[string]any{"name": "Recap", "entry": "**done**"})
	if p.Status != 200 || p.Data()["entry"] != "**done**" {
		t.Errorf("post: %d %v", p.Status, p.Data())
	}
	// html is the default; anything else is a 422 naming the parameter, nothing written.
	for _, q := range []string{"entry_format=rtf", "entry_format=MARKDOWN"} {
		bad := e.Do("POST", apitest.Path(cid, "/characters?"+q), e.Admin, map[string]any{"name": "Never"})
		if bad.Status != 422 || bad.Errors()["entry_format"] == nil {
			t.Errorf("%s: %d %v", q, bad.Status, bad.Body)
		}
	}
	if n := e.Do("GET", apitest.Path(cid, "/characters"), e.Admin, nil).Body["meta"].(map[string]any)["total"]; n != float64(1) {
		t.Errorf("characters: %v", n)
	}
}
