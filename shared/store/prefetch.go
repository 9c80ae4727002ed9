package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Reads ahead: the campaign access read (CampaignAccess) also reads the items the route
// declared (domain.Ref) in the same BatchGetItem and leaves them in the request's
// domain.Prefetch; the store's reads by key take them from there before asking DynamoDB. A show
// is then one round trip, a list page two (the access with the counters, then the query).

type itemKey struct{ pk, sk string }

func (k itemKey) String() string { return k.pk + "\x00" + k.sk }

// refKeys are the items a route reads for ref, for reader uid.
func refKeys(cid, uid int64, ref domain.Ref) []itemKey {
	cpk := campaignPK(cid)
	switch ref.Kind {
	case "location": // and the private ids, for its parent
		return []itemKey{{cpk, recordSK(locationPrefix, ref.ID)}, {cpk, counterSK(locationPrefix)}}
	case "calendar":
		return []itemKey{{cpk, recordSK(calendarPrefix, ref.ID)}}
	case "entity":
		return []itemKey{{cpk, recordSK(entityPrefix, ref.ID)}}
	case "mappoint":
		return []itemKey{{cpk, recordSK(locationPrefix, ref.Parent)}, {mapPointsPK(cid, ref.Parent), recordSK(mapPointPrefix, ref.ID)}}
	case "note", "event":
		kind := map[string]string{"note": notePrefix, "event": eventPrefix}[ref.Kind]
		out := []itemKey{{cpk, recordSK(entityPrefix, ref.Parent)}}
		for _, sk := range childHomeSKs(kind, ref.ID) {
			out = append(out, itemKey{entityPK(cid, ref.Parent), sk})
		}
		return out
	case "list:location":
		return []itemKey{{cpk, counterSK(locationPrefix)}}
	case "list:calendar":
		return []itemKey{{cpk, counterSK(calendarPrefix)}}
	case "list:entity":
		return []itemKey{{cpk, counterSK(entityPrefix)}}
	case "list:mappoint":
		return []itemKey{{cpk, recordSK(locationPrefix, ref.Parent)}, {mapPointsPK(cid, ref.Parent), counterSK(mapPointPrefix)}}
	case "list:note", "list:event":
		kind := map[string]string{"list:note": notePrefix, "list:event": eventPrefix}[ref.Kind]
		pk := entityPK(cid, ref.Parent)
		return []itemKey{{cpk, recordSK(entityPrefix, ref.Parent)}, {pk, counterSK(kind)}, {pk, ownCounterSK(kind, uid)}}
	}
	return nil
}

// getItems reads items by key, strongly consistent: those read ahead from the request's
// Prefetch, the rest in one BatchGetItem per 100 (a function's reads
// are all BatchGetItem: its policy needs no GetItem). Missing items are absent from the map.
func (s *Store) getItems(ctx context.Context, keys ...itemKey) (map[itemKey]dynamo.Item, error) {
	return s.fetch(ctx, true, keys)
}

// peekItems is getItems leaving what was read ahead for later reads in the request: counters,
// which a request reads and never writes.
func (s *Store) peekItems(ctx context.Context, keys ...itemKey) (map[itemKey]dynamo.Item, error) {
	return s.fetch(ctx, false, keys)
}

func (s *Store) fetch(ctx context.Context, consume bool, keys []itemKey) (map[itemKey]dynamo.Item, error) {
	out := make(map[itemKey]dynamo.Item, len(keys))
	pf := domain.PrefetchOf(ctx)
	var rest []dynamo.Keyed
	seen := map[itemKey]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		take := pf.Take
		if !consume {
			take = pf.Peek
		}
		if v, ok := take(k.String()); ok {
			if it, _ := v.(dynamo.Item); it != nil {
				out[k] = it
			}
			continue
		}
		rest = append(rest, dynamo.Keys{k.pk, k.sk})
	}
	for start := 0; start < len(rest); start += 100 {
		var items []dynamo.Item
		err := s.table.Batch("pk", "sk").Get(rest[start:min(start+100, len(rest))]...).Consistent(true).All(ctx, &items)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return nil, wrap(err)
		}
		for _, it := range items {
			out[keyOfItem(it)] = it
		}
	}
	return out, nil
}

func keyOfItem(it dynamo.Item) itemKey {
	var k itemKey
	_ = dynamo.Unmarshal(it["pk"], &k.pk)
	_ = dynamo.Unmarshal(it["sk"], &k.sk)
	return k
}

// getOne reads one item into out through getItems; ErrNotFound when there is none.
func (s *Store) getOne(ctx context.Context, k itemKey, out any) error {
	items, err := s.getItems(ctx, k)
	if err != nil {
		return err
	}
	it, ok := items[k]
	if !ok {
		return apperr.ErrNotFound
	}
	return dynamo.UnmarshalItem(it, out)
}
