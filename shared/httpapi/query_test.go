package httpapi

import (
	"net/url"
	"reflect"
	"testing"
)

func TestParseQueryKeepsSemicolonsAndSettlesRepeats(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, raw string
		want      url.Values
	}{
		{"semicolon stays in its value", "name=a;b&type=c", url.Values{"name": {"a;b"}, "type": {"c"}}},
		{"escaped semicolon too", "name=a%3Bb", url.Values{"name": {"a;b"}}},
		{"a semicolon never separates pairs", "name=a;type=b", url.Values{"name": {"a;type=b"}}},
		{"repeated scalar keeps the last value", "name=a&name=b&name=c", url.Values{"name": {"c"}}},
		{"list keys keep distinct values in order", "tags[]=2&tags[]=1&tags[]=2", url.Values{"tags[]": {"2", "1"}}},
		{"indexed list keys are one list", "tags[0]=3&tags[1]=4", url.Values{"tags[]": {"3", "4"}}},
		{"escaped brackets", "tags%5B%5D=5", url.Values{"tags[]": {"5"}}},
		{"plus is a space", "name=the+keep", url.Values{"name": {"the keep"}}},
		{"malformed escape kept as sent", "name=100%&type=%zz", url.Values{"name": {"100%"}, "type": {"%zz"}}},
		{"empty pairs and keys skipped", "&&=x&name=", url.Values{"name": {""}}},
		{"no value", "related", url.Values{"related": {""}}},
		{"empty", "", url.Values{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parseQuery(c.raw); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("parseQuery(%q) = %v, want %v", c.raw, got, c.want)
			}
		})
	}
}

func TestPageLinksCarryEachParameterOnce(t *testing.T) {
	t.Parallel()
	q := parseQuery("name=a&name=a&tags[]=1&tags[]=1&tags[]=2&page=3&page=4&cursor=x&limit=5&limit=5")
	got := pageURL("http://h/p", q, 2, "")
	want := "http://h/p?limit=5&name=a&page=2&tags%5B%5D=1&tags%5B%5D=2"
	if got != want {
		t.Fatalf("link %s, want %s", got, want)
	}
	got = pageURL("http://h/p", q, 5, "abc")
	if want := "http://h/p?cursor=abc&limit=5&name=a&page=5&tags%5B%5D=1&tags%5B%5D=2"; got != want {
		t.Fatalf("next link %s, want %s", got, want)
	}
	if len(q["page"]) != 1 || q.Get("page") != "4" || q.Get("cursor") != "x" {
		t.Fatalf("pageURL changed the request's query: %v", q)
	}
}
