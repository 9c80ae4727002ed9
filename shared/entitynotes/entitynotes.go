// Package entitynotes is the entity-notes family's HTTP surface, under
// /api/1.0/campaigns/{campaign_id}/entities/{entity_id}/entity_notes. Rules live in domain
// (note.go, access.go's visibility), storage in store (notes.go).
package entitynotes

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes: the spec's entity_notes and Kanka's current name for
// the same records, posts, answered in the post shape.
func Register(api *httpapi.API, st *store.Store) {
	mount(api, "/entities/{entity_id}/entity_notes", handlers{st: st, shape: func(n noteJSON) any { return n }})
	mount(api, "/entities/{entity_id}/posts", handlers{st: st, shape: func(n noteJSON) any { return asPost(n) }})
}

func mount(api *httpapi.API, collection string, h handlers) {
	api.Handle("GET", collection, h.list)
	api.Handle("POST", collection, h.create)
	api.Handle("GET", collection+"/{id}", h.show)
	api.Handle("PUT", collection+"/{id}", h.update)
	api.Handle("PATCH", collection+"/{id}", h.update)
	api.Handle("DELETE", collection+"/{id}", h.delete)
}

type handlers struct {
	st    *store.Store
	shape func(noteJSON) any // the era's shape of a rendered note
}

// visibleNote reads a note and its entity in one round trip: both must be visible.
func (h handlers) visibleNote(r *httpapi.Request) (*domain.Note, error) {
	eid, err := r.PathID("entity_id")
	if err != nil {
		return nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	e, n, err := h.st.GetNoteAndEntity(r.Context(), r.Access.CampaignID, eid, id)
	if err != nil {
		return nil, err
	}
	if err := r.Access.SeeEntity(e); err != nil {
		return nil, err
	}
	if !r.Access.CanSeeVisibility(n.Visibility, n.CreatedBy) {
		return nil, domain.ErrNotFound
	}
	return n, nil
}

func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	since, err := r.LastSync()
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListNotes(r.Context(), r.Access.CampaignID, e.ID, r.Access, domain.ChildFilter{UpdatedAfter: since}, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out, err := h.render(r, res.Items...)
	if err != nil {
		return httpapi.Reply{}, err
	}
	shaped := make([]any, len(out))
	for i, n := range out {
		shaped[i] = h.shape(n)
	}
	return httpapi.Many(shaped, res.Total, res.Next, page), nil
}

func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	n, err := h.visibleNote(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return h.one(r, n)
}

func (h handlers) one(r *httpapi.Request, n *domain.Note) (httpapi.Reply, error) {
	out, err := h.render(r, *n)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(h.shape(out[0])), nil
}

func (h handlers) create(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	n := &domain.Note{CampaignID: r.Access.CampaignID, EntityID: e.ID, CreatedBy: r.Access.UserID}
	if err := n.Apply(in); err != nil {
		return httpapi.Reply{}, err
	}
	if err := h.st.CreateNote(r.Context(), n); err != nil {
		return httpapi.Reply{}, err
	}
	return h.one(r, n)
}

func (h handlers) update(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	var next domain.Note
	err = domain.RetryConflicts(func() error {
		prev, err := h.visibleNote(r)
		if err != nil {
			return err
		}
		next = *prev
		next.UpdatedBy = r.Access.UserID
		if err := next.Apply(in); err != nil {
			return err
		}
		return h.st.UpdateNote(r.Context(), prev, &next)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return h.one(r, &next)
}

func (h handlers) delete(r *httpapi.Request) (httpapi.Reply, error) {
	if err := r.Access.CanWrite(); err != nil {
		return httpapi.Reply{}, err
	}
	var id int64
	err := domain.RetryConflicts(func() error {
		n, err := h.visibleNote(r)
		if err != nil {
			return err
		}
		id = n.ID
		return h.st.DeleteNote(r.Context(), n)
	})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Deleted(id), nil
}
