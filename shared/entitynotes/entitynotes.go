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
	httpapi.Mount(api, "/entities/{entity_id}/entity_notes", "/entities/{entity_id}/entity_notes/{id}", httpapi.Kind[domain.Note, *domain.Note, *domain.Entity]{
		Parent:  func(r *httpapi.Request) (*domain.Entity, error) { return r.VisibleEntity(st) },
		Visible: h.visibleNote,
		New:     func(_ *httpapi.Request, e *domain.Entity) *domain.Note { return &domain.Note{EntityID: e.ID} },
		Apply: func(_ *httpapi.Request, in domain.Input, _ *domain.Entity, _, next *domain.Note) error {
			return next.Apply(in)
		},
		Create: st.CreateNote, Update: st.UpdateNote, Delete: st.DeleteNote,
		Render: func(r *httpapi.Request, n *domain.Note) (any, error) {
			out, err := h.render(r, *n)
			if err != nil {
				return nil, err
			}
			return out[0], nil
		},
	})
}

type handlers struct{ st *store.Store }

// visibleNote reads a note and its entity in one round trip: both must be visible.
func (h handlers) visibleNote(r *httpapi.Request) (*domain.Entity, *domain.Note, error) {
	return httpapi.EntityRecord(r, h.st.GetNoteAndEntity, func(n *domain.Note) bool {
		return r.Access.CanSeeVisibility(n.Visibility, n.CreatedBy)
	})
}

func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	e, f, page, err := r.EntityList(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
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
