// Package entityrows is what the families whose rows are an entity's references (inventory,
// entity abilities: store.References) share on their routes under entities/{entity_id}: the
// path's entity as the caller may see it, with its record's references, and the row of the
// path's id among those the caller may see.
package entityrows

import (
	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Entity reads the path's entity (entity_id), which the caller must see, and the references
// its record holds (one read of the entity, one of the record's references).
func Entity(r *httpapi.Request, refs store.References) (*domain.Entity, []domain.Reference, error) {
	eid, err := r.PathID("entity_id")
	if err != nil {
		return nil, nil, err
	}
	e, held, err := refs.Owner(r.Context(), r.Access.CampaignID, eid)
	if err == nil {
		err = r.Access.SeeEntity(e)
	}
	return e, held, err
}

// Find is the row among rows (those the caller may see) whose key is the path's id; a row
// the caller may not see is a 404 like a missing one.
func Find[T any](r *httpapi.Request, rows []T, key func(T) int64) (T, error) {
	var zero T
	id, err := r.PathID("id")
	if err != nil {
		return zero, err
	}
	for _, x := range rows {
		if key(x) == id {
			return x, nil
		}
	}
	return zero, apperr.ErrNotFound
}

// Write opens a write of a row: the caller may write, the path's entity it may see (with its
// references) and the body.
func Write(r *httpapi.Request, refs store.References) (*domain.Entity, []domain.Reference, domain.Input, error) {
	if err := r.Access.CanWrite(); err != nil {
		return nil, nil, nil, err
	}
	e, held, err := Entity(r, refs)
	if err != nil {
		return nil, nil, nil, err
	}
	in, err := r.Input()
	return e, held, in, err
}

// Parent is a list's parent: the path's entity and its record's references, read once for the
// whole list (ParentOf).
type Parent struct {
	Entity *domain.Entity
	Refs   []domain.Reference
}

// ParentOf reads the list's parent (Entity).
func ParentOf(refs store.References) func(*httpapi.Request) (*Parent, error) {
	return func(r *httpapi.Request) (*Parent, error) {
		e, held, err := Entity(r, refs)
		return &Parent{Entity: e, Refs: held}, err
	}
}

// ParentID is a list parent's entity id (its tombstones' parent).
func ParentID(p *Parent) int64 { return p.Entity.ID }
