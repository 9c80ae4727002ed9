package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// A map's layers and groups: one pack item each in the map's partition (LAYERS, GROUPS), its
// entries and recent deletions as JSON, written whole on condition of its version (domain's
// MapPack). A pack holds at most domain.MaxMapLayers or MaxMapGroups entries, so it stays far
// below DynamoDB's item size, and every map answer reads both with the map.

func packKeys(cid, mid int64) []layout.ItemKey {
	return []layout.ItemKey{{PK: layout.MapPK(cid, mid), SK: layout.GroupsSK}, {PK: layout.MapPK(cid, mid), SK: layout.LayersSK}}
}

// GetMapPacks reads a map's groups and layers (read ahead with the map on its routes).
func (s *Store) GetMapPacks(ctx context.Context, cid, mid int64) (*domain.MapPack[domain.MapGroup], *domain.MapPack[domain.MapLayer], error) {
	keys := packKeys(cid, mid)
	items, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, nil, err
	}
	g, err := layout.DecodePack[domain.MapGroup](items[keys[0]])
	if err != nil {
		return nil, nil, err
	}
	l, err := layout.DecodePack[domain.MapLayer](items[keys[1]])
	return g, l, err
}

// GetPacksOf reads the packs of a page of maps in one BatchGetItem (a page holds at most 50
// maps: 100 keys).
func (s *Store) GetPacksOf(ctx context.Context, cid int64, mids []int64) (map[int64]domain.MapPacks, error) {
	out := make(map[int64]domain.MapPacks, len(mids))
	var keys []layout.ItemKey
	for _, mid := range mids {
		keys = append(keys, packKeys(cid, mid)...)
	}
	items := map[layout.ItemKey]dynamo.Item{}
	for len(keys) > 0 {
		n := min(len(keys), 100)
		got, err := s.getItems(ctx, keys[:n]...)
		if err != nil {
			return nil, err
		}
		for k, v := range got {
			items[k] = v
		}
		keys = keys[n:]
	}
	for _, mid := range mids {
		k := packKeys(cid, mid)
		g, err := layout.DecodePack[domain.MapGroup](items[k[0]])
		if err != nil {
			return nil, err
		}
		l, err := layout.DecodePack[domain.MapLayer](items[k[1]])
		if err != nil {
			return nil, err
		}
		out[mid] = domain.MapPacks{Groups: g, Layers: l}
	}
	return out, nil
}

// WriteMapGroups changes a map's groups with change (given the pack as read consistently) and
// writes them on condition of the version read and of the map's existence (ErrNotFound when it
// is gone); a concurrent write re-reads and re-applies change.
func (s *Store) WriteMapGroups(ctx context.Context, cid, mid int64, change func(*domain.MapPack[domain.MapGroup], time.Time) error) error {
	return writePack(ctx, s, cid, mid, layout.GroupsSK, change, nil)
}

// WriteMapLayers is WriteMapGroups for layers, whose stored pictures change in the same
// transaction: a new one claimed, a replaced or deleted layer's queued for the sweeper.
func (s *Store) WriteMapLayers(ctx context.Context, cid, mid int64, change func(*domain.MapPack[domain.MapLayer], time.Time) error) error {
	return writePack(ctx, s, cid, mid, layout.LayersSK, change, layout.LayerImages)
}

// writePack writes one pack; images, when set, names the entries' stored pictures, whose
// change (claimed, dropped) goes into the pack's transaction.
func writePack[T any](ctx context.Context, s *Store, cid, mid int64, sk string, change func(*domain.MapPack[T], time.Time) error, images func([]T) map[string]bool) error {
	return apperr.RetryConflicts(ctx, func() error {
		raw, err := s.batchGet(ctx, true, layout.ItemKey{PK: layout.MapPK(cid, mid), SK: sk})
		if err != nil {
			return err
		}
		var cur dynamo.Item
		if len(raw) == 1 {
			cur = raw[0]
		}
		p, err := layout.DecodePack[T](cur)
		if err != nil {
			return err
		}
		prev := p.Version
		var before map[string]bool
		if images != nil {
			before = images(p.Items)
		}
		if err := change(p, s.now().UTC().Truncate(time.Microsecond)); err != nil {
			return err
		}
		items, _ := json.Marshal(p.Items)
		it := layout.PackItem{PK: layout.MapPK(cid, mid), SK: sk, Version: prev + 1, Seq: p.Seq, Items: string(items)}
		if len(p.Gone) > domain.MaxPackGone {
			p.Gone = p.Gone[len(p.Gone)-domain.MaxPackGone:]
		}
		if len(p.Gone) > 0 {
			gone, _ := json.Marshal(p.Gone)
			it.Gone = string(gone)
		}
		put := s.table.Put(it)
		if prev == 0 {
			put = put.If("attribute_not_exists(pk)")
		} else {
			put = put.If("'v' = ?", prev)
		}
		b := s.newTx()
		b.need(layout.CampaignPK(cid), layout.RecordSK(layout.MapPrefix, mid), apperr.ErrNotFound)
		b.put(put)
		if images != nil { // a write changes one entry: at most one path claimed and one dropped
			after := images(p.Items)
			for path := range after {
				if !before[path] {
					b.images(cid, "", path)
				}
			}
			for path := range before {
				if !after[path] {
					b.images(cid, path, "")
				}
			}
		}
		return b.run(ctx)
	})
}

// packImages adds to the layers' partition's end (a map's purge) the queueing of its layers'
// stored pictures, from the pack as read (raw nil: none).
func packImages(b *txBuilder, cid int64, raw dynamo.Item) error {
	p, err := layout.DecodePack[domain.MapLayer](raw)
	if err != nil {
		return err
	}
	for path := range layout.LayerImages(p.Items) {
		b.images(cid, path, "")
	}
	return nil
}
