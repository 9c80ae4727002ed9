package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Conditional reads (DESIGN 2, "Cheap polling"). Every 200 of a read (GET, HEAD) carries a
// strong ETag: a hash of the answer's exact bytes, as the caller's field set trimmed them, and
// of the caller's view (user, role, field set), so that two answers that differ never share a
// tag and no caller's tag validates another's view. A list's `sync` (the time of the read) is
// not in it: the same rows answered a second later are the same answer, and a client that
// keeps its earlier copy keeps its earlier, older sync, which loses nothing. If-None-Match
// that names the tag (or *) is answered 304 with the tag and no body. The answer is read and
// rendered as for the 200 (a 304 costs the reads of the 200, never more): nothing cheaper
// proves that none of what an answer shows changed. No Last-Modified is sent: an HTTP date has
// whole seconds and records change within one, so no answer's date would be exact.

type viewKey struct{}

// withView is r's context carrying the caller's view, which tags its read answers.
func withView(r *http.Request, a domain.Access, fields string) *http.Request {
	v := strconv.FormatInt(a.UserID, 10) + "\x00" + strconv.FormatInt(a.CampaignID, 10) + "\x00" + string(a.Role) + "\x00" + fields
	return r.WithContext(context.WithValue(r.Context(), viewKey{}, v))
}

// syncTail is how a list's body ends: `,"sync":"<timestamp>"}`, the timestamp 27 bytes.
var syncMember = []byte(`,"sync":"`)

const syncTailLen = len(`,"sync":"`) + len("2019-01-30T00:01:44.000000Z") + len(`"}`)

// etagOf is the tag of body as the view v answers it: the body without a list's sync time.
func etagOf(v string, body []byte) string {
	if n := len(body) - syncTailLen; n >= 0 && bytes.HasPrefix(body[n:], syncMember) && bytes.HasSuffix(body, []byte(`"}`)) {
		body = body[:n]
	}
	h := sha256.New()
	h.Write([]byte(v))
	h.Write([]byte{0})
	h.Write(body)
	var sum [sha256.Size]byte
	return `"` + base64.RawURLEncoding.EncodeToString(h.Sum(sum[:0])[:24]) + `"`
}

// conditional sets the tag of a read's 200 answer and reports whether the request's
// If-None-Match names it (the answer is then a 304, written here).
func conditional(w http.ResponseWriter, r *http.Request, status int, body []byte) bool {
	v, ok := r.Context().Value(viewKey{}).(string)
	if !ok || status != http.StatusOK || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	tag := etagOf(v, body)
	h := w.Header()
	h.Set("ETag", tag)
	h.Set("Cache-Control", "private, no-cache")
	if !noneMatch(r.Header.Values("If-None-Match"), tag) {
		return false
	}
	w.WriteHeader(http.StatusNotModified)
	return true
}

// noneMatch reports whether an If-None-Match list names tag, by the weak comparison RFC 9110
// gives it (W/"x" names "x"), or is *.
func noneMatch(values []string, tag string) bool {
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == tag {
				return true
			}
		}
	}
	return false
}
