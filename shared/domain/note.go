package domain

import (
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Note is an entity note: HTML text attached to an entity, optionally pinned in a position.
type Note struct {
	Meta
	EntityID   int64
	Name       string
	Entry      string // sanitised HTML
	Position   *int64
	Visibility Visibility
	// Collapsed is Kanka's settings.collapsed: a pinned note starts collapsed.
	Collapsed bool
}

// Clone copies n; Apply replaces its pointers rather than writing through them.
func (n *Note) Clone() *Note { c := *n; return &c }

// Apply merges the sent fields into n and validates the result. The entity comes from the path.
func (n *Note) Apply(in Input) error {
	r := NewReader(in)
	if f := r.String("name", MaxNameLength); f.Set {
		n.Name = strings.TrimSpace(f.Value)
	}
	if f := readEntry(r); f.Set {
		n.Entry = f.Value
	}
	if f := r.Int("position", -1<<31, 1<<31-1); f.Set && !r.Errs.Has("position") {
		n.Position = nil
		if f.Present() {
			p := f.Value
			n.Position = &p
		}
	}
	if v, ok := readVisibility(r); ok {
		n.Visibility = v
	}
	if f := readSettings(r); f.Set {
		n.Collapsed = f.Value
	}
	if n.Visibility == "" {
		n.Visibility = VisibilityAll
	}
	r.Required("name", n.Name != "")
	return r.Err()
}

// readVisibility reads `visibility` (any spelling ParseVisibility knows) or Kanka's
// `visibility_id`; an unknown value is a 422, null means the default.
func readVisibility(r *Reader) (Visibility, bool) {
	name := "visibility"
	if !r.Has(name) && r.Has("visibility_id") {
		name = "visibility_id"
	}
	v, set, null := r.raw(name)
	if !set {
		return "", false
	}
	if null {
		return VisibilityAll, true
	}
	var s string
	switch x := v.(type) {
	case string:
		s = strings.ToLower(strings.TrimSpace(x))
	default:
		if n, ok := toInt(x); ok {
			s = strconv.FormatInt(n, 10)
		}
	}
	vis, ok := ParseVisibility(s)
	if !ok {
		r.fail(name, "The selected :attribute is invalid.")
		return "", false
	}
	return vis, true
}

// readSettings reads Kanka's settings object; only `collapsed` (0/1) means anything. Kanka sends
// an empty array for no settings.
func readSettings(r *Reader) Field[bool] {
	v, set, null := r.raw("settings")
	if !set || null {
		return Field[bool]{Set: set, Null: null}
	}
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return Field[bool]{Set: true}
		}
	case map[string]any:
		sub := NewReader(Input(x))
		c := sub.Bool("collapsed")
		if !sub.Errs.Empty() {
			r.fail("settings.collapsed", "The settings.collapsed field must be true or false.")
			return Field[bool]{}
		}
		return Field[bool]{Set: true, Value: c.Value}
	}
	r.fail("settings", "The :attribute must be an object.")
	return Field[bool]{}
}

// Mention is a reference to an entity in an entry's text: [type:id] or [type:id|text].
type Mention struct {
	Type     string
	EntityID int64
	Text     string // "" when the entity's name is to be shown; unescaped text otherwise
}

// MaxMentions bounds the distinct entities one entry may mention (a 422 beyond), so that
// resolving a note's mentions is one batched read of at most MaxMentions small items.
const MaxMentions = 50

// MaxMentionLinks bounds the mentions one entry may hold (a 422 beyond) and the ones rendered
// (an entry stored before the bound renders its first MaxMentionLinks; the rest stay text), so
// that entry_parsed is at most about 300 bytes per mention longer than the entry: a 12-byte
// mention becomes a link of up to about 300 bytes (the entity's name is up to 191).
const MaxMentionLinks = 1000

var mentionPattern = regexp.MustCompile(`\[([a-z_]+):(\d{1,15})(?:\|([^\]\[]{1,191}))?\]`)

// bodyContext parses entries as the content of a <body>.
var bodyContext = &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}

// mentionsIn finds the mentions of one text node's (unescaped) text, with their byte offsets.
func mentionsIn(text string) (out []Mention, at [][2]int) {
	for _, m := range mentionPattern.FindAllStringSubmatchIndex(text, -1) {
		id, err := strconv.ParseInt(text[m[4]:m[5]], 10, 64)
		if err != nil || id < 1 || id > MaxID {
			continue
		}
		mt := Mention{Type: text[m[2]:m[3]], EntityID: id}
		if m[6] >= 0 {
			mt.Text = text[m[6]:m[7]]
		}
		out, at = append(out, mt), append(at, [2]int{m[0], m[1]})
	}
	return out, at
}

// textNodes parses entry as an HTML fragment under a root element and calls fn for every text
// node a reader sees as text: not inside a link (a mention there would nest links) nor inside an
// element whose content is not rendered as markup (script, style, textarea, title, xmp, ...).
// Attributes are never text, so a mention can never land inside one. Every node, top-level text
// included, has a parent (the root), so fn may insert siblings before any text node.
func textNodes(entry string, fn func(*html.Node)) (*html.Node, error) {
	nodes, err := html.ParseFragment(strings.NewReader(entry), bodyContext)
	if err != nil {
		return nil, err
	}
	root := &html.Node{Type: html.ElementNode, Data: bodyContext.Data, DataAtom: bodyContext.DataAtom}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			fn(n)
			return
		case n.Type == html.ElementNode && (n.DataAtom == atom.A || notMarkup[n.DataAtom] || n.Namespace != ""):
			return
		}
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling // fn may replace c
			walk(c)
			c = next
		}
	}
	walk(root)
	return root, nil
}

// notMarkup are the HTML elements whose text is raw or escaped text rather than markup: a link
// rendered into one would show as its source (or, in noscript, as markup for some readers only).
var notMarkup = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Textarea: true, atom.Title: true,
	atom.Xmp: true, atom.Iframe: true, atom.Noembed: true, atom.Noframes: true, atom.Noscript: true,
	atom.Plaintext: true, atom.Template: true}

// Mentions finds the entity mentions in the text of an entry, in order.
func Mentions(entry string) []Mention {
	if !strings.Contains(entry, "[") {
		return nil
	}
	var out []Mention
	_, _ = textNodes(entry, func(n *html.Node) {
		ms, _ := mentionsIn(n.Data)
		out = append(out, ms...)
	})
	return out
}

// MentionedIDs returns the distinct entities mentioned in entry, in first-mention order.
func MentionedIDs(entry string) []int64 { return distinctIDs(Mentions(entry)) }

func distinctIDs(mentions []Mention) []int64 {
	var ids []int64
	seen := map[int64]bool{}
	for _, m := range mentions {
		if !seen[m.EntityID] {
			seen[m.EntityID] = true
			ids = append(ids, m.EntityID)
		}
	}
	return ids
}

// ReplaceMentions rewrites every mention in the text of entry (the first MaxMentionLinks) with
// the node replace returns and renders the result; markup and attributes stay as they were. An entry without mentions
// comes back unchanged.
func ReplaceMentions(entry string, replace func(Mention) *html.Node) string {
	if !strings.Contains(entry, "[") {
		return entry
	}
	changed, links := false, 0
	root, err := textNodes(entry, func(n *html.Node) {
		ms, at := mentionsIn(n.Data)
		if len(ms) == 0 {
			return
		}
		ms = ms[:min(len(ms), MaxMentionLinks-links)]
		if len(ms) == 0 {
			return
		}
		changed, links = true, links+len(ms)
		text, last := n.Data, 0
		for i, m := range ms {
			if at[i][0] > last {
				n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: text[last:at[i][0]]}, n)
			}
			n.Parent.InsertBefore(replace(m), n)
			last = at[i][1]
		}
		n.Data = text[last:] // the tail stays in the original node
	})
	if err != nil || !changed {
		return entry
	}
	var b strings.Builder
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			return entry
		}
	}
	return b.String()
}
