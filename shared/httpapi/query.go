package httpapi

import (
	"net/url"
	"slices"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// parseQuery reads a raw query string the way Kanka's PHP does, not the way url.ParseQuery
// does: only `&` separates pairs, so a `;` stays inside its value (`name=a;b` is two terms of
// one filter, where Go's parser drops the whole pair). It also settles repeats once, for the
// filters and the pagination links alike: a repeated scalar keeps its last value, as PHP does,
// and a list key (`tags[]`, `tags[3]`) keeps each distinct value once, in the order sent,
// under `name[]`. Malformed escapes are kept as sent, as PHP's urldecode does.
func parseQuery(raw string) url.Values {
	q := url.Values{}
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, v = unescape(k), unescape(v)
		if k == "" {
			continue
		}
		if name, _, isList := strings.Cut(k, "["); isList && name != "" {
			k = name + "[]"
			if !slices.Contains(q[k], v) {
				q[k] = append(q[k], v)
			}
			continue
		}
		q[k] = []string{v}
	}
	return q
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return strings.ReplaceAll(s, "+", " ")
}

// Param is the value of query parameter name as parseQuery settled it ("" when absent).
func (r *Request) Param(name string) string { return r.query.Get(name) }

// Related reads ?related=1 (or true): a record with the arrays Kanka embeds (DESIGN.md 9).
func (r *Request) Related() (bool, error) {
	rd := domain.NewReader(r.Query())
	v := rd.Bool("related")
	return v.Present() && v.Value, rd.Err()
}
