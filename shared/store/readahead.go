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

// Reads ahead are declared, not listed: each kind's reads are domain.Read handles that its
// declaration makes from the kernel's shapes (RecordRead, ListRead, ChildRead, ChildListRead,
// or a shape of the kernel's own), so a new kind adds its reads without changing this file.
var readShapes = []func(cid, uid int64, ref domain.Ref) []layout.ItemKey{nil} // by domain.Read; 0 is none

// declareRead registers shape and answers its handle (at init: the kinds' declarations).
func declareRead(shape func(cid, uid int64, ref domain.Ref) []layout.ItemKey) domain.Read {
	readShapes = append(readShapes, shape)
	return domain.Read(len(readShapes) - 1)
}

// refKeys are the items a route reads for ref, for reader uid.
func refKeys(cid, uid int64, ref domain.Ref) []layout.ItemKey {
	if int(ref.Read) <= 0 || int(ref.Read) >= len(readShapes) {
		return nil
	}
	return readShapes[ref.Read](cid, uid, ref)
}

// RecordRead reads a record of owner kind k by id: its home, and for a nested kind its public
// copy (which says whether its parent is public).
func RecordRead(k Kind) domain.Read {
	return declareRead(func(cid, _ int64, ref domain.Ref) []layout.ItemKey {
		home := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Prefix, ref.ID)}
		if k.ParentAttr == "" {
			return []layout.ItemKey{home}
		}
		return []layout.ItemKey{home, {PK: home.PK, SK: layout.PublicCopy + home.SK}}
	})
}

// ListRead reads the counts of the campaign's records of kind k (a list page's totals).
func ListRead(k Kind) domain.Read {
	return declareRead(func(cid, _ int64, _ domain.Ref) []layout.ItemKey {
		return []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.CounterSK(k.Prefix)}}
	})
}

// ChildRead reads a child of kind k by id (Ref.ID) under its parent (Ref.Parent): the parent's
// home and the child's home keys in the parent's partition (both of a child placed by
// visibility, whose `self` records have a key of their own).
func ChildRead(k Kind) domain.Read {
	return declareRead(func(cid, _ int64, ref domain.Ref) []layout.ItemKey {
		out := []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Parent, ref.Parent)}}
		pk := layout.ChildPK(cid, k.Parent, ref.Parent)
		if k.Placement != layout.PlaceChild {
			return append(out, layout.ItemKey{PK: pk, SK: layout.RecordSK(k.Prefix, ref.ID)})
		}
		for _, sk := range childHomeSKs(k.Prefix, ref.ID) {
			out = append(out, layout.ItemKey{PK: pk, SK: sk})
		}
		return out
	})
}

// ChildListRead reads a parent (Ref.Parent) and the counts of its children of kind k: the
// reader's own count too for a child placed by visibility.
func ChildListRead(k Kind) domain.Read {
	return declareRead(func(cid, uid int64, ref domain.Ref) []layout.ItemKey {
		pk := layout.ChildPK(cid, k.Parent, ref.Parent)
		out := []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Parent, ref.Parent)}, {PK: pk, SK: layout.CounterSK(k.Prefix)}}
		if k.Placement == layout.PlaceChild {
			out = append(out, layout.ItemKey{PK: pk, SK: layout.OwnCounterSK(k.Prefix, uid)})
		}
		return out
	})
}

// The reads of the kinds the kernel stores itself.
var (
	ReadEntity = declareRead(func(cid, _ int64, ref domain.Ref) []layout.ItemKey {
		return []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, ref.ID)}}
	})
	ReadEntityList = ListRead(layout.MustKind(layout.EntityPrefix))
	ReadMemberList = declareRead(func(cid, _ int64, _ domain.Ref) []layout.ItemKey { // the campaign's member count
		return []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.CounterSK(layout.MemberKind)}}
	})
	// ReadReminderList: a calendar (Ref.ID) and its reminders' counts.
	ReadReminderList = declareRead(func(cid, uid int64, ref domain.Ref) []layout.ItemKey {
		pk := layout.CalendarPK(cid, ref.ID)
		return []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.CalendarPrefix, ref.ID)},
			{PK: pk, SK: layout.CounterSK(layout.ReminderKind)}, {PK: pk, SK: layout.OwnCounterSK(layout.ReminderKind, uid)}}
	})
	// ReadRelation: a relation and its owner entity (Ref.Parent); ReadRelationList an entity's
	// relation counts; ReadCampaignRelationList the campaign-wide ones.
	ReadRelation = declareRead(func(cid, _ int64, ref domain.Ref) []layout.ItemKey {
		out := []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, ref.Parent)}}
		for _, sk := range childHomeSKs(layout.RelationPrefix, ref.ID) {
			out = append(out, layout.ItemKey{PK: layout.EntityPK(cid, ref.Parent), SK: sk})
		}
		return out
	})
	ReadRelationList = declareRead(func(cid, uid int64, ref domain.Ref) []layout.ItemKey {
		pk := layout.EntityPK(cid, ref.Parent)
		return []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, ref.Parent)},
			{PK: pk, SK: layout.CounterSK(layout.RelationPrefix)}, {PK: pk, SK: layout.OwnCounterSK(layout.RelationPrefix, uid)}}
	})
	ReadCampaignRelationList = declareRead(func(cid, uid int64, _ domain.Ref) []layout.ItemKey {
		cpk := layout.CampaignPK(cid)
		return []layout.ItemKey{{PK: cpk, SK: layout.CounterSK(layout.RelationIndexPrefix)}, {PK: cpk, SK: layout.OwnCounterSK(layout.RelationIndexPrefix, uid)}}
	})
	// A map's reads take its layers and groups too, which every map answer embeds.
	ReadMap = declareRead(func(cid, _ int64, ref domain.Ref) []layout.ItemKey {
		return append(mapKeys(cid, ref.ID), packKeys(cid, ref.ID)...)
	})
	ReadMapPacks = declareRead(func(cid, _ int64, ref domain.Ref) []layout.ItemKey {
		return append(mapKeys(cid, ref.Parent), packKeys(cid, ref.Parent)...)
	})
	ReadMapList = ListRead(layout.MapKind)
	ReadMarker  = declareRead(func(cid, _ int64, ref domain.Ref) []layout.ItemKey {
		out := append(mapKeys(cid, ref.Parent), packKeys(cid, ref.Parent)...) // its groups: group_id
		for _, sk := range childHomeSKs(layout.MarkerPrefix, ref.ID) {
			out = append(out, layout.ItemKey{PK: layout.MapPK(cid, ref.Parent), SK: sk})
		}
		return out
	})
	ReadMarkerList = declareRead(func(cid, uid int64, ref domain.Ref) []layout.ItemKey {
		pk := layout.MapPK(cid, ref.Parent)
		return append(append(mapKeys(cid, ref.Parent), packKeys(cid, ref.Parent)...),
			layout.ItemKey{PK: pk, SK: layout.CounterSK(layout.MarkerPrefix)}, layout.ItemKey{PK: pk, SK: layout.OwnCounterSK(layout.MarkerPrefix, uid)})
	})
)

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

// EntityItemRead reads an entity (Ref.Parent) and its family's item sk of its partition.
func EntityItemRead(sk string) domain.Read {
	return declareRead(func(cid, _ int64, ref domain.Ref) []layout.ItemKey {
		return []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, ref.Parent)}, {PK: layout.EntityPK(cid, ref.Parent), SK: sk}}
	})
}
