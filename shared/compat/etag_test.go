package compat_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/token"
)

// Cheap polling: every read's 200 carries a strong ETag of the answer as its caller sees it,
// and If-None-Match naming it is a 304 with the tag and no body, for GET and HEAD, costing no
// more DynamoDB round trips than the 200. A tag is the caller's view's: another role's, another
// user's or another field set's tag never validates it, even where the bytes are alike; a
// change the caller can see changes its tag, one it cannot see does not.
func TestConditionalReads(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	api := func(rest string) string { return apitest.Path(w.Campaign, rest) }
	wd, under := w.locations["Waterdeep"], w.locations["Undermountain"]
	member2022 := w.TokenWithFieldSet(w.MemberID, 0, token.Fields2022)
	get := func(t *testing.T, method, path, tok string, inm ...string) apitest.Response {
		t.Helper()
		h := http.Header{}
		for _, v := range inm {
			h.Add("If-None-Match", v)
		}
		return w.For(t).DoHeader(method, path, tok, "", nil, h)
	}
	routes := []struct {
		name, path string
		tokens     map[string]string // who may read it
	}{
		{"show", api(fmt.Sprintf("/locations/%v", wd["id"])), map[string]string{"admin": w.Admin, "member": w.Member, "viewer": w.Viewer, "member 2022": member2022}},
		{"show, private", api(fmt.Sprintf("/locations/%v", under["id"])), map[string]string{"admin": w.Admin, "admin2": w.Admin2}},
		{"list", api("/locations"), map[string]string{"admin": w.Admin, "member": w.Member, "viewer": w.Viewer, "member 2022": member2022}},
		{"list with lastSync", api("/locations?lastSync=2020-01-01"), map[string]string{"admin": w.Admin, "member": w.Member}},
		{"entities", api("/entities"), map[string]string{"admin": w.Admin, "member": w.Member}},
		{"notes", api(fmt.Sprintf("/entities/%v/entity_notes", wd["entity_id"])), map[string]string{"admin": w.Admin, "member": w.Member}},
		{"account", "/api/1.0/campaigns", map[string]string{"admin": w.Admin, "member": w.Member}},
	}
	for _, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			tags := map[string]string{}
			for who, tok := range rt.tokens {
				w.Counter.Reset()
				ok := get(t, "GET", rt.path, tok)
				full := w.Counter.N()
				tag := ok.Header.Get("ETag")
				if ok.Status != 200 || !strings.HasPrefix(tag, `"`) || len(tag) < 20 || ok.Header.Get("Cache-Control") != "private, no-cache" {
					t.Fatalf("%s: %d ETag %q Cache-Control %q", who, ok.Status, tag, ok.Header.Get("Cache-Control"))
				}
				for other, otherTag := range tags {
					if otherTag == tag {
						t.Errorf("%s and %s share the tag %s", who, other, tag)
					}
				}
				tags[who] = tag
				if again := get(t, "GET", rt.path, tok); again.Header.Get("ETag") != tag {
					t.Errorf("%s: the same answer's tag moved: %s, then %s", who, tag, again.Header.Get("ETag"))
				}
				cases := []struct {
					name, method string
					inm          []string
					want         int
				}{
					{"its tag", "GET", []string{tag}, 304},
					{"HEAD, its tag", "HEAD", []string{tag}, 304},
					{"weak form", "GET", []string{"W/" + tag}, 304},
					{"in a list", "GET", []string{`"other", ` + tag}, 304},
					{"in a second header", "GET", []string{`"other"`, tag}, 304},
					{"any", "GET", []string{"*"}, 304},
					{"another tag", "GET", []string{`"` + strings.Repeat("x", 32) + `"`}, 200},
					{"HEAD, another tag", "HEAD", []string{`"x"`}, 200},
					{"garbage", "GET", []string{`,,; "a`}, 200},
				}
				for _, c := range cases {
					w.Counter.Reset()
					r := get(t, c.method, rt.path, tok, c.inm...)
					if r.Status != c.want || r.Header.Get("ETag") != tag {
						t.Errorf("%s, %s: %d ETag %q, want %d with %s", who, c.name, r.Status, r.Header.Get("ETag"), c.want, tag)
					}
					if c.want == 304 && (len(r.Raw) != 0 || r.Header.Get("Content-Type") != "") {
						t.Errorf("%s, %s: a 304 with a body %q or Content-Type %q", who, c.name, r.Raw, r.Header.Get("Content-Type"))
					}
					if n := w.Counter.N(); n > full {
						t.Errorf("%s, %s: %d DynamoDB round trips, the 200 costs %d", who, c.name, n, full)
					}
				}
			}
			// No view's tag validates another's.
			for who, tok := range rt.tokens {
				for other, tag := range tags {
					if other == who {
						continue
					}
					if r := get(t, "GET", rt.path, tok, tag); r.Status != 200 {
						t.Errorf("%s sending %s's tag: %d, want 200", who, other, r.Status)
					}
				}
			}
		})
	}
	// A change the caller sees moves its tag; one hidden from it does not.
	list := api("/locations")
	adminTag, memberTag := get(t, "GET", list, w.Admin).Header.Get("ETag"), get(t, "GET", list, w.Member).Header.Get("ETag")
	if r := w.Do("PATCH", api(fmt.Sprintf("/locations/%v", under["id"])), w.Admin, map[string]any{"type": "Dungeon"}); r.Status != 200 {
		t.Fatalf("update: %d %s", r.Status, r.Raw)
	}
	if r := get(t, "GET", list, w.Admin, adminTag); r.Status != 200 {
		t.Errorf("admin after a change to a private location: %d, want 200 with a new tag", r.Status)
	}
	if r := get(t, "GET", list, w.Member, memberTag); r.Status != 304 {
		t.Errorf("member after a change it cannot see: %d, want 304", r.Status)
	}
	if r := w.Do("PATCH", api(fmt.Sprintf("/locations/%v", wd["id"])), w.Admin, map[string]any{"type": "City"}); r.Status != 200 {
		t.Fatalf("update: %d %s", r.Status, r.Raw)
	}
	if r := get(t, "GET", list, w.Member, memberTag); r.Status != 200 || r.Header.Get("ETag") == memberTag {
		t.Errorf("member after a change it sees: %d %s, want 200 with a new tag", r.Status, r.Header.Get("ETag"))
	}
	// Errors and writes carry no tag; a 404 is never a 304.
	if r := get(t, "GET", api("/locations/999999"), w.Admin, "*"); r.Status != 404 || r.Header.Get("ETag") != "" {
		t.Errorf("missing record with If-None-Match *: %d ETag %q, want 404 without", r.Status, r.Header.Get("ETag"))
	}
	if r := get(t, "GET", api(fmt.Sprintf("/locations/%v", under["id"])), w.Member, "*"); r.Status != 404 {
		t.Errorf("a private record to a member with If-None-Match *: %d, want 404", r.Status)
	}
	if r := w.Do("POST", api("/locations"), w.Admin, map[string]any{"name": "Port Nyanzaru"}); r.Status != 200 || r.Header.Get("ETag") != "" {
		t.Errorf("a write: %d ETag %q, want 200 without", r.Status, r.Header.Get("ETag"))
	}
}
