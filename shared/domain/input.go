package domain

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// Input is a decoded write body: JSON values (json.Number for numbers) or, from forms, strings
// and []string. Unknown keys are simply never read.
type Input map[string]any

// Field is one optional input value: Set when the key was sent, Null when it was sent as null
// (or, from a form, as an empty string).
type Field[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// Present reports a sent, non-null value.
func (f Field[T]) Present() bool { return f.Set && !f.Null }

// Reader reads typed fields from an Input, collecting every failure with a Laravel-style message
// so that a 422 names all the failing fields at once.
type Reader struct {
	in   Input
	Errs apperr.FieldErrors
}

// NewReader starts reading in.
func NewReader(in Input) *Reader { return &Reader{in: in} }

// Err returns the collected validation error, or nil.
func (r *Reader) Err() error { return r.Errs.Err() }

// Has reports whether the key was sent.
func (r *Reader) Has(name string) bool { _, ok := r.in[name]; return ok }

// Label is how Laravel names a field in messages: underscores become spaces.
func Label(name string) string { return strings.ReplaceAll(name, "_", " ") }

// Fail records a message for field name (":attribute" is its label).
func (r *Reader) Fail(name, format string) {
	r.Errs.Add(name, strings.ReplaceAll(format, ":attribute", Label(name)))
}

func (r *Reader) raw(name string) (v any, set, null bool) {
	v, set = r.in[name]
	if !set {
		return nil, false, false
	}
	switch x := v.(type) {
	case nil:
		return nil, true, true
	case []string: // a form field sent without [] is a one-element list
		if len(x) == 1 {
			v = x[0]
		}
	}
	return v, true, false
}

// String reads a string of at most max characters (runes, as Kanka counts them; the body's 1 MiB
// bounds the bytes). Forms send "" for an empty field, which is null.
func (r *Reader) String(name string, max int) Field[string] {
	v, set, null := r.raw(name)
	if !set || null {
		return Field[string]{Set: set, Null: null}
	}
	s, ok := v.(string)
	if !ok {
		r.Fail(name, "The :attribute must be a string.")
		return Field[string]{Set: true}
	}
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		r.Fail(name, "The :attribute must be valid UTF-8 text.")
		return Field[string]{Set: true}
	}
	if utf8.RuneCountInString(s) > max {
		r.Fail(name, "The :attribute must not be greater than "+strconv.Itoa(max)+" characters.")
		return Field[string]{Set: true}
	}
	return Field[string]{Set: true, Value: s}
}

// OneOf reads a string that must be one of allowed (or satisfy extra, when given).
func (r *Reader) OneOf(name string, allowed []string, extra func(string) bool) Field[string] {
	f := r.String(name, 191)
	if f.Present() && !contains(allowed, f.Value) && (extra == nil || !extra(f.Value)) {
		r.Fail(name, "The selected :attribute is invalid.")
		return Field[string]{Set: true}
	}
	return f
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Int reads an integer in [min, max]. Numeric strings are accepted (forms send nothing else).
func (r *Reader) Int(name string, min, max int64) Field[int64] {
	v, set, null := r.raw(name)
	if !set || null {
		return Field[int64]{Set: set, Null: null}
	}
	n, ok := ToInt(v)
	if !ok {
		if s, isStr := v.(string); isStr && strings.TrimSpace(s) == "" {
			return Field[int64]{Set: true, Null: true}
		}
		r.Fail(name, "The :attribute must be an integer.")
		return Field[int64]{Set: true}
	}
	if n < min || n > max {
		r.Fail(name, "The :attribute must be between "+strconv.FormatInt(min, 10)+" and "+strconv.FormatInt(max, 10)+".")
		return Field[int64]{Set: true}
	}
	return Field[int64]{Set: true, Value: n}
}

// NumberText is the text of a number sent as a JSON number or a string (trimmed), never
// through a float; not ok for other types.
func NumberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case string:
		return strings.TrimSpace(x), true
	}
	return "", false
}

// ToInt accepts integral JSON numbers and decimal strings; anything else, including 1.5 and
// values beyond int64, is not an integer.
func ToInt(v any) (int64, bool) {
	if x, ok := v.(float64); ok { // only from callers that did not use UseNumber
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, false
		}
		return int64(x), true
	}
	s, ok := NumberText(v)
	if !ok {
		return 0, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	// 12.0 and 1e3 are integral JSON numbers.
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return int64(f), true
	}
	return 0, false
}

// Bool reads true/false, 1/0, "1"/"0" and "true"/"false" in any case.
func (r *Reader) Bool(name string) Field[bool] {
	v, set, null := r.raw(name)
	if !set || null {
		return Field[bool]{Set: set, Null: null}
	}
	switch x := v.(type) {
	case bool:
		return Field[bool]{Set: true, Value: x}
	case json.Number:
		switch x {
		case "1":
			return Field[bool]{Set: true, Value: true}
		case "0":
			return Field[bool]{Set: true, Value: false}
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "1", "true":
			return Field[bool]{Set: true, Value: true}
		case "0", "false":
			return Field[bool]{Set: true, Value: false}
		}
	}
	r.Fail(name, "The :attribute field must be true or false.")
	return Field[bool]{Set: true}
}

// List reads an array (a JSON array or a form's field[]); each element is read by elem, under
// the Laravel name "field.i".
func (r *Reader) List(name string, maxItems int) (items []any, f Field[struct{}]) {
	v, set, null := r.raw(name)
	if !set || null {
		return nil, Field[struct{}]{Set: set, Null: null}
	}
	switch x := r.in[name].(type) {
	case []any:
		items = x
	case []string:
		for _, s := range x {
			items = append(items, s)
		}
	default:
		if s, ok := v.(string); ok && s == "" { // an empty form field clears the list
			return nil, Field[struct{}]{Set: true}
		}
		r.Fail(name, "The :attribute must be an array.")
		return nil, Field[struct{}]{Set: true, Null: true}
	}
	if len(items) > maxItems {
		r.Fail(name, "The :attribute must not have more than "+strconv.Itoa(maxItems)+" items.")
		return nil, Field[struct{}]{Set: true, Null: true}
	}
	return items, Field[struct{}]{Set: true}
}

// IDs reads an array of positive ids (tags and the like).
func (r *Reader) IDs(name string, maxItems int) Field[[]int64] {
	items, f := r.List(name, maxItems)
	if !f.Present() {
		return Field[[]int64]{Set: f.Set, Null: f.Null}
	}
	ids := make([]int64, 0, len(items))
	seen := map[int64]bool{}
	ok := true
	for i, it := range items {
		n, isInt := ToInt(it)
		if !isInt || n < 1 || n > MaxID {
			r.Fail(name+"."+strconv.Itoa(i), "The :attribute must be a positive integer.")
			ok = false
			continue
		}
		if !seen[n] {
			seen[n] = true
			ids = append(ids, n)
		}
	}
	if !ok {
		return Field[[]int64]{Set: true}
	}
	return Field[[]int64]{Set: true, Value: ids}
}

// ID reads a reference to a record: a positive integer below MaxID.
func (r *Reader) ID(name string) Field[int64] { return r.Int(name, 1, MaxID) }

// Required records "The x field is required." when value is missing.
func (r *Reader) Required(name string, present bool) {
	if !present && !r.Errs.Has(name) {
		r.Fail(name, "The :attribute field is required.")
	}
}

// MaxID bounds ids: every id must survive a JavaScript client's float64.
const MaxID = 1<<53 - 1
