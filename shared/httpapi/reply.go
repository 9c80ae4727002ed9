package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Reply is a successful response: one record, a deletion, or a page of a list.
type Reply struct {
	data any
	list *listInfo
	// raw is the encoded answer of a keyed write, rendered before its transaction was sent and
	// stored with its Idempotency-Key.
	raw []byte
	// rows holds the buffer data's rows are slices of (Many, Rows.Reply), given back to its
	// pool once the reply is written (release).
	rows *Rows
	// doc is a body that is not JSON (Document).
	doc *document
}

// release gives the buffer of the reply's rows back to its pool, once the reply is written and
// nothing reads it again: a read's reply, never a keyed write's (its body is stored).
func (rp Reply) release() { rp.rows.release() }

type listInfo struct {
	page  domain.PageRequest
	count int
	total int
	next  string
	since *string // meta.deleted_since of a `?deleted=1` or `?removed=1` page
	// cursors continue the list after each of the count rows (nil when the family has none).
	cursors []string
}

// One replies {"data": v}.
func One(v any) Reply { return Reply{data: v} }

// Bare replies v itself, without the data envelope: Kanka's few answers that have none
// (POST recover's {"success": ...}).
func Bare(v any) Reply {
	b, err := encodeJSON(v)
	if err != nil { // unencodable: writeJSON fails the same way, as a logged 500
		return Reply{data: v}
	}
	return Reply{raw: b}
}

// Deleted replies {"data": {"id": id, "deleted": true}}.
func Deleted(id int64) Reply {
	return Reply{data: map[string]any{"id": id, "deleted": true}}
}

// Many replies one page of a list: data, links, meta and sync. items must already be rendered;
// cursors[i] continues the list right after items[i]. Rows that would take the page past
// MaxPageBytes are left for the next page, which links.next then continues at.
func Many[T any](items []T, total int, next string, cursors []string, page domain.PageRequest) Reply {
	rows, err := fitRows(items)
	if err != nil { // unencodable: writeJSON fails the same way, as a logged 500
		return Reply{data: items, list: &listInfo{page: page, count: len(items), total: total, next: next}}
	}
	if rows.Len() < len(items) {
		if len(cursors) != len(items) {
			slog.Error("list page over MaxPageBytes without cursors to cut it", "rows", len(items))
			rows.release()
			rows, _ = fitRowsAll(items)
		} else {
			next = cursors[rows.Len()-1]
		}
	}
	if len(cursors) >= rows.Len() {
		cursors = cursors[:rows.Len()]
	} else {
		cursors = nil
	}
	return Reply{data: rows.raw(), rows: rows, list: &listInfo{page: page, count: rows.Len(), total: total, next: next, cursors: cursors}}
}

// encode is the body of a one-record reply, as write writes it.
func (rp Reply) encode() ([]byte, error) {
	if rp.raw != nil {
		return rp.raw, nil
	}
	return encodeData(rp.data)
}

// encodeData is {"data": v} as writeJSON writes it: by hand for a JSONAppender.
func encodeData(v any) ([]byte, error) { return appendData(make([]byte, 0, 1024), v) }

// appendData is encodeData appending to dst (its answer may be dst grown, or a new slice).
func appendData(dst []byte, v any) ([]byte, error) {
	if b, ok := appendRow(append(dst, `{"data":`...), v); ok {
		return append(b, '}'), nil
	}
	return encodeJSON(map[string]any{"data": v})
}

type links struct {
	First string  `json:"first"`
	Last  string  `json:"last"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
}

type meta struct {
	CurrentPage int    `json:"current_page"`
	From        *int   `json:"from"`
	LastPage    int    `json:"last_page"`
	Path        string `json:"path"`
	PerPage     int    `json:"per_page"`
	To          *int   `json:"to"`
	Total       int    `json:"total"`
	// DeletedSince is the bound of a `?deleted=1` page (deleted.go).
	DeletedSince *string `json:"deleted_since,omitempty"`
}

func (rp Reply) write(w http.ResponseWriter, r *Request) {
	if rp.doc != nil {
		rp.doc.write(w, r.Request)
		return
	}
	if rp.raw != nil {
		writeBody(w, r.Request, http.StatusOK, rp.raw)
		return
	}
	if rp.list == nil {
		if rows, ok := rp.data.([]json.RawMessage); ok && rows != nil {
			writeRows(w, r.Request, rows, struct{}{})
			return
		}
		// The body is written once and not kept (an io.Writer keeps nothing of what it is
		// given): its buffer goes back to the pool.
		p, buf := getBuf(1024)
		body, err := appendData(buf, rp.data)
		if err != nil {
			logInternal(r.Request, fmt.Errorf("encode response: %w", err))
			body = []byte(`{"message":"Server Error."}`)
			writeBody(w, r.Request, http.StatusInternalServerError, body)
			return
		}
		writeBody(w, r.Request, http.StatusOK, body)
		putBuf(p, body)
		return
	}
	l := rp.list
	var removed *[]removedJSON
	if r.removed != nil {
		var rows []removedJSON
		rp, rows = rp.withRemoved(r.removed)
		removed = &rows
		l = rp.list
	}
	p := l.page
	n := l.count
	lastPage := max(1, (l.total+p.Limit-1)/p.Limit)
	m := meta{CurrentPage: p.Page, LastPage: lastPage, PerPage: p.Limit, Total: l.total, DeletedSince: l.since}
	if n > 0 {
		from := (p.Page-1)*p.Limit + 1
		to := from + n - 1
		m.From, m.To = &from, &to
	}
	base := baseURL(r)
	m.Path = base
	// Links carry the page size the page was read with, not a value it corrected.
	q := maps.Clone(r.query)
	for _, k := range []string{"limit", "per_page"} {
		if q.Has(k) {
			q.Set(k, strconv.Itoa(p.Limit))
		}
	}
	lk := links{First: pageURL(base, q, 1, ""), Last: pageURL(base, q, lastPage, "")}
	if p.Page > 1 {
		prev := pageURL(base, q, min(p.Page-1, lastPage), "")
		lk.Prev = &prev
	}
	if l.next != "" {
		next := pageURL(base, q, p.Page+1, l.next)
		lk.Next = &next
	}
	rest := pageTail{lk, m, removed, domain.FormatTime(r.now)}
	if rows, ok := rp.data.([]json.RawMessage); ok && rows != nil {
		writeRows(w, r.Request, rows, rest)
		return
	}
	writeJSON(w, r.Request, http.StatusOK, struct {
		Data    any            `json:"data"`
		Links   links          `json:"links"`
		Meta    meta           `json:"meta"`
		Removed *[]removedJSON `json:"removed,omitempty"`
		Sync    string         `json:"sync"`
	}{rp.data, rest.Links, rest.Meta, rest.Removed, rest.Sync})
}

// withRemoved is rp's page with the removals of rm it answers: those whose ids fall after the
// page's start (rm.after) up to its last row, or all that follow on the last page; at most the
// page's limit of them, its rows then ending where they do (links.next continues after the
// last removal told). Pages so tile the ids: each removal is told on exactly one page.
func (rp Reply) withRemoved(rm *removedRead) (Reply, []removedJSON) {
	l := *rp.list
	l.since = &rm.since
	hi := int64(domain.MaxID)
	if id, ok := domain.DecodeCursor(l.next); ok {
		hi = id
	}
	var win []domain.Removal
	for _, x := range rm.items {
		if x.ID > rm.after && x.ID <= hi {
			win = append(win, x)
		}
	}
	rows, isRows := rp.data.([]json.RawMessage)
	if len(win) > l.page.Limit && (isRows && len(l.cursors) == l.count || l.count == 0) {
		win = win[:l.page.Limit]
		cut := win[len(win)-1].ID
		n := 0
		for n < l.count {
			if id, _ := domain.DecodeCursor(l.cursors[n]); id > cut {
				break
			}
			n++
		}
		if isRows {
			rp.data = rows[:n]
		}
		l.count, l.next, l.cursors = n, domain.EncodeCursor(cut), l.cursors[:n]
	}
	out := make([]removedJSON, len(win))
	for i, x := range win {
		out[i] = removedJSON{ID: x.ID, Kind: "deleted", RemovedAt: domain.FormatTime(x.At)}
		if x.Hidden {
			out[i].Kind = "hidden"
		}
		if x.EntityID != 0 {
			out[i].EntityID = &win[i].EntityID
		}
	}
	rp.list = &l
	return rp, out
}

// pageTail is what follows a page's rows.
type pageTail struct {
	Links   links          `json:"links"`
	Meta    meta           `json:"meta"`
	Removed *[]removedJSON `json:"removed,omitempty"`
	Sync    string         `json:"sync"`
}

// AppendJSON is pageTail's hand encoder: encoding/json's bytes (TestPageTailEncoderMatchesEncodingJSON).
func (t pageTail) AppendJSON(b []byte) ([]byte, bool) {
	l, m := &t.Links, &t.Meta
	b = append(b, `{"links":{"first":`...)
	b = AppendString(b, l.First)
	b = append(b, `,"last":`...)
	b = AppendString(b, l.Last)
	b = append(b, `,"prev":`...)
	b = AppendOptString(b, l.Prev)
	b = append(b, `,"next":`...)
	b = AppendOptString(b, l.Next)
	b = append(b, `},"meta":{"current_page":`...)
	b = AppendInt(b, int64(m.CurrentPage))
	b = append(b, `,"from":`...)
	b = appendOptInt(b, m.From)
	b = append(b, `,"last_page":`...)
	b = AppendInt(b, int64(m.LastPage))
	b = append(b, `,"path":`...)
	b = AppendString(b, m.Path)
	b = append(b, `,"per_page":`...)
	b = AppendInt(b, int64(m.PerPage))
	b = append(b, `,"to":`...)
	b = appendOptInt(b, m.To)
	b = append(b, `,"total":`...)
	b = AppendInt(b, int64(m.Total))
	if m.DeletedSince != nil {
		b = append(b, `,"deleted_since":`...)
		b = AppendString(b, *m.DeletedSince)
	}
	b = append(b, '}')
	if t.Removed != nil && *t.Removed == nil {
		b = append(b, `,"removed":null`...)
	} else if t.Removed != nil {
		b = append(b, `,"removed":[`...)
		for i, x := range *t.Removed {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = AppendInt(b, x.ID)
			if x.EntityID != nil {
				b = append(b, `,"entity_id":`...)
				b = AppendInt(b, *x.EntityID)
			}
			b = append(b, `,"kind":`...)
			b = AppendString(b, x.Kind)
			b = append(b, `,"removed_at":`...)
			b = AppendString(b, x.RemovedAt)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"sync":`...)
	b = AppendString(b, t.Sync)
	return append(b, '}'), true
}

func appendOptInt(b []byte, n *int) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return AppendInt(b, int64(*n))
}

// writeRows writes {"data":[rows...], <rest's fields>}: the bytes writeJSON would write, without
// encoding/json validating and copying again every row Rows already rendered (compact, HTML not
// escaped: writeJSON's settings). rest is a struct whose fields follow data; rows is not nil
// (writeJSON writes a nil slice as null).
func writeRows(w http.ResponseWriter, r *http.Request, rows []json.RawMessage, rest any) {
	tail, ok := appendRow(nil, rest) // a page's links and meta by hand
	var err error
	if !ok {
		tail, err = encodeJSON(rest)
	}
	if err != nil || len(tail) < 2 {
		writeJSON(w, r, http.StatusOK, rest) // unencodable: the same logged 500 as writeJSON's
		return
	}
	n := len(tail) + 12
	for _, row := range rows {
		n += len(row) + 1
	}
	// Written once and not kept (an io.Writer keeps nothing of what it is given): the body's
	// buffer goes back to the pool.
	p, body := getBuf(n)
	body = append(body, `{"data":[`...)
	for i, row := range rows {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, row...)
	}
	body = append(body, ']')
	if len(tail) > 2 { // {} when rest has no fields
		body = append(body, ',')
		body = append(body, tail[1:]...)
	} else {
		body = append(body, '}')
	}
	writeBody(w, r, http.StatusOK, body)
	putBuf(p, body)
}

// baseURL is the absolute URL the client called, without its query.
func baseURL(r *Request) string { return origin(r) + r.URL.Path }

// AbsoluteURL is the absolute URL of path (absolute, e.g. "/api/1.0/...") on the host the
// client called.
func (r *Request) AbsoluteURL(path string) string { return origin(r) + path }

// origin is the scheme and host the client called. On Lambda the adapter builds the request
// from API Gateway's domain and scheme; the proxy headers count only when the API trusts them
// (Options.TrustForwardedHeaders), or any client could rewrite the links.
func origin(r *Request) string {
	scheme := "http"
	if r.TLS != nil || r.URL.Scheme == "https" {
		scheme = "https"
	}
	host := r.Host
	if r.trustForwarded {
		if p := r.Header.Get("X-Forwarded-Proto"); p == "http" || p == "https" {
			scheme = p
		}
		if h := strings.TrimSpace(strings.Split(r.Header.Get("X-Forwarded-Host"), ",")[0]); h != "" {
			host = h
		}
	}
	return scheme + "://" + host
}

func pageURL(base string, q url.Values, page int, cursor string) string {
	q = maps.Clone(q) // Set and Del replace whole entries: a shallow copy is enough
	q.Set("page", strconv.Itoa(page))
	q.Del("cursor")
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return base + "?" + q.Encode()
}

// MaxPage bounds ?page=: past any real list (a million pages), and it keeps (page-1)*limit far
// from overflowing.
const MaxPage = 1 << 20

// Page reads page, limit (or per_page) and cursor. A value that is missing, empty, not a
// number, or 0 falls back to the default, as Kanka's paginator reads it, and a limit above 100
// is 100. A number no list can be paged by is a 422 naming the parameter, never page 1 again (a
// client paging by number would read page 1 for ever): a negative page or limit, a page past
// MaxPage or past the 64-bit range. Every list reads its paging here.
func (r *Request) Page() (domain.PageRequest, error) {
	q := r.query
	p := domain.PageRequest{Page: 1, Limit: domain.DefaultPageSize, Cursor: q.Get("cursor")}
	switch n, status := readPaging(q.Get("page")); status {
	case pagingNegative:
		return p, apperr.Invalid("page", "The page must be at least 1.")
	case pagingHuge:
		return p, apperr.Invalid("page", "The page must not be greater than "+strconv.Itoa(MaxPage)+".")
	case pagingInt:
		if n > MaxPage {
			return p, apperr.Invalid("page", "The page must not be greater than "+strconv.Itoa(MaxPage)+".")
		}
		if n >= 1 {
			p.Page = int(n)
		}
	}
	name := "limit"
	lim := q.Get("limit")
	if lim == "" {
		name, lim = "per_page", q.Get("per_page")
	}
	switch n, status := readPaging(lim); status {
	case pagingNegative:
		return p, apperr.Invalid(name, "The "+domain.Label(name)+" must be at least 1.")
	case pagingHuge:
		p.Limit = domain.MaxPageSize
	case pagingInt:
		if n >= 1 {
			p.Limit = int(min(n, domain.MaxPageSize))
		}
	}
	return p, nil
}

// What readPaging found in a paging parameter.
const (
	pagingOther    = iota // missing, empty or not an integer: the default
	pagingInt             // an integer of 64 bits, 0 or more
	pagingNegative        // an integer below 0
	pagingHuge            // a positive integer past 64 bits
)

// readPaging reads an integer as PHP's filter_var does ([+-]digits, spaces around allowed).
func readPaging(s string) (int64, int) {
	s = strings.TrimSpace(s)
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, pagingOther
	}
	if strings.TrimLeft(digits, "0") == "" {
		return 0, pagingInt // 0, -0, 000
	}
	if s[0] == '-' {
		return 0, pagingNegative
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, pagingHuge
	}
	return n, pagingInt
}

// Filter reads the filters a list takes (keys) from the query: Kanka's filter language, with
// a 422 naming the parameter for a bad value.
func (r *Request) Filter(keys domain.FilterKeys) (domain.Filter, error) {
	return domain.ReadFilter(r.Query(), keys)
}

// Page replies one page of records, each rendered by render.
func Page[T, J any](res domain.Page[T], page domain.PageRequest, render func(*T) J) Reply {
	out := make([]J, len(res.Items))
	for i := range res.Items {
		out[i] = render(&res.Items[i])
	}
	return Many(out, res.Total, res.Next, res.Cursors, page)
}
