package domain

import (
	"encoding/base64"
	"sort"
	"strconv"
)

// PageRequest is a client's page of a list: 1-based Page, Limit items, and the opaque cursor a
// previous page's next link carried (it makes following next one query however deep).
type PageRequest struct {
	Page   int
	Limit  int
	Cursor string
}

// Page sizes, as Kanka's.
const (
	DefaultPageSize = 45
	MaxPageSize     = 100
)

// Page is one page of a list. Next is the cursor of the following page, "" on the last page;
// Cursors[i] continues the list right after Items[i], so that a page cut short (by its size in
// bytes) can still link to exactly what follows.
type Page[T any] struct {
	Items   []T
	Total   int
	Next    string
	Cursors []string
}

// EncodeCursor is the cursor that continues a list right after the record with id: the one
// spelling of cursors, whoever cuts the page (the store's ranges, PageOf).
func EncodeCursor(id int64) string {
	var digits [20]byte // on the stack: a list page encodes one cursor per row
	return base64.RawURLEncoding.EncodeToString(strconv.AppendInt(digits[:0], id, 10))
}

// DecodeCursor reads a cursor; ok is false for none and for one that is not a valid id.
func DecodeCursor(c string) (id int64, ok bool) {
	if c == "" {
		return 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	id, err = strconv.ParseInt(string(b), 10, 64)
	if err != nil || id < 1 || id > MaxID {
		return 0, false
	}
	return id, true
}

// PageOf cuts page p out of items, which are in ascending id order (id gives a record's id):
// right after the cursor's record when p carries one, else by page number. Its cursors are
// real ones, as the store's pages have, so a list held in memory pages like any other.
func PageOf[T any](items []T, p PageRequest, id func(*T) int64) Page[T] {
	from := 0
	if after, ok := DecodeCursor(p.Cursor); ok {
		from = sort.Search(len(items), func(i int) bool { return id(&items[i]) > after })
	} else {
		from = min((p.Page-1)*p.Limit, len(items))
	}
	to := min(from+p.Limit, len(items))
	out := Page[T]{Items: items[from:to:to], Total: len(items), Cursors: make([]string, to-from)}
	for i := range out.Items {
		out.Cursors[i] = EncodeCursor(id(&out.Items[i]))
	}
	if to < len(items) && to > from {
		out.Next = out.Cursors[len(out.Cursors)-1]
	}
	return out
}
