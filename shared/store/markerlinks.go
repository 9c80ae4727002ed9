package store

import (
	"context"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// A marker linked to an entity has a pointer in that entity's partition, MARKIN#<mid>#<id>,
// written in the marker's transactions. It is how the entity's changes reach its markers
// (Kanka's map_markers.entity_id foreign key): a privacy change (relinkRefs) and a trash
// (hideRefs) re-place them for admins only, a restore (showRefs) by the entity's privacy, and
// the purge deletes them (Kanka's onDelete cascade), each batched in transactions conditional
// on the versions read (a lost race re-reads), resumable by the sweeper's RELINK and CASCADE
// markers like the relations' re-placing.

// linkMarker adds to b the move of marker prev's entity pointer (nil: a new marker) to next's
// (nil: deleted); nothing when the entity stays.
func (b *txBuilder) linkMarker(prev, next *domain.Marker) {
	var from, to *int64
	if prev != nil {
		from = prev.EntityID
	}
	if next != nil {
		to = next.EntityID
	}
	if from != nil && to != nil && *from == *to {
		return
	}
	if from != nil {
		k := layout.MarkerInKey(prev.CampaignID, *from, prev.MapID, prev.ID)
		b.del(b.s.table.Delete("pk", k.PK).Range("sk", k.SK))
	}
	if to != nil {
		k := layout.MarkerInKey(next.CampaignID, *to, next.MapID, next.ID)
		b.put(b.s.table.Put(layout.MarkerInItem{PK: k.PK, SK: k.SK, MapID: next.MapID, ID: next.ID}))
	}
}

// entityMarkers reads the markers linked to entity eid, each with its map as read (OnMap; a
// marker whose map is not live, in the trash, has OnMap.Version 0): one Query of its pointers,
// then (when there are any) the markers' and maps' homes in batches of 100.
// known are the pointers when the caller has just read the entity's partition (nil: read them).
func (s *Store) entityMarkers(ctx context.Context, cid, eid int64, known *[]layout.MarkerInItem) ([]*domain.Marker, error) {
	var ptrs []layout.MarkerInItem
	if known != nil {
		ptrs = *known
	} else if err := s.table.Get("pk", layout.EntityPK(cid, eid)).Range("sk", dynamo.BeginsWith, layout.MarkerInPrefix).Consistent(true).All(ctx, &ptrs); err != nil {
		return nil, layout.Wrap(err)
	}
	if len(ptrs) == 0 {
		return nil, nil
	}
	var keys []layout.ItemKey
	maps := map[int64]bool{}
	for _, p := range ptrs {
		for _, sk := range childHomeSKs(layout.MarkerPrefix, p.ID) {
			keys = append(keys, layout.ItemKey{PK: layout.MapPK(cid, p.MapID), SK: sk})
		}
		if !maps[p.MapID] {
			maps[p.MapID] = true
			keys = append(keys, layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.MapPrefix, p.MapID)})
		}
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	var out []*domain.Marker
	for _, p := range ptrs {
		for _, sk := range childHomeSKs(layout.MarkerPrefix, p.ID) {
			raw, ok := got[layout.ItemKey{PK: layout.MapPK(cid, p.MapID), SK: sk}]
			if !ok {
				continue
			}
			var it layout.MarkerItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return nil, err
			}
			if it.EntityID == nil || *it.EntityID != eid {
				continue // moved to another entity: its pointer here is gone with that write
			}
			mk := it.Marker()
			if raw, ok := got[layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.MapPrefix, p.MapID)}]; ok {
				var m layout.MapItem
				if err := dynamo.UnmarshalItem(raw, &m); err != nil {
					return nil, err
				}
				mk.OnMap = domain.MarkerMap{Version: m.Version, Private: m.IsPrivate, Centre: m.CenterMarker != nil && *m.CenterMarker == mk.ID}
			}
			out = append(out, &mk)
		}
	}
	return out, nil
}

// markerRelinkItems bounds what one marker's re-placing or removal writes: home and copies
// (at most 3 placed, 3 removed), counters, 2 sync items and a tombstone's 2, the map's centre
// (2), its pointer.
const markerRelinkItems = 20

// relinkMarkers places every marker linked to entity eid for admins only (private) or by its
// visibility: each rewritten (version bumped, updated_at kept: the marker itself did not
// change) with its copies, counts and sync pointer, and its map's centre when it is one.
func (s *Store) relinkMarkers(ctx context.Context, cid, eid int64, private bool) error {
	return s.relinkKnownMarkers(ctx, cid, eid, private, nil)
}

// relinkKnownMarkers is relinkMarkers with the entity's pointers as its partition's read found
// them (nil: read them), which saves the trash a round trip.
func (s *Store) relinkKnownMarkers(ctx context.Context, cid, eid int64, private bool, known *[]layout.MarkerInItem) error {
	return s.eachEntityMarker(ctx, cid, eid, known, func(b *txBuilder, mk *domain.Marker) (*domain.Marker, bool) {
		if mk.EntityPrivate == private {
			return nil, false
		}
		next := *mk
		next.EntityPrivate, next.Version = private, mk.Version+1
		b.place(layout.Marshal(toMarkerItem(&next)), markerSlots(mk), markerSlots(&next), mk.Version)
		b.syncMove(markerRef(mk), markerRef(&next))
		return &next, true
	})
}

// deleteEntityMarkers deletes the markers linked to entity eid, being purged (Kanka deletes
// them with their entity): each with its copies, counts and pointer, a tombstone left for
// ?deleted=1 and lastSync, and its map's centre cleared when it is one.
func (s *Store) deleteEntityMarkers(ctx context.Context, cid, eid int64) error {
	return s.eachEntityMarker(ctx, cid, eid, nil, func(b *txBuilder, mk *domain.Marker) (*domain.Marker, bool) {
		b.remove(markerSlots(mk), mk.Version)
		b.syncMove(markerRef(mk), nil)
		b.linkMarker(mk, nil)
		return nil, true
	})
}

// eachEntityMarker reads entity eid's markers and writes what change adds for each (next: the
// marker after it, nil when deleted; false: nothing), in transactions of at most maxTx items,
// with the centres of their maps (centres); a lost race reads them again.
func (s *Store) eachEntityMarker(ctx context.Context, cid, eid int64, known *[]layout.MarkerInItem, change func(*txBuilder, *domain.Marker) (*domain.Marker, bool)) error {
	return apperr.RetryConflicts(ctx, func() error {
		ms, err := s.entityMarkers(ctx, cid, eid, known)
		known = nil // a lost race reads them again
		if err != nil {
			return err
		}
		var txs []*txBuilder
		var changed [][]markerChange
		for _, mk := range ms {
			if len(txs) == 0 || txs[len(txs)-1].size()+markerRelinkItems > maxTx {
				txs, changed = append(txs, s.newTx()), append(changed, nil)
			}
			if next, ok := change(txs[len(txs)-1], mk); ok {
				changed[len(changed)-1] = append(changed[len(changed)-1], markerChange{mk, next})
			}
		}
		for i, b := range txs {
			b.centres(changed[i])
		}
		return runTxs(ctx, txs)
	})
}

// markerChange is a marker as read (with its map) and after a write (nil: deleted).
type markerChange struct{ prev, next *domain.Marker }

// centres adds to b the centres of the live maps of markers written in one transaction, one
// operation a map (a transaction names an item once): the centre's change when one of them is
// it (conditional on the map's version, which holds the others too), else a check that the map
// is centred on none of them.
func (b *txBuilder) centres(cs []markerChange) {
	byMap := map[int64][]markerChange{}
	var order []int64
	for _, c := range cs {
		if c.prev.OnMap.Version == 0 {
			continue // its map is in the trash: its restore reads the centre as it is
		}
		if byMap[c.prev.MapID] == nil {
			order = append(order, c.prev.MapID)
		}
		byMap[c.prev.MapID] = append(byMap[c.prev.MapID], c)
	}
	for _, mid := range order {
		group := byMap[mid]
		done := false
		for _, c := range group {
			if c.prev.OnMap.Centre {
				b.centre(c.prev, c.next)
				done = true
			}
		}
		if done {
			continue
		}
		cond := "attribute_exists(pk) AND (attribute_not_exists(center_marker_id) OR NOT (center_marker_id IN (" +
			strings.TrimSuffix(strings.Repeat("?, ", len(group)), ", ") + ")))"
		args := make([]any, len(group))
		for i, c := range group {
			args[i] = c.prev.ID
		}
		b.check(b.s.table.Check("pk", layout.CampaignPK(group[0].prev.CampaignID)).Range("sk", layout.RecordSK(layout.MapPrefix, mid)).If(cond, args...))
	}
}

// unlinkMapMarkers deletes the entity pointers of map mid's markers, before its purge deletes
// its partition: one Query of the markers' homes (projected), the pointers in batches.
func (s *Store) unlinkMapMarkers(ctx context.Context, cid, mid int64) error {
	rows, err := s.queryPrefixes(ctx, layout.MapPK(cid, mid), layout.MarkerPrefix+"#", layout.SelfHome+layout.MarkerPrefix+"#")
	if err != nil {
		return err
	}
	var keys []dynamo.Keyed
	for _, raw := range rows {
		var it layout.MarkerItem
		if err := dynamo.UnmarshalItem(raw, &it); err != nil {
			return err
		}
		if it.EntityID != nil {
			k := layout.MarkerInKey(cid, *it.EntityID, mid, it.ID)
			keys = append(keys, dynamo.Keys{k.PK, k.SK})
		}
	}
	return s.deleteKeys(ctx, keys)
}

// A map's purge unlinks its markers from their entities (their pointers live in the entities'
// partitions) before its partition goes.
func init() {
	declareCascade(layout.MapPrefix, kindCascade{
		purge: func(ctx context.Context, s *Store, t layout.Tombstone) error {
			return s.unlinkMapMarkers(ctx, t.CID, t.ID)
		},
	})
}
