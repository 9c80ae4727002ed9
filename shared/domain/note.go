package domain

import (
	"regexp"
	"strconv"
	"strings"
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

// Mention is a reference to an entity in an entry: [type:id] or [type:id|text].
type Mention struct {
	Start, End int // byte offsets of the whole mention in the entry
	Type       string
	EntityID   int64
	Text       string // "" when the entity's name is to be shown
}

var mentionPattern = regexp.MustCompile(`\[([a-z_]+):(\d{1,15})(?:\|([^\]\[]{1,191}))?\]`)

// Mentions finds the entity mentions of an entry, in order.
func Mentions(entry string) []Mention {
	var out []Mention
	for _, m := range mentionPattern.FindAllStringSubmatchIndex(entry, -1) {
		id, err := strconv.ParseInt(entry[m[4]:m[5]], 10, 64)
		if err != nil || id < 1 || id > MaxID {
			continue
		}
		mt := Mention{Start: m[0], End: m[1], Type: entry[m[2]:m[3]], EntityID: id}
		if m[6] >= 0 {
			mt.Text = entry[m[6]:m[7]]
		}
		out = append(out, mt)
	}
	return out
}
