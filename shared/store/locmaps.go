package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// A live map naming a location (location_id) has a link in that location's partition,
// LOCMAP#mid, written in the map's transactions (a trash removes it, a restore puts it back).
// It is how the location's changes reach its maps' public copies, which show location_id only
// while the location is public: a privacy change (relinkRefs) and a trash (hideRefs) re-place
// them, a restore (showRefs) shows it again, and the purge clears location_id (Kanka's
// onDelete set null), each batched in transactions conditional on the versions read (a lost
// race re-reads), resumable by the sweeper's RELINK and CASCADE markers.

// linkLocation adds to b the move of map mid's location link from prev to next (nil: none).
func (b *txBuilder) linkLocation(cid, mid int64, prev, next *int64) {
	if prev != nil && next != nil && *prev == *next {
		return
	}
	if prev != nil {
		k := layout.LocMapKey(cid, *prev, mid)
		b.del(b.s.table.Delete("pk", k.PK).Range("sk", k.SK))
	}
	if next != nil {
		k := layout.LocMapKey(cid, *next, mid)
		b.put(b.s.table.Put(layout.LocMapItem{PK: k.PK, SK: k.SK, ID: mid}))
	}
}

// placeLocationMaps re-places the maps linked to location lid: their public copies show
// location_id unless hidden; clear (the location's purge) drops it and the link. Each map's
// home and copy are rewritten (version bumped, updated_at kept), 40 maps a transaction.
func (s *Store) placeLocationMaps(ctx context.Context, cid, lid int64, hidden, clear bool) error {
	return apperr.RetryConflicts(ctx, func() error {
		var links []layout.LocMapItem
		if err := s.table.Get("pk", layout.ChildPK(cid, layout.LocationPrefix, lid)).Range("sk", dynamo.BeginsWith, layout.LocMapPrefix).Consistent(true).All(ctx, &links); err != nil {
			return layout.Wrap(err)
		}
		var keys []layout.ItemKey
		for _, l := range links {
			keys = append(keys, mapKeys(cid, l.ID)...)
		}
		got, err := s.getItems(ctx, keys...)
		if err != nil {
			return err
		}
		var txs []*txBuilder
		for _, l := range links {
			mk := mapKeys(cid, l.ID)
			m, err := mapOf(got, mk[0], mk[1])
			if errors.Is(err, apperr.ErrNotFound) {
				continue // its trash is removing the link
			}
			if err != nil {
				return err
			}
			if m.LocationID == nil || *m.LocationID != lid || (m.LocationPrivate == hidden && !clear) {
				continue
			}
			if len(txs) == 0 || txs[len(txs)-1].size()+3 > maxTx {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			next := *m
			next.Version, next.LocationPrivate = m.Version+1, hidden
			if clear {
				next.LocationID, next.LocationPrivate = nil, false
				b.linkLocation(cid, m.ID, m.LocationID, nil)
			}
			sls := layout.OwnerSlots(layout.MapPrefix, cid, m.ID, m.IsPrivate)
			b.place(layout.Marshal(toMapItem(&next)), sls, sls, m.Version)
		}
		return runTxs(ctx, txs)
	})
}

// locationMapsOf reads the locations the map homes in items name (one BatchGetItem per 100
// keys), for the migration: by location home key, whether its maps hide it (private, or in
// the trash). Absent: no such location.
func (s *Store) locationMapsOf(ctx context.Context, items []dynamo.Item) (map[layout.ItemKey]bool, error) {
	var keys []layout.ItemKey
	seen := map[layout.ItemKey]bool{}
	for _, it := range items {
		var m layout.MapItem
		_ = dynamo.UnmarshalItem(it, &m)
		if m.SK != layout.RecordSK(layout.MapPrefix, m.ID) || m.LocationID == nil {
			continue
		}
		if k := (layout.ItemKey{PK: layout.CampaignPK(m.CampaignID), SK: layout.RecordSK(layout.LocationPrefix, *m.LocationID)}); !seen[k] {
			seen[k] = true
			keys = append(keys, k, layout.ItemKey{PK: k.PK, SK: layout.TrashedSK(layout.LocationPrefix, *m.LocationID)})
		}
	}
	out := map[layout.ItemKey]bool{}
	if len(keys) == 0 {
		return out, nil
	}
	got, err := s.getItems(ctx, keys...)
	for k, it := range got {
		var l struct {
			ID        int64 `dynamo:"id"`
			IsPrivate bool  `dynamo:"is_private"`
		}
		_ = dynamo.UnmarshalItem(it, &l)
		home := layout.ItemKey{PK: k.PK, SK: layout.RecordSK(layout.LocationPrefix, l.ID)}
		out[home] = out[home] || l.IsPrivate || k.SK != home.SK
	}
	return out, err
}

// A location's trash hides it from its maps' public copies, its restore shows it again as its
// privacy says, and its purge clears the maps' location_id and links.
func init() {
	declareCascade(layout.LocationPrefix, kindCascade{
		hide: func(ctx context.Context, s *Store, e *layout.EntityItem) error {
			return s.placeLocationMaps(ctx, e.CampaignID, e.ChildID, true, false)
		},
		show: func(ctx context.Context, s *Store, e *layout.EntityItem) error {
			return s.placeLocationMaps(ctx, e.CampaignID, e.ChildID, e.IsPrivate || e.LinksPrivate, false)
		},
		purge: func(ctx context.Context, s *Store, t layout.Tombstone) error {
			return s.placeLocationMaps(ctx, t.CID, t.ID, false, true)
		},
	})
}
