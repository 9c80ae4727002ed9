package domain

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/sanitize"
)

// Attribute is one typed name/value row of an entity (Kanka's attributes). All of an entity's
// attributes are stored together (the store's attribute pack), so they are bounded together.
type Attribute struct {
	Meta
	EntityID     int64
	Name         string
	Value        *string // sanitised HTML; nil for none (Kanka stores "" as null)
	TypeID       int     // AttributeStandard..AttributeList
	IsPrivate    bool
	IsPinned     bool
	DefaultOrder int64
	APIKey       *string
}

// Kanka's attribute types (AttributeType enum), by type_id; 2022 stored the string instead.
const (
	AttributeStandard = 1
	AttributeList     = 7
)

// attributeTypeNames are the 2022 `type` strings, by type_id ("" is the standard type).
var attributeTypeNames = []string{"", "", "block", "checkbox", "section", "random", "number", "list"}

// AttributeTypeName is the 2022 `type` of type_id, nil for the standard type.
func AttributeTypeName(typeID int) *string {
	if typeID <= AttributeStandard || typeID > AttributeList {
		return nil
	}
	s := attributeTypeNames[typeID]
	return &s
}

// Limits of an entity's attributes (round3 4.1; Kanka has none): a 422 naming the field beyond.
const (
	MaxAttributes        = 250
	MaxAttributeValue    = 65_536 // characters of one value
	MaxAttributeAPIKey   = 20
	MaxAttributeBytes    = 300 * 1024
	attributeOverheadLen = 200 // the stored bytes of one attribute besides its texts
)

// Clone copies a; Apply replaces its pointers rather than writing through them.
func (a *Attribute) Clone() *Attribute { c := *a; return &c }

// Apply merges the sent fields into a and validates the result. The entity comes from the path.
func (a *Attribute) Apply(in Input) error {
	r := NewReader(in)
	a.read(r, "", false)
	return r.Err()
}

// read merges one attribute's fields, their names prefixed (for a bulk row: "attribute.3.");
// bulk rows leave unsent flags false, as Kanka's bulk service does.
func (a *Attribute) read(r *Reader, prefix string, bulk bool) {
	if f := r.String(prefix+"name", MaxNameLength); f.Set {
		a.Name = strings.TrimSpace(f.Value)
	}
	if f := r.String(prefix+"value", MaxAttributeValue); f.Set && !r.Errs.Has(prefix+"value") {
		a.Value = nil
		if clean := sanitize.HTML(f.Value); f.Present() && clean != "" {
			a.Value = &clean
		}
	}
	readAttributeType(r, prefix, a)
	for _, flag := range []struct {
		names []string
		dst   *bool
	}{{[]string{"is_private"}, &a.IsPrivate}, {[]string{"is_pinned", "is_star"}, &a.IsPinned}} {
		sent := false
		for _, n := range flag.names {
			if f := r.Bool(prefix + n); f.Set {
				*flag.dst, sent = f.Value, true
				break
			}
		}
		if bulk && !sent {
			*flag.dst = false
		}
	}
	if f := r.Int(prefix+"default_order", -1<<31, 1<<31-1); f.Set {
		a.DefaultOrder = f.Value
	}
	if f := r.String(prefix+"api_key", MaxAttributeAPIKey); f.Set && !r.Errs.Has(prefix+"api_key") {
		a.APIKey = nil
		if f.Present() && f.Value != "" {
			k := f.Value
			a.APIKey = &k
		}
	}
	if a.TypeID == 0 {
		a.TypeID = AttributeStandard
	}
	r.Required(prefix+"name", a.Name != "")
}

// readAttributeType reads type_id (1..7) or the 2022 `type` string.
func readAttributeType(r *Reader, prefix string, a *Attribute) {
	if r.Has(prefix + "type_id") {
		if f := r.Int(prefix+"type_id", AttributeStandard, AttributeList); f.Present() {
			a.TypeID = int(f.Value)
		} else if f.Null {
			a.TypeID = AttributeStandard
		}
		return
	}
	f := r.String(prefix+"type", 20)
	if !f.Set || r.Errs.Has(prefix+"type") {
		return
	}
	name := strings.ToLower(strings.TrimSpace(f.Value))
	switch name {
	case "", "text", "standard":
		a.TypeID = AttributeStandard
		return
	}
	for id, n := range attributeTypeNames {
		if id > AttributeStandard && n == name {
			a.TypeID = id
			return
		}
	}
	r.Fail(prefix+"type", "The selected :attribute is invalid.")
}

// Size is about the bytes a stores: what the pack's limit counts.
func (a *Attribute) Size() int {
	n := attributeOverheadLen + len(a.Name)
	if a.Value != nil {
		n += len(*a.Value)
	}
	if a.APIKey != nil {
		n += len(*a.APIKey)
	}
	return n
}

// CheckAttributes applies the limits of an entity's attributes to all of them (after a write):
// field names the field a 422 blames (value for one attribute, attribute for a bulk body).
func CheckAttributes(all []Attribute, field string) error {
	var errs Reader
	if len(all) > MaxAttributes {
		errs.Fail(field, "An entity may have at most "+strconv.Itoa(MaxAttributes)+" attributes.")
		return errs.Err()
	}
	size := 0
	for i := range all {
		size += all[i].Size()
	}
	if size > MaxAttributeBytes {
		errs.Fail(field, "All of an entity's attributes may hold at most "+strconv.Itoa(MaxAttributeBytes)+" bytes.")
	}
	return errs.Err()
}

// BulkRow is one row of a bulk attribute write: the attribute it updates (ID set) or creates.
type BulkRow struct {
	ID        int64
	Attribute Attribute
	// Fields are the row's sent keys, read over the existing attribute for an update.
	Fields Input
}

// ReadBulk reads Kanka's bulk body {"attribute": [rows]} (PUT, PATCH). Malformed rows are a 422
// naming attribute.N.field (Kanka skips some silently: round3 2). A new row without type_id is
// a standard attribute in both, as a create's (Kanka's column default; DESIGN 12).
func ReadBulk(in Input) ([]BulkRow, error) {
	r := NewReader(in)
	items, f := r.List("attribute", MaxAttributes)
	if !f.Present() {
		if !r.Errs.Has("attribute") {
			r.Required("attribute", false)
		}
		return nil, r.Err()
	}
	rows := make([]BulkRow, 0, len(items))
	for i, raw := range items {
		prefix := "attribute." + strconv.Itoa(i) + "."
		obj, ok := raw.(map[string]any)
		if !ok {
			r.Fail("attribute."+strconv.Itoa(i), "The :attribute must be an object.")
			continue
		}
		row := BulkRow{Fields: Input(obj)}
		sub := NewReader(prefixed(obj, prefix))
		if sub.Has(prefix + "id") {
			if id := sub.ID(prefix + "id"); id.Present() {
				row.ID = id.Value
			}
		}
		// A row without a name is skipped, as Kanka, rather than refused (an update keeps its name).
		if strings.TrimSpace(str(obj["name"])) == "" {
			if row.ID == 0 {
				continue
			}
			sub.in[prefix+"name"] = "-" // read as named; ApplyBulk keeps the stored name
			row.Attribute.read(sub, prefix, true)
			row.Attribute.Name = ""
		} else {
			row.Attribute.read(sub, prefix, true)
		}
		for _, field := range sub.Errs.Fields() {
			for _, m := range sub.Errs.Messages(field) {
				r.Errs.Add(field, m)
			}
		}
		rows = append(rows, row)
	}
	return rows, r.Err()
}

func prefixed(obj map[string]any, prefix string) Input {
	out := make(Input, len(obj))
	for k, v := range obj {
		out[prefix+k] = v
	}
	return out
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// ApplyBulk merges rows into existing (the entity's attributes, in id order) as Kanka's bulk
// service does: a row with the id of an existing attribute updates it; a row with an empty
// name, or a name another attribute already has, is skipped; any other creates one (newID
// gives its id). default_order becomes the row's position among the saved rows. PUT (replace)
// then drops every attribute no row saved. The result is in id order.
func ApplyBulk(existing []Attribute, rows []BulkRow, replace bool, newID func() int64, stamp func(*Attribute, *Attribute)) ([]Attribute, bool, error) {
	byID := map[int64]int{}
	names := map[string]int64{}
	for i, a := range existing {
		byID[a.ID] = i
		names[strings.ToLower(a.Name)] = a.ID
	}
	saved := map[int64]bool{}
	out := append([]Attribute{}, existing...)
	changed := false
	order := int64(0)
	var errs Reader
	for i, row := range rows {
		next := row.Attribute
		if row.ID != 0 {
			at, ok := byID[row.ID]
			if !ok {
				errs.Fail("attribute."+strconv.Itoa(i)+".id", "The selected :attribute is invalid.")
				continue
			}
			prev := out[at]
			next.Meta, next.EntityID = prev.Meta, prev.EntityID
			if next.Name == "" {
				next.Name = prev.Name
			}
			if owner, taken := names[strings.ToLower(next.Name)]; taken && owner != prev.ID {
				continue
			}
			next.DefaultOrder = order
			order++
			saved[prev.ID] = true
			if !sameAttribute(prev, next) {
				stamp(&prev, &next)
				delete(names, strings.ToLower(prev.Name))
				names[strings.ToLower(next.Name)] = next.ID
				out[at], changed = next, true
			}
			continue
		}
		if next.Name == "" {
			continue
		}
		if _, taken := names[strings.ToLower(next.Name)]; taken {
			continue
		}
		next.ID = newID()
		next.DefaultOrder = order
		order++
		stamp(nil, &next)
		names[strings.ToLower(next.Name)] = next.ID
		byID[next.ID] = len(out)
		saved[next.ID] = true
		out, changed = append(out, next), true
	}
	if err := errs.Err(); err != nil {
		return nil, false, err
	}
	if replace {
		kept := out[:0:0]
		for _, a := range out {
			if saved[a.ID] {
				kept = append(kept, a)
			} else {
				changed = true
			}
		}
		out = kept
	}
	return out, changed, CheckAttributes(out, "attribute")
}

func sameAttribute(a, b Attribute) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Name == b.Name && eq(a.Value, b.Value) && a.TypeID == b.TypeID && a.IsPrivate == b.IsPrivate &&
		a.IsPinned == b.IsPinned && a.DefaultOrder == b.DefaultOrder && eq(a.APIKey, b.APIKey)
}

// VisibleAttributes are the attributes the caller may see: private ones are for admins.
func (a Access) VisibleAttributes(all []Attribute) []Attribute {
	if a.IsAdmin() {
		return all
	}
	out := make([]Attribute, 0, len(all))
	for _, at := range all {
		if !at.IsPrivate {
			out = append(out, at)
		}
	}
	return out
}

// AttributeSet is all of an entity's attributes as stored together: the attributes (id order),
// the version they were read at (0: none yet), and the deletions kept for `?deleted=1`.
type AttributeSet struct {
	Items   []Attribute
	Version int64
	Gone    []AttributeGone
}

// AttributeGone is a deleted attribute (kept GoneHistory, at most MaxAttributeGone).
type AttributeGone struct {
	ID        int64
	IsPrivate bool
	DeletedAt time.Time
}

// MaxAttributeGone bounds the deletions an entity's attributes keep (the most recent).
const MaxAttributeGone = 1000
