// Package notestore is the entity notes family's storage: the note item and its kind on the
// kernel (package store), which keeps notes as children of their entity placed by visibility:
// home NOTE#id (SELF#NOTE#id for a `self` note) in the entity's partition, the audiences'
// copies and the creator's own range beside it, a copy in the entity's related=1 bucket, and
// the mentions of the entry. Reachable only through their entity, deleted with it.
package notestore

import (
	"context"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store"
)

type noteItem struct {
	store.MetaAttrs
	EntityID   int64  `dynamo:"entity_id"`
	Name       string `dynamo:"name"`
	NameLC     string `dynamo:"name_lc,omitempty"`
	Entry      string `dynamo:"entry,omitempty"`
	Position   *int64 `dynamo:"position,omitempty"`
	Visibility string `dynamo:"visibility"`
	Collapsed  bool   `dynamo:"collapsed"`
}

func toNoteItem(n *domain.Note) noteItem {
	return noteItem{MetaAttrs: store.VisibleChildHome(store.NoteKind, n.EntityID, n.Meta),
		EntityID: n.EntityID, Name: n.Name, NameLC: strings.ToLower(n.Name), Entry: n.Entry, Position: n.Position,
		Visibility: string(n.Visibility), Collapsed: n.Collapsed}
}

func (it noteItem) note() domain.Note {
	return domain.Note{Meta: it.Meta(), EntityID: it.EntityID, Name: it.Name, Entry: it.Entry,
		Position: it.Position, Visibility: domain.Visibility(it.Visibility), Collapsed: it.Collapsed}
}

type reflectedNote noteItem

// DecodeItem decodes a note item by hand (a posts page and related=1 decode one per row).
func (it *noteItem) DecodeItem(item dynamo.Item) error {
	return store.DecodeBy(item, func(a store.Attrs) bool {
		it.MetaAttrs.Read(&a)
		it.EntityID, it.Name, it.NameLC, it.Entry = a.Int("entity_id"), a.Str("name"), a.Str("name_lc"), a.Str("entry")
		it.Position, it.Visibility, it.Collapsed = a.OptInt("position"), a.Str("visibility"), a.Boolean("collapsed")
		return a.Bad
	}, (*reflectedNote)(it))
}

var notes = store.VisibleChildKind[domain.Note, noteItem]{
	Kind: store.NoteKind, Sequence: "note", Item: toNoteItem, Record: noteItem.note,
	Of: func(n *domain.Note) store.VisibleChild {
		return store.VisibleChild{Meta: &n.Meta, ParentID: n.EntityID, Visibility: n.Visibility, Entry: &n.Entry}
	},
}

func init() {
	store.DeclareRelated(store.NoteKind, func(item dynamo.Item, owner int64, out *timeline.Related) error {
		var it noteItem
		if err := it.DecodeItem(item); err != nil {
			return err
		}
		out.Notes[owner] = append(out.Notes[owner], it.note())
		return nil
	})
}

// Notes is the family's storage over the kernel, whose reads the family also uses (the
// entity, tombstones).
type Notes struct{ *store.Store }

// New wraps the kernel.
func New(st *store.Store) *Notes { return &Notes{st} }

// GetNoteAndEntity reads a note and its entity in one round trip; ErrNotFound unless both exist.
func (s *Notes) GetNoteAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Note, error) {
	return notes.GetWithEntity(ctx, s.Store, cid, eid, id)
}

// ListNotes reads one page of an entity's notes that the caller's visibility scope allows: the
// caller's audience range and its own range, never anyone else's.
func (s *Notes) ListNotes(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Note], error) {
	return notes.List(ctx, s.Store, cid, eid, a, f, p)
}

// CreateNote stores a new note, on condition that its entity still exists.
func (s *Notes) CreateNote(ctx context.Context, n *domain.Note) error {
	return notes.Create(ctx, s.Store, n)
}

// UpdateNote writes next over prev if nobody wrote since prev was read and the entity exists.
func (s *Notes) UpdateNote(ctx context.Context, prev, next *domain.Note) error {
	return notes.Update(ctx, s.Store, prev, next)
}

// DeleteNote deletes a note (its copies and counts) if nobody wrote since it was read.
func (s *Notes) DeleteNote(ctx context.Context, n *domain.Note) error {
	return notes.Delete(ctx, s.Store, n)
}

// The reads ahead of the family's routes.
var (
	ReadNote     = store.ChildRead(store.NoteKind) // and its entity
	ReadNoteList = store.ChildListRead(store.NoteKind)
)
