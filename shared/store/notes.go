package store

import (
	"context"
	"errors"
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
	NameLC     string `dynamo:"name_lc,omitempty"`
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
		CampaignID: n.CampaignID, EntityID: n.EntityID, Name: n.Name, NameLC: strings.ToLower(n.Name), Entry: n.Entry, Position: n.Position,
		Visibility: string(n.Visibility), Collapsed: n.Collapsed, CreatedAt: formatTime(n.CreatedAt),
		UpdatedAt: formatTime(n.UpdatedAt), CreatedBy: n.CreatedBy, UpdatedBy: n.UpdatedBy, Version: n.Version}
}

func (it noteItem) note() domain.Note {
	return domain.Note{ID: it.ID, CampaignID: it.CampaignID, EntityID: it.EntityID, Name: it.Name, Entry: it.Entry,
		Position: it.Position, Visibility: domain.Visibility(it.Visibility), Collapsed: it.Collapsed,
		CreatedAt: parseTime(it.CreatedAt), UpdatedAt: parseTime(it.UpdatedAt), CreatedBy: it.CreatedBy,
		UpdatedBy: it.UpdatedBy, Version: it.Version}
}

// getWithEntity reads an entity and one record of its partition in one BatchGetItem. Either may
// come back nil.
func (s *Store) getWithEntity(ctx context.Context, cid, eid int64, sk string, rec any) (*domain.Entity, bool, error) {
	var items []dynamo.Item
	err := s.table.Batch("pk", "sk").Get(
		dynamo.Keys{campaignPK(cid), recordSK(entityPrefix, eid)},
		dynamo.Keys{entityPK(cid, eid), sk},
	).Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, false, wrap(err)
	}
	var e *domain.Entity
	found := false
	for _, it := range items {
		var key string
		_ = dynamo.Unmarshal(it["sk"], &key)
		if strings.HasPrefix(key, entityPrefix+"#") {
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
	e, found, err := s.getWithEntity(ctx, cid, eid, recordSK(notePrefix, id), &it)
	if err != nil {
		return nil, nil, err
	}
	if e == nil || !found {
		return nil, nil, domain.ErrNotFound
	}
	n := it.note()
	return e, &n, nil
}

// ListNotes reads one page of an entity's notes that the caller's visibility scope allows.
func (s *Store) ListNotes(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Note], error) {
	l := listSpec{pk: entityPK(cid, eid), prefix: notePrefix + "#"}
	anyone, own := a.VisibilityScope()
	l.visibleTo(anyone, own, a.UserID)
	l.filter(f)
	page, err := listPage[noteItem](ctx, s, l, p)
	out := domain.Page[domain.Note]{Total: page.Total, Next: page.Next, Items: make([]domain.Note, len(page.Items))}
	for i, it := range page.Items {
		out.Items[i] = it.note()
	}
	return out, err
}

// CreateNote stores a new note, on condition that its entity still exists.
func (s *Store) CreateNote(ctx context.Context, n *domain.Note) error {
	ids, err := s.nextIDs(ctx, campaignPK(n.CampaignID), "note")
	if err != nil {
		return err
	}
	now := s.now()
	n.ID, n.Version, n.CreatedAt, n.UpdatedAt, n.UpdatedBy = ids[0], 1, now, now, n.CreatedBy
	err = s.db.WriteTx().
		Check(s.table.Check("pk", campaignPK(n.CampaignID)).Range("sk", recordSK(entityPrefix, n.EntityID)).IfExists()).
		Put(s.table.Put(toNoteItem(n)).If("attribute_not_exists(pk)")).
		Run(ctx)
	if wrap(err) == domain.ErrConflict {
		return domain.ErrNotFound
	}
	return wrap(err)
}

// UpdateNote writes next over prev if nobody wrote since prev was read.
func (s *Store) UpdateNote(ctx context.Context, prev, next *domain.Note) error {
	next.Version, next.UpdatedAt = prev.Version+1, s.now()
	return wrap(s.table.Put(toNoteItem(next)).If("'version' = ?", prev.Version).Run(ctx))
}

// DeleteNote deletes a note if nobody wrote since it was read.
func (s *Store) DeleteNote(ctx context.Context, n *domain.Note) error {
	return wrap(s.table.Delete("pk", entityPK(n.CampaignID, n.EntityID)).Range("sk", recordSK(notePrefix, n.ID)).
		If("'version' = ?", n.Version).Run(ctx))
}
