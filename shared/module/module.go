// Package module declares the routes of one of Kanka's entity modules, a record kind that owns
// an entity (locations, calendars, tags, maps): its list and its CRUD, each row and each record
// rendered the same way, with the ?related=1 arrays and entry_parsed. A family states what
// differs (its storage calls, filters, render); the list's deletions, filter, paging and the
// related arrays are written once, here.
package module

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is what every module's routes read besides the module's own calls.
type Store interface {
	httpapi.GoneReader
	embeds.Store
}

// Routes is one module's declaration, for Mount. T is the record, J its JSON shape.
type Routes[T any, PT domain.Record[T], J any] struct {
	Type       string // the entity type: "location"
	Collection string // "/locations"; the item is Collection + "/{id}"
	Gone       string // the list's ?deleted=1 rows: domain.GoneLocations
	// Filter reads the list's filters; nil: the records' filters (domain.FilterRecords).
	Filter func(r *httpapi.Request) (domain.Filter, error)
	List   func(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[T], error)
	// ListAhead names what the list reads first, with the campaign access.
	ListAhead httpapi.Ahead
	// Subjects are the records whose related arrays ?related=1 reads.
	Subjects func([]T) []embeds.Subject
	// Row prepares the rendering of records (a page, or the one record of a show): what the
	// page needs is read once here, then the returned func renders each record.
	Row func(r *httpapi.Request, records []T) (func(*T) J, error)
	// Show adds to a record's own answer (a show, a write's reply) what list rows do not hold
	// (a tag's entities); nil: nothing.
	Show func(r *httpapi.Request, t PT, j *J) error
	// Arrays and Owner are the parts of J Mount fills: the related arrays, and the owner's
	// fields (entry_parsed).
	Arrays func(*J) **embeds.Arrays
	Owner  func(*J) *httpapi.OwnerJSON
	// CRUD is the kind's create, show, update and delete; Mount sets its Render.
	CRUD httpapi.Resource[T, PT, httpapi.None]
}

// Mount registers k's list and CRUD routes, and answers the CRUD with its Render for the
// kind's other writes (a calendar's advance).
func Mount[T any, PT domain.Record[T], J any](api *httpapi.API, st Store, k Routes[T, PT, J]) httpapi.Resource[T, PT, httpapi.None] {
	api.Handle("GET", k.Collection, func(r *httpapi.Request) (httpapi.Reply, error) { return k.list(r, st) }, k.ListAhead)
	crud := k.CRUD
	crud.Render = func(r *httpapi.Request, t PT) (any, error) {
		row, err := k.rows(r, st, []T{*t})
		if err != nil {
			return nil, err
		}
		j := row(t)
		if k.Show != nil {
			if err := k.Show(r, t, &j); err != nil {
				return nil, err
			}
		}
		return httpapi.OwnerRender(r, st, k.Type, j, k.Owner)
	}
	httpapi.Mount(api, k.Collection, k.Collection+"/{id}", crud)
	return crud
}

func (k Routes[T, PT, J]) list(r *httpapi.Request, st Store) (httpapi.Reply, error) {
	if reply, ok, err := r.Deletions(st, k.Gone, 0); ok {
		return reply, err
	}
	var f domain.Filter
	var err error
	if k.Filter != nil {
		f, err = k.Filter(r)
	} else {
		f, err = r.Filter(domain.FilterRecords)
	}
	if err != nil {
		return httpapi.Reply{}, err
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res, err := k.List(r.Context(), r.Access.CampaignID, f, !r.Access.IsAdmin(), page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	row, err := k.rows(r, st, res.Items)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.OwnerPage(r, st, k.Type, res, page, row, k.Owner)
}

// rows is Row with each record's related arrays (read for all of records at once) set. Without
// ?related=1 it is Row itself: setting the arrays through a pointer handed to a func value moved
// each row to the heap.
func (k Routes[T, PT, J]) rows(r *httpapi.Request, st Store, records []T) (func(*T) J, error) {
	on, err := r.Related()
	if err != nil {
		return nil, err
	}
	var arrays map[int64]*embeds.Arrays
	if on {
		if arrays, err = embeds.ByID(r, st, k.Subjects(records)); err != nil {
			return nil, err
		}
	}
	row, err := k.Row(r, records)
	if err != nil || !on {
		return row, err
	}
	return func(t *T) J {
		j := row(t)
		*k.Arrays(&j) = arrays[PT(t).Base().ID]
		return j
	}, nil
}
