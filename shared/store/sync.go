package store

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// Sync pointers and tombstones (DESIGN 3). Every record write moves the record's pointer
// SYNC#KIND#<updated_at>#id in its list's partition, in the write's transaction, so a list read
// with lastSync T Queries the pointers after T (about the changed records) instead of the list's
// whole range. Every delete writes GONE#KIND#<deleted_at>#id there (ttl 30 days), which
// `?deleted=1` answers. Both carry what decides who may see the record (privacy, visibility,
// creator): a reader keeps those its ranges hold (pointerSlots), as the record's own placement
// would, so totals are exact without reading the records.

// maxSyncPointers bounds the pointers one lastSync read evaluates: when more records changed
// since T (a first sync from long ago), the list falls back to reading its range with a
// condition on updated_at, which then costs about what the answer holds anyway.
var maxSyncPointers = 2000

// syncPointer is a pointer (or, inside goneItem, a tombstone).
type syncPointer struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	ID         int64  `dynamo:"id"`
	IsPrivate  bool   `dynamo:"is_private,omitempty"`
	Visibility string `dynamo:"visibility,omitempty"`
	CreatedBy  int64  `dynamo:"created_by,omitempty"`
}

// goneItem is a tombstone: the record's pointer at its deletion time, kept GoneHistory.
type goneItem struct {
	syncPointer
	EntityID  int64  `dynamo:"entity_id,omitempty"`
	DeletedAt string `dynamo:"deleted_at"`
	TTL       int64  `dynamo:"ttl"`
}

// syncRef is a record as its pointer sees it: kind, list partition, audience and update time.
type syncRef struct {
	kind     string
	ptr      syncPointer
	updated  time.Time
	entityID int64 // of a location or calendar, for its tombstone
}

func ownerRef(kind string, m *domain.Meta, o *domain.Owner) *syncRef {
	return &syncRef{kind: kind, ptr: syncPointer{PK: campaignPK(m.CampaignID), ID: m.ID, IsPrivate: o.IsPrivate},
		updated: m.UpdatedAt, entityID: o.EntityID}
}

func entityRef(m *domain.Meta, o *domain.Owner) *syncRef {
	return &syncRef{kind: entityPrefix, ptr: syncPointer{PK: campaignPK(m.CampaignID), ID: o.EntityID, IsPrivate: o.IsPrivate},
		updated: m.UpdatedAt}
}

func noteRef(n *domain.Note) *syncRef {
	return &syncRef{kind: notePrefix, ptr: syncPointer{PK: entityPK(n.CampaignID, n.EntityID), ID: n.ID,
		Visibility: string(n.Visibility), CreatedBy: n.CreatedBy}, updated: n.UpdatedAt}
}

func eventRef(ev *timeline.Event) *syncRef {
	return &syncRef{kind: eventPrefix, ptr: syncPointer{PK: entityPK(ev.CampaignID, ev.EntityID), ID: ev.ID,
		IsPrivate: ev.IsPrivate, Visibility: string(ev.Visibility), CreatedBy: ev.CreatedBy}, updated: ev.UpdatedAt}
}

func weatherRef(w *timeline.DayWeather) *syncRef {
	return &syncRef{kind: weatherPrefix, ptr: syncPointer{PK: calendarPK(w.CampaignID, w.CalendarID), ID: w.ID,
		Visibility: string(w.Visibility), CreatedBy: w.CreatedBy}, updated: w.UpdatedAt}
}

func mapPointRef(p *domain.MapPoint) *syncRef {
	return &syncRef{kind: mapPointPrefix, ptr: syncPointer{PK: mapPointsPK(p.CampaignID, p.LocationID), ID: p.ID}, updated: p.UpdatedAt}
}

// synced moves a record's pointer from prev (nil: a new record) to next (nil: a deleted record,
// which leaves its tombstone instead). The refs are built when the transaction is, after the
// write stamped its times.
func synced(prev, next func() *syncRef) func(*txBuilder) {
	return func(b *txBuilder) {
		var p, n *syncRef
		if prev != nil {
			p = prev()
		}
		if next != nil {
			n = next()
		}
		b.syncMove(p, n)
	}
}

func (b *txBuilder) syncMove(prev, next *syncRef) {
	nextSK := ""
	if next != nil {
		nextSK = syncSK(next.kind, formatTime(next.updated), next.ptr.ID)
	}
	if prev != nil {
		if sk := syncSK(prev.kind, formatTime(prev.updated), prev.ptr.ID); sk != nextSK {
			b.del(b.s.table.Delete("pk", prev.ptr.PK).Range("sk", sk))
		}
	}
	if next != nil {
		p := next.ptr
		p.SK = nextSK
		b.put(b.s.table.Put(p))
		return
	}
	if prev != nil {
		b.syncGone(prev, b.s.now())
	}
}

// syncGone writes the tombstone of prev, deleted at, and its expiry's queue item.
func (b *txBuilder) syncGone(prev *syncRef, at time.Time) {
	expires := at.Add(domain.GoneHistory)
	g := goneItem{syncPointer: prev.ptr, EntityID: prev.entityID, DeletedAt: formatTime(at), TTL: expires.Unix()}
	g.SK = goneSK(prev.kind, g.DeletedAt, prev.ptr.ID)
	b.put(b.s.table.Put(g))
	q := goneQueueKey(campaignOf(prev.ptr.PK), expires, prev.kind, prev.ptr.ID)
	b.put(b.s.table.Put(goneQueued{PK: q.pk, SK: q.sk, GonePK: g.PK, GoneSK: g.SK, TTL: g.TTL}))
}

// unGone deletes the tombstone syncGone wrote for ref at, and its queue item: a restored
// record is no longer deleted.
func (b *txBuilder) unGone(ref *syncRef, at time.Time) {
	b.del(b.s.table.Delete("pk", ref.ptr.PK).Range("sk", goneSK(ref.kind, formatTime(at), ref.ptr.ID)))
	q := goneQueueKey(campaignOf(ref.ptr.PK), at.Add(domain.GoneHistory), ref.kind, ref.ptr.ID)
	b.del(b.s.table.Delete("pk", q.pk).Range("sk", q.sk))
}

// goneQueued lists a tombstone by its expiry, so the sweeper removes it where DynamoDB's TTL
// does not run (DynamoDB Local) or has not yet (it may take two days): one Query per shard.
type goneQueued struct {
	PK     string `dynamo:"pk"`
	SK     string `dynamo:"sk"`
	GonePK string `dynamo:"gone_pk"`
	GoneSK string `dynamo:"gone_sk"`
	TTL    int64  `dynamo:"ttl"`
}

// campaignOf is the campaign id of a key under its partition (CAMPAIGN#c...).
func campaignOf(pk string) int64 {
	digits, _, _ := strings.Cut(strings.TrimPrefix(pk, campaignPrefix), "#")
	cid, _ := strconv.ParseInt(digits, 10, 64)
	return cid
}

// goneSweepBatch bounds the expired tombstones one sweep removes per shard.
const goneSweepBatch = 500

// SweepGone removes the tombstones whose time is over (and their queue items), at most
// goneSweepBatch per shard per sweep; it returns how many, and whether more are due.
func (s *Store) SweepGone(ctx context.Context) (int, bool, error) {
	cutoff := s.now().UTC().Format(pendingTimeFmt)
	n, more := 0, false
	for shard := 0; shard < pendingShards; shard++ {
		var due []goneQueued
		err := s.table.Get("pk", goneQueuePK(shard)).Range("sk", dynamo.Less, cutoff).Consistent(true).Limit(goneSweepBatch).All(ctx, &due)
		if err != nil {
			return n, more, wrap(err)
		}
		more = more || len(due) == goneSweepBatch
		keys := make([]dynamo.Keyed, 0, 2*len(due))
		for _, q := range due {
			keys = append(keys, dynamo.Keys{q.GonePK, q.GoneSK}, dynamo.Keys{q.PK, q.SK})
		}
		if err := s.batchDelete(ctx, keys); err != nil {
			return n, more, err
		}
		n += len(due)
	}
	return n, more, nil
}

// pointerSlots are the items the record of a pointer (or tombstone) of kind has (or had): the
// placement its write gave it, from the audience the pointer carries.
func pointerSlots(kind string, p syncPointer) []slot {
	switch kind {
	case notePrefix, eventPrefix, weatherPrefix, markerPrefix:
		return childSlots(kind, p.PK, p.ID, p.CreatedBy, domain.Visibility(p.Visibility), p.IsPrivate)
	case mapPointPrefix:
		return []slot{{pk: p.PK, sk: recordSK(kind, p.ID), home: true}}
	case relationPrefix: // is_private: an end is private (relations.go)
		return childSlots(kind, p.PK, p.ID, p.CreatedBy, domain.Visibility(p.Visibility), p.IsPrivate)
	case relationIndexPrefix:
		return relationIndexSlots(p.PK, p.ID, p.CreatedBy, domain.Visibility(p.Visibility), p.IsPrivate)
	}
	out := []slot{{pk: p.PK, sk: recordSK(kind, p.ID), home: true}}
	if !p.IsPrivate {
		out = append(out, slot{pk: p.PK, sk: publicCopy + recordSK(kind, p.ID)})
	}
	return out
}

// readerKey is the item of the pointer's record in one of the reader's ranges; ok is false when
// none of them holds it (the reader may not see it).
func readerKey(ranges []listRange, kind string, p syncPointer) (itemKey, bool) {
	for _, sl := range pointerSlots(kind, p) {
		for _, r := range ranges {
			if sl.pk == r.pk && sl.sk == r.sk(p.ID) {
				return itemKey{sl.pk, sl.sk}, true
			}
		}
	}
	return itemKey{}, false
}

// isSynced reports whether the writes of kind move a sync pointer (its row's synced); a
// lastSync read of any other list (members, reminder links, relations) filters its range instead.
func isSynced(kind string) bool {
	k, ok := kindOf(kind)
	return ok && k.synced
}

// rangeKind is the record kind a list range holds ("LOCATION" of "PUB#LOCATION#").
func rangeKind(prefix string) string {
	parts := strings.Split(strings.TrimSuffix(prefix, "#"), "#")
	return parts[len(parts)-1]
}

// onlySince reports whether f filters on lastSync alone.
func onlySince(f domain.Filter) bool {
	f.UpdatedAfter = nil
	return f.Name == nil && f.Type == nil && f.IsPrivate == nil && f.Tags == nil && f.TagsMatch == domain.TagsAll &&
		f.CreatedBy == nil && f.UpdatedBy == nil && f.ParentLocationID == nil && f.ParentEntityID == nil && !f.None
}

// listSync reads a page of l changed after l's lastSync from the pointers: one Query of the
// pointers after T, then one BatchGetItem of the page's records (lastSync alone), or of every
// candidate's record, 100 a call, when other filters are given with it. ok is false when too
// many records changed since T (the caller reads the range instead).
func (s *Store) listSync(ctx context.Context, l listSpec, p domain.PageRequest) (rows []row, total int, next string, ok bool, err error) {
	pk, kind := l.ranges[0].pk, rangeKind(l.ranges[0].prefix)
	lower := afterTS(syncPrefix, kind, formatTime(*l.f.UpdatedAfter))
	var ptrs []syncPointer
	err = s.table.Get("pk", pk).Range("sk", dynamo.Between, lower, syncPrefix+kind+"#~").
		Consistent(true).Limit(maxSyncPointers+1).All(ctx, &ptrs)
	if err != nil {
		return nil, 0, "", false, wrap(err)
	}
	if len(ptrs) > maxSyncPointers {
		return nil, 0, "", false, nil
	}
	type cand struct {
		id  int64
		key itemKey
	}
	seen := map[int64]bool{}
	var cands []cand
	for _, ptr := range ptrs {
		if k, vis := readerKey(l.ranges, kind, ptr); vis && !seen[ptr.ID] {
			seen[ptr.ID] = true
			cands = append(cands, cand{ptr.ID, k})
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].id < cands[j].id })
	fetch := func(cs []cand) (map[itemKey]dynamo.Item, error) {
		out := make(map[itemKey]dynamo.Item, len(cs))
		var mu sync.Mutex
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(writeConcurrency)
		for start := 0; start < len(cs); start += 100 {
			chunk := cs[start:min(start+100, len(cs))]
			g.Go(func() error {
				keys := make([]dynamo.Keyed, len(chunk))
				for i, c := range chunk {
					keys[i] = dynamo.Keys{c.key.pk, c.key.sk}
				}
				items, err := s.batchGet(gctx, true, keys...)
				mu.Lock()
				defer mu.Unlock()
				for _, it := range items {
					var k itemKey
					_ = dynamo.Unmarshal(it["pk"], &k.pk)
					_ = dynamo.Unmarshal(it["sk"], &k.sk)
					out[k] = it
				}
				return err
			})
		}
		return out, g.Wait()
	}
	var items map[itemKey]dynamo.Item
	if filtered := !onlySince(*l.f) || l.keep != nil; filtered {
		if items, err = fetch(cands); err != nil {
			return nil, 0, "", false, err
		}
		kept := cands[:0]
		for _, c := range cands {
			if it, ok := items[c.key]; ok && l.f.Match(filteredOf(it)) && (l.keep == nil || l.keep(it)) {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	start := 0
	if after, ok := domain.DecodeCursor(p.Cursor); ok {
		start = sort.Search(len(cands), func(i int) bool { return cands[i].id > after })
	} else {
		start = min((p.Page-1)*p.Limit, len(cands))
	}
	window := cands[start:min(start+p.Limit, len(cands))]
	if start+p.Limit < len(cands) && len(window) > 0 {
		next = domain.EncodeCursor(window[len(window)-1].id)
	}
	if items == nil {
		if items, err = fetch(window); err != nil {
			return nil, 0, "", false, err
		}
	}
	for _, c := range window {
		if it, ok := items[c.key]; ok {
			rows = append(rows, row{c.id, it})
		}
	}
	return rows, len(cands), next, true, nil
}

// filteredOf is what a filter compares of a stored record: the attributes the store's
// conditions compare (list.go), so that both paths answer alike.
func filteredOf(it dynamo.Item) domain.Filtered {
	var x struct {
		NameLC    string  `dynamo:"name_lc"`
		TypeLC    string  `dynamo:"type_lc"`
		IsPrivate bool    `dynamo:"is_private"`
		Tags      []int64 `dynamo:"tags"`
		CreatedBy int64   `dynamo:"created_by"`
		UpdatedBy int64   `dynamo:"updated_by"`
		UpdatedAt string  `dynamo:"updated_at"`
		Parent    *int64  `dynamo:"parent_location_id"`
	}
	_ = dynamo.UnmarshalItem(it, &x)
	return domain.Filtered{Name: x.NameLC, Type: x.TypeLC, IsPrivate: x.IsPrivate, Tags: x.Tags, CreatedBy: x.CreatedBy,
		UpdatedBy: x.UpdatedBy, UpdatedAt: parseTime(x.UpdatedAt), ParentLocationID: x.Parent}
}

// ListGone reads one page of the tombstones of a list that reader a may see, deleted after
// q.Since (or within GoneHistory, whichever is later): one Query of the list's tombstones from
// that bound (at most domain.MaxGoneRead, a 422 on lastSync beyond), merged and paged by id.
// Tombstones past their ttl are skipped: DynamoDB removes them some time after it, and DynamoDB
// Local never does. The bound used is returned with the page.
func (s *Store) ListGone(ctx context.Context, cid int64, q domain.GoneQuery, a domain.Access, p domain.PageRequest) (domain.Page[domain.Gone], time.Time, error) {
	now := s.now()
	since := now.Add(-domain.GoneHistory)
	if q.Since.After(since) {
		since = q.Since
	}
	out := domain.Page[domain.Gone]{Items: []domain.Gone{}}
	var ranges []listRange
	k, _ := goneKind(q.List)
	kind := k.prefix
	if q.List == domain.GoneAttributes { // kept in the pack (attributes.go)
		rows, err := s.attributeGoneList(ctx, cid, q.Parent, since, a)
		if err != nil {
			return out, since, err
		}
		return domain.PageOf(rows, p, func(g *domain.Gone) int64 { return g.ID }), since, nil
	}
	switch {
	case kind == relationPrefix:
		ranges = childRanges(kind, entityPK(cid, q.Parent), a)
	case kind == relationIndexPrefix:
		ranges = childRanges(kind, campaignPK(cid), a)
	case k.parent == "" && k.prefix != "":
		ranges = ownerRanges(kind, cid, a.IsAdmin())
	case k.placement == placeChild:
		ranges = childRanges(kind, childPK(cid, k.parent, q.Parent), a)
	case k.placement == placeMapPoint:
		pk := childPK(cid, k.parent, q.Parent)
		ranges = []listRange{{pk, kind + "#", counterSK(kind), classAdmin}}
	default:
		return out, since, apperr.ErrNotFound
	}
	pk := ranges[0].pk
	var tombs []goneItem
	err := s.table.Get("pk", pk).Range("sk", dynamo.Between, afterTS(gonePrefix, kind, formatTime(since)), gonePrefix+kind+"#~").
		Consistent(true).Limit(domain.MaxGoneRead+1).All(ctx, &tombs)
	if err != nil {
		return out, since, wrap(err)
	}
	if len(tombs) > domain.MaxGoneRead {
		return out, since, apperr.Invalid("lastSync", "More than 10000 records were deleted since the last sync: sync this list in full.")
	}
	var rows []domain.Gone
	seen := map[int64]bool{}
	for _, t := range tombs {
		if t.TTL <= now.Unix() || seen[t.ID] {
			continue
		}
		if _, vis := readerKey(ranges, kind, t.syncPointer); vis {
			seen[t.ID] = true
			rows = append(rows, domain.Gone{ID: t.ID, EntityID: t.EntityID, DeletedAt: parseTime(t.DeletedAt)})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return domain.PageOf(rows, p, func(g *domain.Gone) int64 { return g.ID }), since, nil
}
