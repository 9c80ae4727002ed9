package store

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Reads ahead: the campaign access read (CampaignAccess) also reads the items the route
// declared (domain.Ref) in the same BatchGetItem and leaves them in a readAhead carried by the
// request's context; the store's reads by key take them from there before asking DynamoDB. A show
// is then one round trip, a list page two (the access with the counters, then the query).

type itemKey struct{ pk, sk string }

// readAhead is what was read ahead for one request, by key. Each item is handed out once
// (take): a write that retries on a conflict reads fresh data the second time. Counters, which
// a request only reads, are peeked and left for later reads.
type readAhead struct {
	mu    sync.Mutex
	items map[itemKey]dynamo.Item // nil item: read ahead and absent
}

type readAheadKey struct{}

func withReadAhead(ctx context.Context, items map[itemKey]dynamo.Item) context.Context {
	return context.WithValue(ctx, readAheadKey{}, &readAhead{items: items})
}

func readAheadOf(ctx context.Context) *readAhead {
	p, _ := ctx.Value(readAheadKey{}).(*readAhead)
	return p
}

// get is the item of k (nil: read ahead and absent); ok is false when k was not read ahead or
// was taken. consume hands it out once.
func (p *readAhead) get(k itemKey, consume bool) (it dynamo.Item, ok bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	it, ok = p.items[k]
	if consume {
		delete(p.items, k)
	}
	return it, ok
}

// refKeys are the items a route reads for ref, for reader uid.
func refKeys(cid, uid int64, ref domain.Ref) []itemKey {
	cpk := campaignPK(cid)
	switch ref.Read {
	case domain.ReadLocation: // and its public copy, which says whether its parent is public
		return []itemKey{{cpk, recordSK(locationPrefix, ref.ID)}, {cpk, publicCopy + recordSK(locationPrefix, ref.ID)}}
	case domain.ReadTag:
		return []itemKey{{cpk, recordSK(tagPrefix, ref.ID)}, {cpk, publicCopy + recordSK(tagPrefix, ref.ID)}}
	case domain.ReadTagList:
		return []itemKey{{cpk, counterSK(tagPrefix)}}
	case domain.ReadMap: // and its layers and groups, which every map answer embeds
		return append(mapKeys(cid, ref.ID), packKeys(cid, ref.ID)...)
	case domain.ReadMapPacks:
		return append(mapKeys(cid, ref.Parent), packKeys(cid, ref.Parent)...)
	case domain.ReadMapList:
		return []itemKey{{cpk, counterSK(mapPrefix)}}
	case domain.ReadMarker:
		out := append(mapKeys(cid, ref.Parent), packKeys(cid, ref.Parent)...) // its groups: group_id
		for _, sk := range childHomeSKs(markerPrefix, ref.ID) {
			out = append(out, itemKey{mapPK(cid, ref.Parent), sk})
		}
		return out
	case domain.ReadMarkerList:
		pk := mapPK(cid, ref.Parent)
		return append(append(mapKeys(cid, ref.Parent), packKeys(cid, ref.Parent)...), itemKey{pk, counterSK(markerPrefix)}, itemKey{pk, ownCounterSK(markerPrefix, uid)})
	case domain.ReadCalendar:
		return []itemKey{{cpk, recordSK(calendarPrefix, ref.ID)}}
	case domain.ReadEntity:
		return []itemKey{{cpk, recordSK(entityPrefix, ref.ID)}}
	case domain.ReadMapPoint:
		return []itemKey{{cpk, recordSK(locationPrefix, ref.Parent)}, {mapPointsPK(cid, ref.Parent), recordSK(mapPointPrefix, ref.ID)}}
	case domain.ReadNote, domain.ReadEvent:
		kind := notePrefix
		if ref.Read == domain.ReadEvent {
			kind = eventPrefix
		}
		out := []itemKey{{cpk, recordSK(entityPrefix, ref.Parent)}}
		for _, sk := range childHomeSKs(kind, ref.ID) {
			out = append(out, itemKey{entityPK(cid, ref.Parent), sk})
		}
		return out
	case domain.ReadAttributes:
		return []itemKey{{cpk, recordSK(entityPrefix, ref.Parent)}, packKey(cid, ref.Parent)}
	case domain.ReadRelation:
		out := []itemKey{{cpk, recordSK(entityPrefix, ref.Parent)}}
		for _, sk := range childHomeSKs(relationPrefix, ref.ID) {
			out = append(out, itemKey{entityPK(cid, ref.Parent), sk})
		}
		return out
	case domain.ReadRelationList:
		pk := entityPK(cid, ref.Parent)
		return []itemKey{{cpk, recordSK(entityPrefix, ref.Parent)}, {pk, counterSK(relationPrefix)}, {pk, ownCounterSK(relationPrefix, uid)}}
	case domain.ReadCampaignRelationList:
		return []itemKey{{cpk, counterSK(relationIndexPrefix)}, {cpk, ownCounterSK(relationIndexPrefix, uid)}}
	case domain.ReadLocationList:
		return []itemKey{{cpk, counterSK(locationPrefix)}}
	case domain.ReadCalendarList:
		return []itemKey{{cpk, counterSK(calendarPrefix)}}
	case domain.ReadEntityList:
		return []itemKey{{cpk, counterSK(entityPrefix)}}
	case domain.ReadMemberList:
		return []itemKey{{cpk, counterSK(memberKind)}}
	case domain.ReadMapPointList:
		return []itemKey{{cpk, recordSK(locationPrefix, ref.Parent)}, {mapPointsPK(cid, ref.Parent), counterSK(mapPointPrefix)}}
	case domain.ReadNoteList, domain.ReadEventList:
		kind := notePrefix
		if ref.Read == domain.ReadEventList {
			kind = eventPrefix
		}
		pk := entityPK(cid, ref.Parent)
		return []itemKey{{cpk, recordSK(entityPrefix, ref.Parent)}, {pk, counterSK(kind)}, {pk, ownCounterSK(kind, uid)}}
	case domain.ReadWeather:
		out := []itemKey{{cpk, recordSK(calendarPrefix, ref.Parent)}}
		for _, sk := range childHomeSKs(weatherPrefix, ref.ID) {
			out = append(out, itemKey{calendarPK(cid, ref.Parent), sk})
		}
		return out
	case domain.ReadWeatherList:
		pk := calendarPK(cid, ref.Parent)
		return []itemKey{{cpk, recordSK(calendarPrefix, ref.Parent)}, {pk, counterSK(weatherPrefix)}, {pk, ownCounterSK(weatherPrefix, uid)}}
	case domain.ReadReminderList:
		pk := calendarPK(cid, ref.ID)
		return []itemKey{{cpk, recordSK(calendarPrefix, ref.ID)}, {pk, counterSK(reminderKind)}, {pk, ownCounterSK(reminderKind, uid)}}
	}
	return nil
}

// getItems reads items by key, strongly consistent: those read ahead from the request's
// readAhead, the rest in one BatchGetItem per 100 (a function's reads
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
	ahead := readAheadOf(ctx)
	var rest []map[string]types.AttributeValue
	seen := make(map[itemKey]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if it, ok := ahead.get(k, consume); ok {
			if it != nil {
				out[k] = it
			}
			continue
		}
		rest = append(rest, sdkKey(k.pk, k.sk))
	}
	if len(rest) == 0 {
		return out, nil
	}
	items, err := s.batchGetItems(ctx, true, rest)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		out[keyOfItem(it)] = it
	}
	return out, nil
}

// keyOfItem is an item's key: its pk and sk strings, read without reflection.
func keyOfItem(it dynamo.Item) itemKey {
	pk, _ := it["pk"].(*types.AttributeValueMemberS)
	sk, _ := it["sk"].(*types.AttributeValueMemberS)
	var k itemKey
	if pk != nil {
		k.pk = pk.Value
	}
	if sk != nil {
		k.sk = sk.Value
	}
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
