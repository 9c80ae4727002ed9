package store

import (
	"context"
	"errors"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// What ?related=1 reads besides the record (DESIGN.md 9).

// VisibleNotesAndEvents reads every note and event of an entity that the caller may see, in id
// order: one Query of the entity's partition (more only past 1 MB). What the caller may not see
// is filtered out by DynamoDB, by the same visibility scope as the lists.
func (s *Store) VisibleNotesAndEvents(ctx context.Context, cid, eid int64, a domain.Access) ([]domain.Note, []domain.Event, error) {
	l := listSpec{pk: entityPK(cid, eid)}
	l.visibleTo(a)
	if !a.IsAdmin() { // notes have no is_private; events may
		l.where("(attribute_not_exists('is_private') OR 'is_private' = ?)", false)
	}
	var rows []dynamo.Item
	if err := l.filtered(s.table.Get("pk", l.pk).Consistent(true)).All(ctx, &rows); err != nil {
		return nil, nil, wrap(err)
	}
	var notes []domain.Note
	var evs []domain.Event
	for _, row := range rows {
		var sk string
		_ = dynamo.Unmarshal(row["sk"], &sk)
		switch {
		case strings.HasPrefix(sk, notePrefix+"#"):
			var it noteItem
			if err := dynamo.UnmarshalItem(row, &it); err != nil {
				return nil, nil, err
			}
			notes = append(notes, it.note())
		case strings.HasPrefix(sk, eventPrefix+"#"):
			var it eventItem
			if err := dynamo.UnmarshalItem(row, &it); err != nil {
				return nil, nil, err
			}
			evs = append(evs, it.event())
		}
	}
	return notes, evs, nil
}

// ChildLocationIDs reads the ids of a location's direct children, through the parent index:
// one Query. hidePrivate leaves out private children.
func (s *Store) ChildLocationIDs(ctx context.Context, cid, lid int64, hidePrivate bool) ([]int64, error) {
	l := listSpec{hidePrivate: hidePrivate}
	var rows []struct {
		ID int64 `dynamo:"id"`
	}
	q := s.table.Get("gsi1pk", parentGSI(cid, lid)).Index(GSI1).Project("id")
	if err := l.filtered(q).All(ctx, &rows); err != nil {
		return nil, wrap(err)
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids, nil
}

// LocationLinks reads the id, privacy and parent of the campaign's locations with the given ids:
// one BatchGetItem per 100 ids. Missing ones are absent from the map.
func (s *Store) LocationLinks(ctx context.Context, cid int64, ids []int64) (map[int64]domain.AncestorLink, error) {
	out := map[int64]domain.AncestorLink{}
	if len(ids) == 0 {
		return out, nil
	}
	keys := make([]dynamo.Keyed, 0, len(ids))
	seen := map[int64]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			keys = append(keys, dynamo.Keys{campaignPK(cid), recordSK(locationPrefix, id)})
		}
	}
	var rows []struct {
		ID        int64  `dynamo:"id"`
		IsPrivate bool   `dynamo:"is_private"`
		ParentID  *int64 `dynamo:"parent_location_id"`
	}
	err := s.table.Batch("pk", "sk").Get(keys...).Project("id", "is_private", "parent_location_id").Consistent(true).All(ctx, &rows)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, wrap(err)
	}
	for _, r := range rows {
		out[r.ID] = domain.AncestorLink{ID: r.ID, IsPrivate: r.IsPrivate, ParentID: r.ParentID}
	}
	return out, nil
}
