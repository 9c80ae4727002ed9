package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// A map's layers and groups: one pack item each in the map's partition (LAYERS, GROUPS), its
// entries and recent deletions as JSON, written whole on condition of its version (domain's
// MapPack). A pack holds at most domain.MaxMapLayers or MaxMapGroups entries, so it stays far
// below DynamoDB's item size, and every map answer reads both with the map.

const (
	layersSK = "LAYERS"
	groupsSK = "GROUPS"
)

type packItem struct {
	PK      string `dynamo:"pk"`
	SK      string `dynamo:"sk"`
	Version int64  `dynamo:"v"`
	Seq     int64  `dynamo:"seq"`
	Items   string `dynamo:"items"`
	Gone    string `dynamo:"gone,omitempty"`
}

func packKeys(cid, mid int64) []itemKey {
	return []itemKey{{mapPK(cid, mid), groupsSK}, {mapPK(cid, mid), layersSK}}
}

func decodePack[T any](raw dynamo.Item) (*domain.MapPack[T], error) {
	out := &domain.MapPack[T]{Items: []T{}}
	if raw == nil {
		return out, nil
	}
	var it packItem
	if err := dynamo.UnmarshalItem(raw, &it); err != nil {
		return nil, err
	}
	out.Version, out.Seq = it.Version, it.Seq
	if err := json.Unmarshal([]byte(it.Items), &out.Items); err != nil {
		return nil, err
	}
	if it.Gone != "" {
		if err := json.Unmarshal([]byte(it.Gone), &out.Gone); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// GetMapPacks reads a map's groups and layers (read ahead with the map on its routes).
func (s *Store) GetMapPacks(ctx context.Context, cid, mid int64) (*domain.MapPack[domain.MapGroup], *domain.MapPack[domain.MapLayer], error) {
	keys := packKeys(cid, mid)
	items, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, nil, err
	}
	g, err := decodePack[domain.MapGroup](items[keys[0]])
	if err != nil {
		return nil, nil, err
	}
	l, err := decodePack[domain.MapLayer](items[keys[1]])
	return g, l, err
}

// GetPacksOf reads the packs of a page of maps in one BatchGetItem (a page holds at most 50
// maps: 100 keys).
func (s *Store) GetPacksOf(ctx context.Context, cid int64, mids []int64) (map[int64]domain.MapPacks, error) {
	out := make(map[int64]domain.MapPacks, len(mids))
	var keys []itemKey
	for _, mid := range mids {
		keys = append(keys, packKeys(cid, mid)...)
	}
	items := map[itemKey]dynamo.Item{}
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
		g, err := decodePack[domain.MapGroup](items[k[0]])
		if err != nil {
			return nil, err
		}
		l, err := decodePack[domain.MapLayer](items[k[1]])
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
	return writePack(ctx, s, cid, mid, groupsSK, change, nil)
}

// WriteMapLayers is WriteMapGroups for layers, whose stored pictures change in the same
// transaction: a new one claimed, a replaced or deleted layer's queued for the sweeper.
func (s *Store) WriteMapLayers(ctx context.Context, cid, mid int64, change func(*domain.MapPack[domain.MapLayer], time.Time) error) error {
	return writePack(ctx, s, cid, mid, layersSK, change, layerImages)
}

// layerImages are the stored pictures of layers.
func layerImages(ls []domain.MapLayer) map[string]bool {
	out := map[string]bool{}
	for _, l := range ls {
		if l.ImagePath != "" {
			out[l.ImagePath] = true
		}
	}
	return out
}

// writePack writes one pack; images, when set, names the entries' stored pictures, whose
// change (claimed, dropped) goes into the pack's transaction.
func writePack[T any](ctx context.Context, s *Store, cid, mid int64, sk string, change func(*domain.MapPack[T], time.Time) error, images func([]T) map[string]bool) error {
	for attempt := 0; ; attempt++ {
		var raw []dynamo.Item
		err := s.table.Batch("pk", "sk").Get(dynamo.Keys{mapPK(cid, mid), sk}).Consistent(true).All(ctx, &raw)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return wrap(err)
		}
		var cur dynamo.Item
		if len(raw) == 1 {
			cur = raw[0]
		}
		p, err := decodePack[T](cur)
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
		it := packItem{PK: mapPK(cid, mid), SK: sk, Version: prev + 1, Seq: p.Seq, Items: string(items)}
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
		b.need(campaignPK(cid), recordSK(mapPrefix, mid), apperr.ErrNotFound)
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
		err = b.run(ctx)
		if !errors.Is(err, apperr.ErrConflict) || attempt >= apperr.WriteAttempts {
			return err
		}
	}
}

// auditMapPacks checks the packs of campaign cid: each in the partition of a live or trashed
// map, within its caps, its ids unique and at most its sequence, its groups' parents groups of
// the pack, with no cycle and at most domain.MaxGroupDepth levels.
func auditMapPacks(cid int64, items []dynamo.Item, tr *trashState) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	live := map[string]bool{}
	for _, it := range items {
		if k := keyOfItem(it); k.pk == campaignPK(cid) && strings.HasPrefix(k.sk, mapPrefix+"#") {
			var id int64
			_ = dynamo.Unmarshal(it["id"], &id)
			live[mapPK(cid, id)] = true
		}
	}
	for _, it := range items {
		k := keyOfItem(it)
		if k.sk != groupsSK && k.sk != layersSK {
			continue
		}
		if !live[k.pk] && !tr.hides(k.pk) {
			report("pack %s %s: no map", k.pk, k.sk)
		}
		var entries []domain.PackEntry
		var seq int64
		var raw string
		_ = dynamo.Unmarshal(it["seq"], &seq)
		_ = dynamo.Unmarshal(it["items"], &raw)
		if err := json.Unmarshal([]byte(raw), &entries); err != nil {
			report("pack %s %s: items unreadable: %v", k.pk, k.sk, err)
			continue
		}
		limit := domain.MaxMapLayers
		if k.sk == groupsSK {
			limit = domain.MaxMapGroups
		}
		if len(entries) > limit {
			report("pack %s %s: %d entries, at most %d", k.pk, k.sk, len(entries), limit)
		}
		seen := map[int64]bool{}
		for _, e := range entries {
			if seen[e.ID] || e.ID < 1 || e.ID > seq {
				report("pack %s %s: entry %d repeated or beyond its sequence %d", k.pk, k.sk, e.ID, seq)
			}
			seen[e.ID] = true
		}
		if k.sk != groupsSK {
			continue
		}
		var groups []domain.MapGroup
		_ = json.Unmarshal([]byte(raw), &groups)
		parent := map[int64]*int64{}
		for _, g := range groups {
			parent[g.ID] = g.ParentID
		}
		for _, g := range groups {
			depth := 1
			for at := g.ParentID; at != nil; at = parent[*at] {
				if _, ok := parent[*at]; !ok {
					report("pack %s %s: group %d under missing group %d", k.pk, k.sk, g.ID, *at)
					break
				}
				if depth++; depth > domain.MaxGroupDepth {
					report("pack %s %s: group %d nested deeper than %d (or in a cycle)", k.pk, k.sk, g.ID, domain.MaxGroupDepth)
					break
				}
			}
		}
	}
	return problems
}

// packImages adds to the layers' partition's end (a map's purge) the queueing of its layers'
// stored pictures, from the pack as read (raw nil: none).
func packImages(b *txBuilder, cid int64, raw dynamo.Item) error {
	p, err := decodePack[domain.MapLayer](raw)
	if err != nil {
		return err
	}
	for path := range layerImages(p.Items) {
		b.images(cid, path, "")
	}
	return nil
}

// heldPackImages adds the stored pictures the packs among items hold to held (for the audit).
func heldPackImages(items []dynamo.Item, held map[string]string) {
	for _, it := range items {
		if k := keyOfItem(it); k.sk == layersSK {
			p, err := decodePack[domain.MapLayer](it)
			if err != nil {
				continue // auditMapPacks reports it
			}
			for path := range layerImages(p.Items) {
				held[path] = k.pk + " " + k.sk
			}
		}
	}
}
