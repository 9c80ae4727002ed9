package httpapi

import "github.com/lorekeep/lorekeep/shared/domain"

// List is what a family declares for the list of its records T held under a parent P (an
// entity's notes, a map's markers, a calendar's weather): MountList writes the handler once,
// as Mount writes the CRUD. The parent is checked first (a hidden one is a 404 like a missing
// one), then `?deleted=1` answers the list's tombstones instead of records, then the filters
// and the page are read and the store's page is rendered row by row.
type List[T any, P any, J any] struct {
	// Parent reads the visible parent of the path.
	Parent func(r *Request) (P, error)
	// ParentID is the parent's id, the tombstones' parent (domain.GoneQuery.Parent).
	ParentID func(P) int64
	// Gone names the list's tombstones (domain.GoneNotes), read from Tombstones; "" for a list
	// without `?deleted=1`.
	Gone       string
	Tombstones GoneReader
	// Filters are the query filters the list takes (domain.FilterChildren).
	Filters domain.FilterKeys
	// Read is the store's page of the records under p the caller may see.
	Read func(r *Request, p P, f domain.Filter, page domain.PageRequest) (domain.Page[T], error)
	// Rows renders the page, reading what the rows need once for them all; or Render renders
	// each row alone.
	Rows   func(r *Request, p P, items []T) ([]J, error)
	Render func(*T) J
	// Ahead names what the list reads first, with the campaign access.
	Ahead Ahead
}

// MountList registers l as the GET of collection.
func MountList[T, P, J any](a *API, collection string, l List[T, P, J]) {
	a.Handle("GET", collection, l.serve, l.Ahead)
}

func (l List[T, P, J]) serve(r *Request) (Reply, error) {
	p, err := l.Parent(r)
	if err != nil {
		return Reply{}, err
	}
	if l.Gone != "" {
		if reply, ok, err := r.Deletions(l.Tombstones, l.Gone, l.ParentID(p)); ok {
			return reply, err
		}
	}
	f, err := r.Filter(l.Filters)
	if err != nil {
		return Reply{}, err
	}
	page, err := r.Page()
	if err != nil {
		return Reply{}, err
	}
	res, err := l.Read(r, p, f, page)
	if err != nil {
		return Reply{}, err
	}
	if l.Rows == nil {
		return Page(res, page, l.Render), nil
	}
	rows, err := l.Rows(r, p, res.Items)
	if err != nil {
		return Reply{}, err
	}
	return Many(rows, res.Total, res.Next, res.Cursors, page), nil
}

// NoParent is the Parent of a campaign-wide list.
func NoParent(*Request) (None, error) { return None{}, nil }
