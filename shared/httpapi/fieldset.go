package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/lorekeep/lorekeep/shared/token"
)

// A token may be bound to the 2022 API's field set (token.Fields2022): its answers then carry
// only the fields the 2022 API answered, so that a client that refuses fields it does not know
// (firelilith/pykanka's dataclasses) works unmodified. The records are rendered as for every
// client and trimmed as they are written (writeBody), by the shape of the route's records
// (Fields2022): every answer goes through there, a keyed write's stored answer and its replays
// included, so one stored answer serves callers of both field sets. What a request may send is
// the same whatever the field set.

// Shape is the fields of a record that a field set keeps, and for some of them the shape of
// their value (an object, or each object of an array). A field it does not name is left out;
// the fields kept keep the renderer's order.
type Shape struct {
	keep   map[string]bool
	nested map[string]*Shape
}

// NewShape is the shape keeping keys and the keys of nested (whose values are trimmed by their
// shape; a nil shape keeps the value whole).
func NewShape(keys []string, nested map[string]*Shape) *Shape {
	s := &Shape{keep: make(map[string]bool, len(keys)+len(nested)), nested: nested}
	for _, k := range keys {
		s.keep[k] = true
	}
	for k := range nested {
		s.keep[k] = true
	}
	return s
}

// Keys are the fields s keeps, nested ones included.
func (s *Shape) Keys() []string {
	out := make([]string, 0, len(s.keep))
	for k := range s.keep {
		out = append(out, k)
	}
	return out
}

// Nested is the shape of field k's value (nil: kept whole, or not a field of s).
func (s *Shape) Nested(k string) *Shape { return s.nested[k] }

// FieldSetReader is the field set the token of a request is bound to. It is called only once
// Options.Identify accepted the request.
type FieldSetReader func(r *http.Request) token.FieldSet

// BearerFieldSet reads the field set of the request's bearer token: BearerAuth's twin (the
// token it reads is the one BearerAuth accepted, whose payload the stored hash covers).
func BearerFieldSet(r *http.Request) token.FieldSet {
	return token.FieldSetOf(token.Bearer(r.Header.Get("Authorization")))
}

type fieldSetKey struct{}

type shapeKey struct{}

// withFieldSet is ctx carrying the caller's field set (nothing for token.FieldsAll).
func withFieldSet(ctx context.Context, fs token.FieldSet) context.Context {
	if fs == token.FieldsAll {
		return ctx
	}
	return context.WithValue(ctx, fieldSetKey{}, fs)
}

// FieldSet is the field set the caller's token is bound to.
func (r *Request) FieldSet() token.FieldSet {
	fs, _ := r.Context().Value(fieldSetKey{}).(token.FieldSet)
	return fs
}

// shaped is r carrying the shape its answer is trimmed to: that of the route's records in the
// caller's field set, when it has one. A delete's answer ({id, deleted}) is never trimmed.
func shaped(r *http.Request, method, pattern string) *http.Request {
	if fs, _ := r.Context().Value(fieldSetKey{}).(token.FieldSet); fs != token.Fields2022 || method == http.MethodDelete {
		return r
	}
	s := Fields2022[pattern]
	if s == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), shapeKey{}, s))
}

// untrimmed leaves r's answer whole: rows that are not the route's records (a ?deleted=1
// page's tombstones, which no era's shape has).
func (r *Request) untrimmed() {
	if s, _ := r.Context().Value(shapeKey{}).(*Shape); s != nil {
		r.Request = r.Request.WithContext(context.WithValue(r.Context(), shapeKey{}, (*Shape)(nil)))
	}
}

// trimmed is body (a success's) with its data trimmed to the shape r carries, if any.
func trimmed(r *http.Request, status int, body []byte) []byte {
	if status != http.StatusOK {
		return body
	}
	s, _ := r.Context().Value(shapeKey{}).(*Shape)
	if s == nil {
		return body
	}
	members, ok := objectMembers(body)
	if !ok {
		return body
	}
	for i := range members {
		if members[i].key == "data" {
			members[i].value = s.trim(members[i].value)
		}
	}
	return appendMembers(make([]byte, 0, len(body)), members)
}

// trim is v (a record, a list of records, or anything else, left as it is) trimmed to s.
func (s *Shape) trim(v json.RawMessage) json.RawMessage {
	switch {
	case len(v) > 0 && v[0] == '{':
		members, ok := objectMembers(v)
		if !ok {
			return v
		}
		kept := members[:0]
		for _, m := range members {
			if !s.keep[m.key] {
				continue
			}
			if n := s.nested[m.key]; n != nil {
				m.value = n.trim(m.value)
			}
			kept = append(kept, m)
		}
		return appendMembers(make([]byte, 0, len(v)), kept)
	case len(v) > 0 && v[0] == '[':
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return v
		}
		out := make([]byte, 0, len(v))
		out = append(out, '[')
		for i, it := range items {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, s.trim(it)...)
		}
		return append(out, ']')
	}
	return v
}

type member struct {
	key   string
	value json.RawMessage
}

// objectMembers is a JSON object's members, in order (values as they are written).
func objectMembers(b []byte) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok {
			return nil, false
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, false
		}
		out = append(out, member{k, v})
	}
	return out, true
}

func appendMembers(b []byte, members []member) []byte {
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, m.key)
		b = append(b, ':')
		b = append(b, m.value...)
	}
	return append(b, '}')
}
