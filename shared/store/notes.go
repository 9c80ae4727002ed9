package store

import (
	"context"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

const notePrefix = "NOTE"

// Notes live in their entity's partition: reachable only through that entity, and deleted with it.
type noteItem struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	ID         int64  `dynamo:"id"`
	CampaignID int64  `dynamo:"campaign_id"`
	EntityID   int64  `dynamo:"entity_id"`
	Name       string `dynamo:"name"`
	Entry      string `dynamo:"entry,omitempty"`
	Position   *int64 `dynamo:"position,omitempty"`
	Visibility string `dynamo:"visibility"`
	Collapsed  bool   `dynamo:"collapsed"`
	CreatedAt  string `dynamo:"created_at"`
	UpdatedAt  string `dynamo:"updated_at"`
	CreatedBy  int64  `dynamo:"created_by"`
	UpdatedBy  int64  `dynamo:"updated_by"`
	Version    int64  `dynamo:"version"`
}

func entityPK(cid, eid int64) string { return childPK(cid, entityPrefix, eid) }

func toNoteItem(n *domain.Note) noteItem {
	return noteItem{PK: entityPK(n.CampaignID, n.EntityID), SK: recordSK(notePrefix, n.ID), ID: n.ID,
		CampaignID: n.CampaignID, EntityID: n.EntityID, Name: n.Name, Entry: n.Entry, Position: n.Position,
		Visibility: string(n.Visibility), Collapsed: n.Collapsed, CreatedAt: formatTime(n.CreatedAt),
		UpdatedAt: formatTime(n.UpdatedAt), CreatedBy: n.CreatedBy, UpdatedBy: n.UpdatedBy, Version: n.Version}
}

func (it noteItem) note() domain.Note {
	return domain.Note{ID: it.ID, CampaignID: it.CampaignID, EntityID: it.EntityID, Name: it.Name, Entry: it.Entry,
		Position: it.Position, Visibility: domain.Visibility(it.Visibility), Collapsed: it.Collapsed,
		CreatedAt: parseTime(it.CreatedAt), UpdatedAt: parseTime(it.UpdatedAt), CreatedBy: it.CreatedBy,
		UpdatedBy: it.UpdatedBy, Version: it.Version}
}

func noteSlots(n *domain.Note) []slot {
	return childSlots(notePrefix, entityPK(n.CampaignID, n.EntityID), n.ID, n.CreatedBy, n.Visibility, false)
}

// getWithEntity reads an entity and one record of its partition (at either home key) in one
// BatchGetItem. Either may come back nil.
func (s *Store) getWithEntity(ctx context.Context, cid, eid int64, kind string, id int64, rec any) (*domain.Entity, bool, error) {
	keys := []itemKey{{campaignPK(cid), recordSK(entityPrefix, eid)}}
	for _, sk := range childHomeSKs(kind, id) {
		keys = append(keys, itemKey{entityPK(cid, eid), sk})
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, false, err
	}
	var e *domain.Entity
	found := false
	for k, it := range got {
		if strings.HasPrefix(k.sk, entityPrefix+"#") {
			var ei entityItem
			if err := dynamo.UnmarshalItem(it, &ei); err != nil {
				return nil, false, err
			}
			e = ei.entity()
			continue
		}
		if err := dynamo.UnmarshalItem(it, rec); err != nil {
			return nil, false, err
		}
		found = true
	}
	return e, found, nil
}

// GetNoteAndEntity reads a note and its entity in one round trip; ErrNotFound unless both exist.
func (s *Store) GetNoteAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Note, error) {
	var it noteItem
	e, found, err := s.getWithEntity(ctx, cid, eid, notePrefix, id, &it)
	if err != nil {
		return nil, nil, err
	}
	if e == nil || !found {
		return nil, nil, domain.ErrNotFound
	}
	n := it.note()
	return e, &n, nil
}

// ListNotes reads one page of an entity's notes that the caller's visibility scope allows: the
// caller's audience range and its own range, never anyone else's.
func (s *Store) ListNotes(ctx context.Context, cid, eid int64, a domain.Access, f domain.ChildFilter, p domain.PageRequest) (domain.Page[domain.Note], error) {
	l := listSpec{ranges: childRanges(notePrefix, entityPK(cid, eid), a)}
	if f.UpdatedAfter != nil {
		l.where("'updated_at' > ?", formatTime(*f.UpdatedAfter))
	}
	page, err := listPage[noteItem](ctx, s, l, p, nil)
	out := domain.Page[domain.Note]{Total: page.Total, Next: page.Next, Items: make([]domain.Note, len(page.Items))}
	for i, it := range page.Items {
		out.Items[i] = it.note()
	}
	return out, err
}

// checkEntity makes a write conditional on entity eid existing: an entity whose owner is being
// deleted is gone from the first step, so no child lands in a partition being cleared.
func (s *Store) checkEntity(cid, eid int64) func(*txBuilder) {
	return func(b *txBuilder) {
		b.check(s.table.Check("pk", campaignPK(cid)).Range("sk", recordSK(entityPrefix, eid)).IfExists())
	}
}

// CreateNote stores a new note, on condition that its entity still exists.
func (s *Store) CreateNote(ctx context.Context, n *domain.Note) error {
	ids, err := s.nextIDs(ctx, campaignPK(n.CampaignID), "note")
	if err != nil {
		return err
	}
	now := s.now()
	n.ID, n.Version, n.CreatedAt, n.UpdatedAt, n.UpdatedBy = ids[0], 1, now, now, n.CreatedBy
	b := s.newTx()
	s.checkEntity(n.CampaignID, n.EntityID)(b)
	b.place(marshal(toNoteItem(n)), nil, noteSlots(n), 0)
	return notFoundOnConflict(b.run(ctx))
}

// notFoundOnConflict maps a failed create, whose only conditions are its parents', to 404.
func notFoundOnConflict(err error) error {
	if err == domain.ErrConflict {
		return domain.ErrNotFound
	}
	return err
}

// UpdateNote writes next over prev if nobody wrote since prev was read and the entity exists.
func (s *Store) UpdateNote(ctx context.Context, prev, next *domain.Note) error {
	next.Version, next.UpdatedAt = prev.Version+1, s.now()
	b := s.newTx()
	s.checkEntity(next.CampaignID, next.EntityID)(b)
	b.place(marshal(toNoteItem(next)), noteSlots(prev), noteSlots(next), prev.Version)
	return b.run(ctx)
}

// DeleteNote deletes a note (and its copies and counts) if nobody wrote since it was read.
func (s *Store) DeleteNote(ctx context.Context, n *domain.Note) error {
	b := s.newTx()
	b.remove(noteSlots(n), n.Version)
	return b.run(ctx)
}
