package markdown_test

import (
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/markdown"
)

func TestMarkdownBothWaysKeepsMentions(t *testing.T) {
	cases := []struct{ md, html string }{
		{"Met [character:12] at [location:3|the Keep].", "<p>Met [character:12] at [location:3|the Keep].</p>"},
		{"# Title\n\n- **a**\n- _b_", "<h1>Title</h1>\n<ul>\n<li><strong>a</strong></li>\n<li><em>b</em></li>\n</ul>"},
		{"a_b and [note:1]_x", "<p>a_b and [note:1]_x</p>"},
	}
	for _, c := range cases {
		h, err := markdown.ToHTML(c.md)
		if err != nil || h != c.html {
			t.Errorf("ToHTML(%q) = %q %v, want %q", c.md, h, err, c.html)
		}
		back, err := markdown.FromHTML(h)
		if err != nil || !strings.Contains(back, "[") && strings.Contains(c.md, "[") {
			t.Errorf("FromHTML(%q) = %q %v", h, back, err)
		}
		for _, m := range []string{"[character:12]", "[location:3|the Keep]", "[note:1]"} {
			if strings.Contains(c.md, m) && !strings.Contains(back, m) {
				t.Errorf("FromHTML(%q) = %q: lost %s", h, back, m)
			}
		}
	}
	// A text that already holds the placeholder's letters keeps them.
	if got, _ := markdown.FromHTML("<p>LKMENTION0Z [character:1]</p>"); got != "LKMENTION0Z [character:1]" {
		t.Errorf("placeholder clash: %q", got)
	}
	if got, _ := markdown.FromHTML(""); got != "" {
		t.Errorf("empty: %q", got)
	}
}
