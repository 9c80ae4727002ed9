package domain_test

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/sanitize"
)

// fuzzEntities are the campaign's entities the HTML fuzz target mentions: a location, a
// calendar, one whose name is markup, and a private one whose name must never reach a member.
var fuzzEntities = map[int64]*domain.Entity{
	1: {ID: 1, CampaignID: 7, Type: "location", ChildID: 11, Name: "Port"},
	2: {ID: 2, CampaignID: 7, Type: "calendar", ChildID: 12, Name: "Reckoning"},
	3: {ID: 3, CampaignID: 7, Type: "location", ChildID: 13, Name: `<script>alert(1)</script>"'&`},
	4: {ID: 4, CampaignID: 7, Type: "location", ChildID: 14, Name: "Xylophone Den", IsPrivate: true},
}

const hiddenName = "Xylophone"

// mentionAttrs are the attributes RenderMentions writes (text cannot hold them: its quotes are
// escaped).
var mentionAttrs = regexp.MustCompile(` class="entity-mention(-unknown)?"( data-entity-type="[a-z_]+" data-entity-id="[0-9]+")?`)

// fuzzing reports whether the test binary runs a fuzz target's engine (`go test -fuzz`), not
// only its seed corpus: time bounds are asserted only then, never in `make test`.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// watchdog bounds one fuzz input's time when fuzzing: a panic on another goroutine ends the
// worker, and the fuzzer keeps the input that was running as a failure. Stop it when done.
func watchdog(size int) (stop func()) {
	if !fuzzing() {
		return func() {}
	}
	t := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("an input of %d bytes still runs after 10 s", size)) })
	return func() { t.Stop() }
}

// FuzzEntryHTML drives an entry through what the API does to it: sanitised on write (as
// readEntry does), mentions found and counted (the write's bound), then rendered as
// entry_parsed for a member and for an admin. Properties: nothing panics; the output is
// sanitised (judged by a real HTML parser: no script or other active element, no event handler
// or style attribute, no javascript: or other non-web URL), so sanitising it again changes
// nothing; rendering is idempotent (a rendered entry holds no mention left to render); every
// mention becomes exactly one link or "Unknown" marker; a private entity's name never reaches a
// member; the output is at most a bounded multiple of the input, and (when fuzzing) its time is
// bounded.
func FuzzEntryHTML(f *testing.F) {
	for _, s := range []string{
		"see [location:1]", "x [location:1]", "[location:1]<p>..</p>", "<h1>t</h1>[location:1]", "a<br>[location:1]",
		"[location:1]", "<p>in [calendar:2|the year] and [location:4]</p>", "[location:3] [location:99] [x:1]",
	} {
		f.Add(s)
	}
	member := domain.Access{UserID: 5, CampaignID: 7, Role: domain.RoleMember}
	admin := domain.Access{UserID: 1, CampaignID: 7, Role: domain.RoleAdmin}
	f.Fuzz(func(t *testing.T, in string) {
		// The API refuses these with a 422 before sanitising (domain.Reader.String).
		if len(in) > domain.MaxEntryLength || !utf8.ValidString(in) || strings.ContainsRune(in, 0) {
			return
		}
		defer watchdog(len(in))()
		start := time.Now()
		stored := sanitize.HTML(in)
		mentions := domain.Mentions(stored)
		domain.MentionedIDs(stored)
		out := domain.RenderMentions(stored, fuzzEntities, member)
		adminOut := domain.RenderMentions(stored, fuzzEntities, admin)
		if d := time.Since(start); fuzzing() && d > 2*time.Second {
			t.Errorf("%d bytes took %v", len(in), d)
		}

		for _, o := range []string{stored, out, adminOut} {
			assertSanitised(t, o)
			// The mention markup's attributes are the renderer's own, which the policy drops
			// from what clients send; everything else is as the policy leaves it.
			o = mentionAttrs.ReplaceAllString(o, "")
			if again := sanitize.HTML(o); again != o {
				t.Errorf("sanitising the output again changes it:\n%q\n%q", o, again)
			}
		}
		if again := domain.RenderMentions(out, fuzzEntities, member); again != out && len(mentions) <= domain.MaxMentionLinks {
			t.Errorf("rendering is not idempotent:\n%q\n%q", out, again)
		}
		if n := countMentionNodes(out); n != min(len(mentions), domain.MaxMentionLinks) {
			t.Errorf("%d mentions became %d links and markers in %q", len(mentions), n, out)
		}
		if strings.Contains(out, hiddenName) && !strings.Contains(stored, hiddenName) {
			t.Errorf("the private entity's name reaches a member: %q", out)
		}
		// Each rendered mention is at most a link with the longest name; text escapes at most
		// triple (a no-break space as &nbsp;).
		if limit := 3*len(stored) + 300*min(len(mentions), domain.MaxMentionLinks); len(adminOut) > limit {
			t.Errorf("%d bytes with %d mentions rendered to %d bytes (limit %d)", len(stored), len(mentions), len(adminOut), limit)
		}
	})
}

// assertSanitised parses s as a browser would and fails on anything active: as a tree, and as
// tokens (the tree builder refuses more than 512 open elements, which a browser accepts).
func assertSanitised(t *testing.T, s string) {
	t.Helper()
	check := func(tag atom.Atom, name, namespace string, attrs []html.Attribute) {
		if activeElements[tag] || namespace != "" || (tag == 0 && (name == "svg" || name == "math")) {
			t.Errorf("element <%s> survives in %q", name, s)
		}
		for _, a := range attrs {
			key := strings.ToLower(a.Key)
			if strings.HasPrefix(key, "on") || key == "style" || key == "srcdoc" || key == "formaction" {
				t.Errorf("attribute %s survives in %q", a.Key, s)
			}
			if (key == "href" || key == "src" || key == "action" || key == "cite" || key == "poster") && !webURL(a.Val) {
				t.Errorf("URL %s=%q survives in %q", a.Key, a.Val, s)
			}
		}
	}
	z := html.NewTokenizer(strings.NewReader(s))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			tok := z.Token()
			check(tok.DataAtom, tok.Data, "", tok.Attr)
		}
	}
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return // too deep for the tree builder: the tokens were checked
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			check(n.DataAtom, n.Data, n.Namespace, n.Attr)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
}

var activeElements = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Form: true, atom.Input: true, atom.Button: true, atom.Base: true, atom.Meta: true, atom.Link: true,
	atom.Frame: true, atom.Frameset: true, atom.Svg: true, atom.Math: true, atom.Template: true, atom.Textarea: true,
	atom.Select: true, atom.Noscript: true, atom.Applet: true}

// webURL: a relative URL or one whose scheme is http, https or mailto, as a browser reads it
// (control characters and whitespace are ignored in a scheme).
func webURL(v string) bool {
	v = strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToLower(v))
	scheme, _, found := strings.Cut(v, ":")
	if !found || strings.ContainsAny(scheme, "/?#") {
		return true
	}
	return scheme == "http" || scheme == "https" || scheme == "mailto"
}

// countMentionNodes counts the links and "Unknown" markers rendered for mentions.
func countMentionNodes(s string) int {
	n := 0
	z := html.NewTokenizer(strings.NewReader(s))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt == html.StartTagToken {
			for _, a := range z.Token().Attr {
				if a.Key == "class" && (a.Val == "entity-mention" || a.Val == "entity-mention-unknown") {
					n++
				}
			}
		}
	}
	return n
}
