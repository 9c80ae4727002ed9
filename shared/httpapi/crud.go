package httpapi

import (
	"context"
	"errors"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Resource is what a family declares for the one CRUD path of its records T (PT is *T), held in the
// path under a parent P: nothing (None) for campaign records, a location, an entity. Mount
// registers create, show, update and delete; the write access of the caller is checked by Handle.
type Resource[T any, PT domain.Record[T], P any] struct {
	// Parent reads the visible parent of the collection path, for create; nil when there is none.
	Parent func(r *Request) (P, error)
	// Visible reads the record of the path and its parent; a hidden one is ErrNotFound.
	Visible func(r *Request) (P, PT, error)
	// New starts a record under p; the campaign and creator are set by the path. Nil: a zero T.
	New func(r *Request, p P) PT
	// Apply merges the body into next (a copy of prev, or a new record with prev nil) and checks
	// every rule, the store's included.
	Apply func(r *Request, in domain.Input, p P, prev, next PT) error
	// Create, Update and Delete are the store's writes; Update and Delete are conditional on the
	// version read (ErrConflict otherwise, which retries).
	Create func(ctx context.Context, t PT) error
	Update func(ctx context.Context, prev, next PT) error
	Delete func(ctx context.Context, t PT) error
	// Render shapes a record for the caller.
	Render func(r *Request, t PT) (any, error)
	// Item and Collection name what the item routes and create read first, read ahead with the
	// campaign access (nil: nothing).
	Item, Collection Ahead
	// Resume finishes a delete of record {id} that failed after its first step, reporting
	// whether there was one (nil: deletes are one step).
	Resume func(ctx context.Context, cid, id int64) (bool, error)
}

// None is the parent of records that hang from the campaign itself.
type None struct{}

// Mount registers the CRUD routes of k on collection ("/calendars") and item
// ("/calendars/{id}").
func Mount[T any, PT domain.Record[T], P any](a *API, collection, item string, k Resource[T, PT, P]) {
	a.Handle("POST", collection, k.create, k.Collection)
	a.Handle("GET", item, k.show, k.Item)
	a.Handle("PUT", item, k.update, k.Item)
	a.Handle("PATCH", item, k.update, k.Item)
	a.Handle("DELETE", item, k.delete, k.Item)
}

func (k Resource[T, PT, P]) reply(r *Request, t PT) (Reply, error) {
	v, err := k.Render(r, t)
	if err != nil {
		return Reply{}, err
	}
	return One(v), nil
}

func (k Resource[T, PT, P]) show(r *Request) (Reply, error) {
	_, t, err := k.Visible(r)
	if err != nil {
		return Reply{}, err
	}
	return k.reply(r, t)
}

func (k Resource[T, PT, P]) create(r *Request) (Reply, error) {
	var p P
	if k.Parent != nil {
		var err error
		if p, err = k.Parent(r); err != nil {
			return Reply{}, err
		}
	}
	in, err := r.Input()
	if err != nil {
		return Reply{}, err
	}
	t := PT(new(T))
	if k.New != nil {
		t = k.New(r, p)
	}
	t.Base().CampaignID, t.Base().CreatedBy = r.Access.CampaignID, r.Access.UserID
	if err := k.Apply(r, in, p, nil, t); err != nil {
		return Reply{}, err
	}
	reply, err := r.Commit(func() error { return k.Create(r.Context(), t) }, func() (Reply, error) { return k.reply(r, t) })
	r.settleImage(err)
	return reply, err
}

func (k Resource[T, PT, P]) update(r *Request) (Reply, error) {
	in, err := r.Input()
	if err != nil {
		return Reply{}, err
	}
	return k.Write(r, func(p P, prev, next PT) error { return k.Apply(r, in, p, prev, next) })
}

// Write reads the visible record of the path, changes a copy with change and stores it on
// condition of the version read; a lost race re-reads and re-applies the change.
func (k Resource[T, PT, P]) Write(r *Request, change func(p P, prev, next PT) error) (reply Reply, err error) {
	var next PT
	defer func() { r.settleImage(err) }()
	return r.Commit(func() error {
		return apperr.RetryConflicts(r.Context(), func() error {
			p, prev, err := k.Visible(r)
			if err != nil {
				return err
			}
			next = prev.Clone()
			next.Base().UpdatedBy = r.Access.UserID
			if err := change(p, prev, next); err != nil {
				return err
			}
			return k.Update(r.Context(), prev, next)
		})
	}, func() (Reply, error) { return k.reply(r, next) })
}

func (k Resource[T, PT, P]) delete(r *Request) (Reply, error) {
	var id int64
	reply, err := r.Commit(func() error {
		return apperr.RetryConflicts(r.Context(), func() error {
			_, t, err := k.Visible(r)
			if err != nil {
				return err
			}
			id = t.Base().ID
			return k.Delete(r.Context(), t)
		})
	}, func() (Reply, error) { return Deleted(id), nil })
	if errors.Is(err, apperr.ErrNotFound) && k.Resume != nil {
		// A delete that failed after its first step left the record invisible, its cascade
		// pending: a retry finishes it.
		if pid, perr := r.PathID("id"); perr == nil {
			done, rerr := k.Resume(r.Context(), r.Access.CampaignID, pid)
			if rerr != nil {
				return Reply{}, rerr
			}
			if done {
				return Deleted(pid), nil
			}
		}
	}
	return reply, err
}
