package store

import (
	"context"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

const notePrefix = "NOTE"

// Notes live in their entity's partition: reachable only through that entity, and deleted with it.
type noteItem struct {
	metaAttrs
	EntityID   int64  `dynamo:"entity_id"`
	Name       string `dynamo:"name"`
	Entry      string `dynamo:"entry,omitempty"`
	Position   *int64 `dynamo:"position,omitempty"`
	Visibility string `dynamo:"visibility"`
	Collapsed  bool   `dynamo:"collapsed"`
}

func entityPK(cid, eid int64) string { return childPK(cid, entityPrefix, eid) }

func toNoteItem(n *domain.Note) noteItem {
	return noteItem{metaAttrs: toMetaAttrs(entityPK(n.CampaignID, n.EntityID), recordSK(notePrefix, n.ID), n.Meta),
		EntityID: n.EntityID, Name: n.Name, Entry: n.Entry, Position: n.Position,
		Visibility: string(n.Visibility), Collapsed: n.Collapsed}
}

func (it noteItem) note() domain.Note {
	return domain.Note{Meta: it.meta(), EntityID: it.EntityID, Name: it.Name, Entry: it.Entry,
		Position: it.Position, Visibility: domain.Visibility(it.Visibility), Collapsed: it.Collapsed}
}

// getWithEntity reads an entity and one record of its partition (item type I) in one
// BatchGetItem; ErrNotFound unless both exist.
func getWithEntity[I any, T any](ctx context.Context, s *Store, cid, eid int64, sk string, record func(I) T) (*domain.Entity, *T, error) {
	var ei entityItem
	var it I
	if err := s.getPair(ctx, dynamo.Keys{campaignPK(cid), recordSK(entityPrefix, eid)}, dynamo.Keys{entityPK(cid, eid), sk}, &ei, &it); err != nil {
		return nil, nil, err
	}
	t := record(it)
	return ei.entity(), &t, nil
}

// GetNoteAndEntity reads a note and its entity in one round trip; ErrNotFound unless both exist.
func (s *Store) GetNoteAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Note, error) {
	return getWithEntity(ctx, s, cid, eid, recordSK(notePrefix, id), noteItem.note)
}

// ListNotes reads one page of an entity's notes that the caller's visibility scope allows.
func (s *Store) ListNotes(ctx context.Context, cid, eid int64, a domain.Access, f domain.ChildFilter, p domain.PageRequest) (domain.Page[domain.Note], error) {
	l := listSpec{pk: entityPK(cid, eid), prefix: notePrefix + "#"}
	l.childFilter(a, f)
	return listPage(ctx, s, l, p, noteItem.note)
}

// CreateNote stores a new note, on condition that its entity still exists.
func (s *Store) CreateNote(ctx context.Context, n *domain.Note) error {
	return s.createChild(ctx, &n.Meta, "note", func() any { return toNoteItem(n) },
		[]*dynamo.ConditionCheck{s.exists(campaignPK(n.CampaignID), recordSK(entityPrefix, n.EntityID))})
}

// UpdateNote writes next over prev if nobody wrote since prev was read.
func (s *Store) UpdateNote(ctx context.Context, prev, next *domain.Note) error {
	s.stampUpdate(&prev.Meta, &next.Meta)
	return wrap(s.table.Put(toNoteItem(next)).If(ifVersion, prev.Version).Run(ctx))
}

// DeleteNote deletes a note if nobody wrote since it was read.
func (s *Store) DeleteNote(ctx context.Context, n *domain.Note) error {
	return wrap(s.table.Delete("pk", entityPK(n.CampaignID, n.EntityID)).Range("sk", recordSK(notePrefix, n.ID)).
		If(ifVersion, n.Version).Run(ctx))
}
