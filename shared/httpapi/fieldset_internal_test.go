package httpapi

import (
	"context"
	"net/http/httptest"
	"testing"
)

// Trimming keeps the envelope and the renderer's order, trims nested objects and arrays by
// their shapes, and leaves alone what is not a record (a malformed body, a string, an error).
func TestTrimmingToAShape(t *testing.T) {
	t.Parallel()
	s := NewShape([]string{"id", "name", "kept"}, map[string]*Shape{
		"moons": NewShape([]string{"name"}, nil), "child": NewShape([]string{"a"}, nil), "whole": nil})
	cases := []struct {
		name, body, want string
		status           int
	}{
		{"a record", `{"data":{"name":"x","extra":1,"id":2}}`, `{"data":{"name":"x","id":2}}`, 200},
		{"a page", `{"data":[{"id":1,"x":[1]},{"id":2,"name":null}],"links":{"next":null},"meta":{"total":2},"sync":"t"}`,
			`{"data":[{"id":1},{"id":2,"name":null}],"links":{"next":null},"meta":{"total":2},"sync":"t"}`, 200},
		{"nested", `{"data":{"moons":[{"name":"a","id":1},{"id":2}],"child":{"a":1,"b":2},"whole":{"b":[1]},"kept":{"b":1}}}`,
			`{"data":{"moons":[{"name":"a"},{}],"child":{"a":1},"whole":{"b":[1]},"kept":{"b":1}}}`, 200},
		{"null nested", `{"data":{"moons":null,"child":null}}`, `{"data":{"moons":null,"child":null}}`, 200},
		{"escapes kept", `{"data":{"name":"<a href=\"x\">\u00e9</a>","zz":1}}`, `{"data":{"name":"<a href=\"x\">\u00e9</a>"}}`, 200},
		{"not a record", `{"data":"text"}`, `{"data":"text"}`, 200},
		{"malformed", `{"data":{"id":1`, `{"data":{"id":1`, 200},
		{"an error", `{"message":"Not found.","extra":1}`, `{"message":"Not found.","extra":1}`, 404},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r = r.WithContext(context.WithValue(r.Context(), shapeKey{}, s))
		if got := string(trimmed(r, c.status, []byte(c.body))); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// No shape: the body as it is.
	r := httptest.NewRequest("GET", "/", nil)
	if got := string(trimmed(r, 200, []byte(`{"data":{"x":1}}`))); got != `{"data":{"x":1}}` {
		t.Errorf("without a shape: %s", got)
	}
}
