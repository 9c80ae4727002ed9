package locations_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A name's limit is 191 characters (DESIGN, and the 422's own words), as Kanka counts them: a name
// of 191 characters written outside ASCII is a valid name, and 192 is one too many whatever the
// script.
func TestNameLimitCountsCharactersNotBytes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	p := apitest.Path(e.Campaign, "/locations")
	for _, c := range []struct {
		name   string
		value  string
		status int
	}{
		{"191 ASCII letters", strings.Repeat("a", 191), 200},
		{"191 Latin letters with a dot (2 bytes each)", strings.Repeat("é", 191), 200},
		{"191 CJK characters (3 bytes each)", strings.Repeat("城", 191), 200},
		{"191 emoji (4 bytes each)", strings.Repeat("😀", 191), 200},
		{"64 emoji (256 bytes)", strings.Repeat("😀", 64), 200},
		{"192 CJK characters", strings.Repeat("城", 192), 422},
		{"192 ASCII letters", strings.Repeat("a", 192), 422},
	} {
		before := total(t, e, e.Campaign)
		r := e.Do("POST", p, e.Member, map[string]any{"name": c.value})
		if r.Status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, r.Status, c.status, r.Raw)
			continue
		}
		after := total(t, e, e.Campaign)
		switch c.status {
		case 200:
			if got, _ := r.Data()["name"].(string); got != c.value || after != before+1 {
				t.Errorf("%s: stored %q (count %v -> %v)", c.name, got, before, after)
			}
		default:
			if _, ok := r.Errors()["name"]; !ok || after != before {
				t.Errorf("%s: errors %v, count %v -> %v", c.name, r.Errors(), before, after)
			}
		}
	}
}

// Text that is not UTF-8 is refused naming the field, whatever the body's encoding: a form says
// so with a 422, and a JSON body must too rather than store U+FFFD in place of what was sent.
func TestInvalidUTF8IsRefusedInJSONAsInForms(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	p := apitest.Path(e.Campaign, "/locations")
	for _, c := range []struct {
		name, contentType, body string
	}{
		{"form", "application/x-www-form-urlencoded", "name=" + url.QueryEscape("bad\xff\xfe")},
		{"JSON with a raw invalid byte", "application/json", "{\"name\":\"bad\xff\"}"},
		{"JSON with a lone surrogate escape", "application/json", `{"name":"bad\ud800"}`},
	} {
		before := total(t, e, e.Campaign)
		r := e.DoRaw("POST", p, e.Member, c.contentType, strings.NewReader(c.body))
		if r.Status != 422 {
			t.Errorf("%s: status %d, want 422: %s", c.name, r.Status, r.Raw)
		} else if _, ok := r.Errors()["name"]; !ok {
			t.Errorf("%s: errors %v do not name name", c.name, r.Errors())
		}
		if after := total(t, e, e.Campaign); after != before {
			t.Errorf("%s: count %v -> %v", c.name, before, after)
		}
	}
}
