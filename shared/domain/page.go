package domain

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
