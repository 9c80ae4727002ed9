package store

import (
	"context"
	"errors"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// What ?related=1 reads besides the record (DESIGN.md 9).

// NotesAndEvents is one read of an entity's notes and events.
type NotesAndEvents = func(ctx context.Context) ([]domain.Note, []timeline.Event, error)

// VisibleNotesAndEvents returns the reads of every note and event of an entity that the caller
// may see: one Query per range of the caller's (childRanges), which hold only what it may see.
// A note range and an event range that differ only by kind (MEM#NOTE#, MEM#EVENT#) are read as
// one: two Queries for a member or reader, three for an admin. The caller runs them, concurrently
// with the other reads of its page, and orders what they found by id.
func (s *Store) VisibleNotesAndEvents(cid, eid int64, a domain.Access) []NotesAndEvents {
	pk := entityPK(cid, eid)
	var prefixes []string
	events := childRanges(eventPrefix, pk, a)
	for i, nr := range childRanges(notePrefix, pk, a) {
		if common, ok := strings.CutSuffix(nr.prefix, notePrefix+"#"); ok && common != "" && events[i].prefix == common+eventPrefix+"#" {
			prefixes = append(prefixes, common)
			continue
		}
		prefixes = append(prefixes, nr.prefix, events[i].prefix)
	}
	reads := make([]NotesAndEvents, len(prefixes))
	for i, prefix := range prefixes {
		reads[i] = func(ctx context.Context) ([]domain.Note, []timeline.Event, error) {
			var rows []dynamo.Item
			if err := s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, prefix).Consistent(true).All(ctx, &rows); err != nil {
				return nil, nil, wrap(err)
			}
			var notes []domain.Note
			var evs []timeline.Event
			for _, row := range rows {
				var sk string
				_ = dynamo.Unmarshal(row["sk"], &sk)
				switch {
				case isKind(sk, notePrefix):
					var it noteItem
					if err := dynamo.UnmarshalItem(row, &it); err != nil {
						return nil, nil, err
					}
					notes = append(notes, it.note())
				case isKind(sk, eventPrefix):
					var it eventItem
					if err := dynamo.UnmarshalItem(row, &it); err != nil {
						return nil, nil, err
					}
					evs = append(evs, it.event())
				}
			}
			return notes, evs, nil
		}
	}
	return reads
}

// isKind reports whether sk is a key of a kind item: its home (KIND#id, SELF#KIND#id) or a copy
// (MEM#KIND#id, OWN#uid#A#KIND#id...).
func isKind(sk, kind string) bool {
	return strings.HasPrefix(sk, kind+"#") || strings.Contains(sk, "#"+kind+"#")
}

// ChildLocationIDs reads the ids of a location's direct children, from their links in its
// partition (strongly consistent): one Query. With hidePrivate, the private ones (by the
// privacy their links carry) are left out.
func (s *Store) ChildLocationIDs(ctx context.Context, cid, lid int64, hidePrivate bool) ([]int64, error) {
	var links []childLink
	err := s.table.Get("pk", mapPointsPK(cid, lid)).Range("sk", dynamo.BeginsWith, childLinkPrefix).Consistent(true).All(ctx, &links)
	if err != nil {
		return nil, wrap(err)
	}
	ids := make([]int64, 0, len(links))
	for _, l := range links {
		if !hidePrivate || !l.IsPrivate {
			ids = append(ids, l.ID)
		}
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
