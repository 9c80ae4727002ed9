package store

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Reads ahead: the campaign access read (CampaignAccess) also reads the items the route
// declared (domain.Ref) in the same BatchGetItem and leaves them in a readAhead carried by the
// request's context; the store's reads by key take them from there before asking DynamoDB. A show
// is then one round trip, a list page two (the access with the counters, then the query).

// readAhead is what was read ahead for one request, by key. Each item is handed out once
// (take): a write that retries on a conflict reads fresh data the second time. Counters, which
// a request only reads, are peeked and left for later reads.
type readAhead struct {
	mu    sync.Mutex
	items map[layout.ItemKey]dynamo.Item // nil item: read ahead and absent
}

type readAheadKey struct{}

func withReadAhead(ctx context.Context, items map[layout.ItemKey]dynamo.Item) context.Context {
	return context.WithValue(ctx, readAheadKey{}, &readAhead{items: items})
}

func readAheadOf(ctx context.Context) *readAhead {
	p, _ := ctx.Value(readAheadKey{}).(*readAhead)
	return p
}

// get is the item of k (nil: read ahead and absent); ok is false when k was not read ahead or
// was taken. consume hands it out once.
func (p *readAhead) get(k layout.ItemKey, consume bool) (it dynamo.Item, ok bool) {
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
func refKeys(cid, uid int64, ref domain.Ref) []layout.ItemKey {
	cpk := layout.CampaignPK(cid)
	switch ref.Read {
	case domain.ReadLocation: // and its public copy, which says whether its parent is public
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.LocationPrefix, ref.ID)}, {PK: cpk, SK: layout.PublicCopy + layout.RecordSK(layout.LocationPrefix, ref.ID)}}
	case domain.ReadTag:
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.TagPrefix, ref.ID)}, {PK: cpk, SK: layout.PublicCopy + layout.RecordSK(layout.TagPrefix, ref.ID)}}
	case domain.ReadTagList:
		return []layout.ItemKey{{PK: cpk, SK: layout.CounterSK(layout.TagPrefix)}}
	case domain.ReadMap: // and its layers and groups, which every map answer embeds
		return append(mapKeys(cid, ref.ID), packKeys(cid, ref.ID)...)
	case domain.ReadMapPacks:
		return append(mapKeys(cid, ref.Parent), packKeys(cid, ref.Parent)...)
	case domain.ReadMapList:
		return []layout.ItemKey{{PK: cpk, SK: layout.CounterSK(layout.MapPrefix)}}
	case domain.ReadMarker:
		out := append(mapKeys(cid, ref.Parent), packKeys(cid, ref.Parent)...) // its groups: group_id
		for _, sk := range childHomeSKs(layout.MarkerPrefix, ref.ID) {
			out = append(out, layout.ItemKey{PK: layout.MapPK(cid, ref.Parent), SK: sk})
		}
		return out
	case domain.ReadMarkerList:
		pk := layout.MapPK(cid, ref.Parent)
		return append(append(mapKeys(cid, ref.Parent), packKeys(cid, ref.Parent)...), layout.ItemKey{PK: pk, SK: layout.CounterSK(layout.MarkerPrefix)}, layout.ItemKey{PK: pk, SK: layout.OwnCounterSK(layout.MarkerPrefix, uid)})
	case domain.ReadCalendar:
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.CalendarPrefix, ref.ID)}}
	case domain.ReadEntity:
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.EntityPrefix, ref.ID)}}
	case domain.ReadMapPoint:
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.LocationPrefix, ref.Parent)}, {PK: layout.MapPointsPK(cid, ref.Parent), SK: layout.RecordSK(layout.MapPointPrefix, ref.ID)}}
	case domain.ReadNote, domain.ReadEvent:
		kind := layout.NotePrefix
		if ref.Read == domain.ReadEvent {
			kind = layout.EventPrefix
		}
		out := []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.EntityPrefix, ref.Parent)}}
		for _, sk := range childHomeSKs(kind, ref.ID) {
			out = append(out, layout.ItemKey{PK: layout.EntityPK(cid, ref.Parent), SK: sk})
		}
		return out
	case domain.ReadAttributes:
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.EntityPrefix, ref.Parent)}, layout.PackKey(cid, ref.Parent)}
	case domain.ReadRelation:
		out := []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.EntityPrefix, ref.Parent)}}
		for _, sk := range childHomeSKs(layout.RelationPrefix, ref.ID) {
			out = append(out, layout.ItemKey{PK: layout.EntityPK(cid, ref.Parent), SK: sk})
		}
		return out
	case domain.ReadRelationList:
		pk := layout.EntityPK(cid, ref.Parent)
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.EntityPrefix, ref.Parent)}, {PK: pk, SK: layout.CounterSK(layout.RelationPrefix)}, {PK: pk, SK: layout.OwnCounterSK(layout.RelationPrefix, uid)}}
	case domain.ReadCampaignRelationList:
		return []layout.ItemKey{{PK: cpk, SK: layout.CounterSK(layout.RelationIndexPrefix)}, {PK: cpk, SK: layout.OwnCounterSK(layout.RelationIndexPrefix, uid)}}
	case domain.ReadLocationList:
		return []layout.ItemKey{{PK: cpk, SK: layout.CounterSK(layout.LocationPrefix)}}
	case domain.ReadCalendarList:
		return []layout.ItemKey{{PK: cpk, SK: layout.CounterSK(layout.CalendarPrefix)}}
	case domain.ReadEntityList:
		return []layout.ItemKey{{PK: cpk, SK: layout.CounterSK(layout.EntityPrefix)}}
	case domain.ReadMemberList:
		return []layout.ItemKey{{PK: cpk, SK: layout.CounterSK(layout.MemberKind)}}
	case domain.ReadMapPointList:
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.LocationPrefix, ref.Parent)}, {PK: layout.MapPointsPK(cid, ref.Parent), SK: layout.CounterSK(layout.MapPointPrefix)}}
	case domain.ReadNoteList, domain.ReadEventList:
		kind := layout.NotePrefix
		if ref.Read == domain.ReadEventList {
			kind = layout.EventPrefix
		}
		pk := layout.EntityPK(cid, ref.Parent)
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.EntityPrefix, ref.Parent)}, {PK: pk, SK: layout.CounterSK(kind)}, {PK: pk, SK: layout.OwnCounterSK(kind, uid)}}
	case domain.ReadWeather:
		out := []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.CalendarPrefix, ref.Parent)}}
		for _, sk := range childHomeSKs(layout.WeatherPrefix, ref.ID) {
			out = append(out, layout.ItemKey{PK: layout.CalendarPK(cid, ref.Parent), SK: sk})
		}
		return out
	case domain.ReadWeatherList:
		pk := layout.CalendarPK(cid, ref.Parent)
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.CalendarPrefix, ref.Parent)}, {PK: pk, SK: layout.CounterSK(layout.WeatherPrefix)}, {PK: pk, SK: layout.OwnCounterSK(layout.WeatherPrefix, uid)}}
	case domain.ReadReminderList:
		pk := layout.CalendarPK(cid, ref.ID)
		return []layout.ItemKey{{PK: cpk, SK: layout.RecordSK(layout.CalendarPrefix, ref.ID)}, {PK: pk, SK: layout.CounterSK(layout.ReminderKind)}, {PK: pk, SK: layout.OwnCounterSK(layout.ReminderKind, uid)}}
	}
	return nil
}

// getItems reads items by key, strongly consistent: those read ahead from the request's
// readAhead, the rest in one BatchGetItem per 100 (a function's reads
// are all BatchGetItem: its policy needs no GetItem). Missing items are absent from the map.
func (s *Store) getItems(ctx context.Context, keys ...layout.ItemKey) (map[layout.ItemKey]dynamo.Item, error) {
	return s.fetch(ctx, true, keys)
}

// peekItems is getItems leaving what was read ahead for later reads in the request: counters,
// which a request reads and never writes.
func (s *Store) peekItems(ctx context.Context, keys ...layout.ItemKey) (map[layout.ItemKey]dynamo.Item, error) {
	return s.fetch(ctx, false, keys)
}

func (s *Store) fetch(ctx context.Context, consume bool, keys []layout.ItemKey) (map[layout.ItemKey]dynamo.Item, error) {
	out := make(map[layout.ItemKey]dynamo.Item, len(keys))
	ahead := readAheadOf(ctx)
	var rest []map[string]types.AttributeValue
	seen := make(map[layout.ItemKey]bool, len(keys))
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
		rest = append(rest, sdkKey(k.PK, k.SK))
	}
	if len(rest) == 0 {
		return out, nil
	}
	items, err := s.batchGetItems(ctx, true, rest)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		out[layout.KeyOfItem(it)] = it
	}
	return out, nil
}

// getOne reads one item into out through getItems; ErrNotFound when there is none.
func (s *Store) getOne(ctx context.Context, k layout.ItemKey, out any) error {
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
