// Package entitynotes is the entity-notes family: its routes, under
// /api/1.0/campaigns/{campaign_id}/entities/{entity_id}/entity_notes (and Kanka's posts), its
// wire shapes (notewire) and its storage on the kernel (notestore). Its rules live in domain
// (note.go, access.go's visibility).
package entitynotes

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notewire"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes: the spec's entity_notes, and Kanka's current name for
// the same records, posts, answered in the post shape.
func Register(api *httpapi.API, kernel *store.Store) {
	h := handlers{st: notestore.New(kernel)}
	h.mount(api, "/entities/{entity_id}/entity_notes", func(n notewire.Note) any { return n })
	h.mount(api, "/entities/{entity_id}/posts", func(n notewire.Note) any { return notewire.AsPost(n) })
}

// mount declares the routes of one era's name for notes, shape being its answer's shape.
func (h handlers) mount(api *httpapi.API, collection string, shape func(notewire.Note) any) {
	httpapi.MountList(api, collection, httpapi.List[domain.Note, *domain.Entity, any]{
		Parent:   func(r *httpapi.Request) (*domain.Entity, error) { return r.VisibleEntity(h.st) },
		ParentID: func(e *domain.Entity) int64 { return e.ID }, Gone: domain.GoneNotes, Tombstones: h.st,
		Filters: domain.FilterChildren,
		Read: func(r *httpapi.Request, e *domain.Entity, f domain.Filter, page domain.PageRequest) (domain.Page[domain.Note], error) {
			return h.st.ListNotes(r.Context(), r.Access.CampaignID, e.ID, r.Access, f, page)
		},
		Rows: func(r *httpapi.Request, _ *domain.Entity, notes []domain.Note) ([]any, error) {
			out, err := notewire.Render(r, h.st, notes...)
			if err != nil {
				return nil, err
			}
			shaped := make([]any, len(out))
			for i, n := range out {
				shaped[i] = shape(n)
			}
			return shaped, nil
		},
		Ahead: httpapi.ReadAhead(notestore.ReadNoteList, "", "entity_id"),
	})
	httpapi.Mount(api, collection, collection+"/{id}", httpapi.Resource[domain.Note, *domain.Note, *domain.Entity]{
		Parent: func(r *httpapi.Request) (*domain.Entity, error) { return r.VisibleEntity(h.st) },
		Item:   httpapi.ReadAhead(notestore.ReadNote, "id", "entity_id"), Collection: httpapi.ReadAhead(store.ReadEntity, "entity_id", ""),
		Visible: h.visibleNote,
		New:     func(_ *httpapi.Request, e *domain.Entity) *domain.Note { return &domain.Note{EntityID: e.ID} },
		Apply: func(_ *httpapi.Request, in domain.Input, _ *domain.Entity, _, next *domain.Note) error {
			return next.Apply(in)
		},
		Create: h.st.CreateNote, Update: h.st.UpdateNote, Delete: h.st.DeleteNote,
		Render: func(r *httpapi.Request, n *domain.Note) (any, error) {
			out, err := notewire.Render(r, h.st, *n)
			if err != nil {
				return nil, err
			}
			return shape(out[0]), nil
		},
	})
}

type handlers struct{ st Store }

// visibleNote reads a note and its entity in one round trip: both must be visible.
func (h handlers) visibleNote(r *httpapi.Request) (*domain.Entity, *domain.Note, error) {
	return httpapi.EntityRecord(r, h.st.GetNoteAndEntity, func(n *domain.Note) bool {
		return r.Access.CanSeeVisibility(n.Visibility, n.CreatedBy)
	})
}
