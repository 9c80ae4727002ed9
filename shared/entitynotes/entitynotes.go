// Package entitynotes is the entity-notes family's HTTP surface, under
// /api/1.0/campaigns/{campaign_id}/entities/{entity_id}/entity_notes. Rules live in domain
// (note.go, access.go's visibility), storage in store (notes.go).
package entitynotes

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes.
func Register(api *httpapi.API, st *store.Store) {
	h := handlers{st: st}
	api.Handle("GET", "/entities/{entity_id}/entity_notes", h.list)
	api.Handle("POST", "/entities/{entity_id}/entity_notes", h.create)
	api.Handle("GET", "/entities/{entity_id}/entity_notes/{id}", h.show)
	api.Handle("PUT", "/entities/{entity_id}/entity_notes/{id}", h.update)
	api.Handle("PATCH", "/entities/{entity_id}/entity_notes/{id}", h.update)
	api.Handle("DELETE", "/entities/{entity_id}/entity_notes/{id}", h.delete)
}

type handlers struct{ st *store.Store }

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
	f, err := r.Filter(domain.FilterName | domain.FilterAuthors | domain.FilterSync)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListNotes(r.Context(), r.Access.CampaignID, e.ID, r.Access, f, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out, err := h.render(r, res.Items...)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Many(out, res.Total, res.Next, page), nil
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
	return httpapi.One(out[0]), nil
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
