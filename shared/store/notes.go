package store

import (
	"context"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Notes live in their entity's partition: reachable only through that entity, and deleted with it.
type noteItem struct {
	layout.MetaAttrs
	EntityID   int64  `dynamo:"entity_id"`
	Name       string `dynamo:"name"`
	NameLC     string `dynamo:"name_lc,omitempty"`
	Entry      string `dynamo:"entry,omitempty"`
	Position   *int64 `dynamo:"position,omitempty"`
	Visibility string `dynamo:"visibility"`
	Collapsed  bool   `dynamo:"collapsed"`
}

func toNoteItem(n *domain.Note) noteItem {
	return noteItem{MetaAttrs: layout.ToMetaAttrs(layout.EntityPK(n.CampaignID, n.EntityID), layout.RecordSK(layout.NotePrefix, n.ID), n.Meta),
		EntityID: n.EntityID, Name: n.Name, NameLC: strings.ToLower(n.Name), Entry: n.Entry, Position: n.Position,
		Visibility: string(n.Visibility), Collapsed: n.Collapsed}
}

func (it noteItem) note() domain.Note {
	return domain.Note{Meta: it.Meta(), EntityID: it.EntityID, Name: it.Name, Entry: it.Entry,
		Position: it.Position, Visibility: domain.Visibility(it.Visibility), Collapsed: it.Collapsed}
}

func noteSlots(n *domain.Note) []layout.Slot {
	return append(layout.ChildSlots(layout.NotePrefix, layout.EntityPK(n.CampaignID, n.EntityID), n.ID, n.CreatedBy, n.Visibility, false),
		layout.RelatedSlot(n.CampaignID, n.EntityID, layout.NotePrefix, n.ID))
}

// getWithEntity reads an entity and one record (of kind, at either home key) of its partition
// (item type I) in one BatchGetItem; ErrNotFound unless both exist.
func getWithEntity[I any, T any](ctx context.Context, s *Store, cid, eid int64, kind string, id int64, record func(I) T) (*domain.Entity, *T, error) {
	var ei layout.EntityItem
	var it I
	var homes []layout.ItemKey
	for _, sk := range childHomeSKs(kind, id) {
		homes = append(homes, layout.ItemKey{PK: layout.EntityPK(cid, eid), SK: sk})
	}
	if err := s.getPair(ctx, layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, eid)}, homes, &ei, &it); err != nil {
		return nil, nil, err
	}
	t := record(it)
	return ei.Entity(), &t, nil
}

// GetNoteAndEntity reads a note and its entity in one round trip; ErrNotFound unless both exist.
func (s *Store) GetNoteAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Note, error) {
	return getWithEntity(ctx, s, cid, eid, layout.NotePrefix, id, noteItem.note)
}

// ListNotes reads one page of an entity's notes that the caller's visibility scope allows: the
// caller's audience range and its own range, never anyone else's.
func (s *Store) ListNotes(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Note], error) {
	l := listSpec{ranges: childRanges(layout.NotePrefix, layout.EntityPK(cid, eid), a)}
	l.filter(f)
	return listPage(ctx, s, l, p, noteItem.note)
}

// CreateNote stores a new note, on condition that its entity still exists.
func (s *Store) CreateNote(ctx context.Context, n *domain.Note) error {
	mentions, err := s.mentionPlan(ctx, "", n.Entry, mentionSource{}, postOf(n), false)
	if err != nil {
		return err
	}
	return s.createChild(ctx, &n.Meta, "note", func() any { return toNoteItem(n) }, func() []layout.Slot { return noteSlots(n) },
		s.exists(layout.CampaignPK(n.CampaignID), layout.RecordSK(layout.EntityPrefix, n.EntityID), apperr.ErrNotFound),
		synced(nil, func() *layout.SyncRef { return noteRef(n) }), mentions)
}

// postOf is the mention source of a note (its id read once it has one).
func postOf(n *domain.Note) mentionSource {
	v := n.Visibility
	if v == "" {
		v = domain.VisibilityAll
	}
	return mentionSource{cid: n.CampaignID, src: n.EntityID, post: func() int64 { return n.ID }, visibility: v, createdBy: n.CreatedBy}
}

// UpdateNote writes next over prev if nobody wrote since prev was read and the entity exists.
func (s *Store) UpdateNote(ctx context.Context, prev, next *domain.Note) error {
	mentions, err := s.mentionPlan(ctx, prev.Entry, next.Entry, postOf(prev), postOf(next), false)
	if err != nil {
		return err
	}
	return s.updateChild(ctx, &prev.Meta, &next.Meta, func() any { return toNoteItem(next) },
		func() []layout.Slot { return noteSlots(prev) }, func() []layout.Slot { return noteSlots(next) },
		s.exists(layout.CampaignPK(next.CampaignID), layout.RecordSK(layout.EntityPrefix, next.EntityID), apperr.ErrNotFound),
		synced(func() *layout.SyncRef { return noteRef(prev) }, func() *layout.SyncRef { return noteRef(next) }), mentions)
}

// DeleteNote deletes a note (its copies and counts) if nobody wrote since it was read.
func (s *Store) DeleteNote(ctx context.Context, n *domain.Note) error {
	mentions, err := s.mentionPlan(ctx, n.Entry, "", postOf(n), mentionSource{}, true)
	if err != nil {
		return err
	}
	return s.deleteChild(ctx, &n.Meta, noteSlots(n), synced(func() *layout.SyncRef { return noteRef(n) }, nil), mentions)
}
