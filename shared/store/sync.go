package store

import (
	"context"
	"errors"
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
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Sync pointers and tombstones (DESIGN 3). Every record write moves the record's pointer
// SYNC#KIND#<updated_at>#id in its list's partition, in the write's transaction, so a list read
// with lastSync T Queries the pointers after T (about the changed records) instead of the list's
// whole range. Every delete writes GONE#KIND#<deleted_at>#id there (ttl 30 days), which
// `?deleted=1` answers. Both carry what decides who may see the record (privacy, visibility,
// creator): a reader keeps those its ranges hold (layout.PointerSlots), as the record's own placement
// would, so totals are exact without reading the records.

// maxSyncPointers bounds the pointers one lastSync read evaluates: when more records changed
// since T (a first sync from long ago), the list falls back to reading its range with a
// condition on updated_at, which then costs about what the answer holds anyway.
var maxSyncPointers = 2000

// goneItem is a tombstone: the record's pointer at its deletion time, kept GoneHistory. A
// re-placement mark (Replaced) is a tombstone of the audience a record had before a write
// changed it (made private, its visibility or its entity's privacy changed): the pointer's
// audience then, and Now* the one it got, so that a lastSync read tells those who could see
// it, and no longer can, that it is hidden from them (ListRemoved).
type goneItem struct {
	layout.SyncPointer
	EntityID  int64  `dynamo:"entity_id,omitempty"`
	DeletedAt string `dynamo:"deleted_at"`
	TTL       int64  `dynamo:"ttl"`

	Replaced      bool   `dynamo:"replaced,omitempty"`
	NowPrivate    bool   `dynamo:"now_private,omitempty"`
	NowVisibility string `dynamo:"now_visibility,omitempty"`
	NowCreatedBy  int64  `dynamo:"now_created_by,omitempty"`
}

// now is the pointer of the record a re-placement mark names, with the audience it got.
func (g *goneItem) now() layout.SyncPointer {
	p := g.SyncPointer
	p.IsPrivate, p.Visibility, p.CreatedBy = g.NowPrivate, g.NowVisibility, g.NowCreatedBy
	return p
}

func ownerRef(kind string, m *domain.Meta, o *domain.Owner) *layout.SyncRef {
	return &layout.SyncRef{Kind: kind, Ptr: layout.SyncPointer{PK: layout.CampaignPK(m.CampaignID), ID: m.ID, IsPrivate: o.IsPrivate},
		Updated: m.UpdatedAt, EntityID: o.EntityID}
}

func eventRef(ev *timeline.Event) *layout.SyncRef {
	return &layout.SyncRef{Kind: layout.EventPrefix, Ptr: layout.SyncPointer{PK: layout.EntityPK(ev.CampaignID, ev.EntityID), ID: ev.ID,
		IsPrivate: ev.IsPrivate, Visibility: string(ev.Visibility), CreatedBy: ev.CreatedBy}, Updated: ev.UpdatedAt}
}

func mapPointRef(p *domain.MapPoint) *layout.SyncRef {
	return &layout.SyncRef{Kind: layout.MapPointPrefix, Ptr: layout.SyncPointer{PK: layout.MapPointsPK(p.CampaignID, p.LocationID), ID: p.ID}, Updated: p.UpdatedAt}
}

// synced moves a record's pointer from prev (nil: a new record) to next (nil: a deleted record,
// which leaves its tombstone instead). The refs are built when the transaction is, after the
// write stamped its times.
func synced(prev, next func() *layout.SyncRef) func(*txBuilder) {
	return func(b *txBuilder) {
		var p, n *layout.SyncRef
		if prev != nil {
			p = prev()
		}
		if next != nil {
			n = next()
		}
		b.syncMove(p, n)
	}
}

func (b *txBuilder) syncMove(prev, next *layout.SyncRef) {
	nextSK := ""
	if next != nil {
		nextSK = layout.SyncSK(next.Kind, layout.FormatTime(next.Updated), next.Ptr.ID)
	}
	if prev != nil {
		if sk := layout.SyncSK(prev.Kind, layout.FormatTime(prev.Updated), prev.Ptr.ID); sk != nextSK {
			b.del(b.s.table.Delete("pk", prev.Ptr.PK).Range("sk", sk))
		}
	}
	if next != nil {
		p := next.Ptr
		p.SK = nextSK
		b.put(b.s.table.Put(p))
		if prev != nil && audience(prev.Ptr) != audience(next.Ptr) {
			b.syncReplaced(prev, next, b.s.now())
		}
		return
	}
	if prev != nil {
		b.syncGone(prev, b.s.now())
	}
}

// syncGone writes the tombstone of prev, deleted at, and its expiry's queue item.
func (b *txBuilder) syncGone(prev *layout.SyncRef, at time.Time) {
	expires := at.Add(domain.GoneHistory)
	g := goneItem{SyncPointer: prev.Ptr, EntityID: prev.EntityID, DeletedAt: layout.FormatTime(at), TTL: expires.Unix()}
	g.SK = layout.GoneSK(prev.Kind, g.DeletedAt, prev.Ptr.ID)
	b.put(b.s.table.Put(g))
	q := layout.GoneQueueKey(campaignOf(prev.Ptr.PK), expires, prev.Kind, prev.Ptr.ID)
	b.put(b.s.table.Put(goneQueued{PK: q.PK, SK: q.SK, GonePK: g.PK, GoneSK: g.SK, TTL: g.TTL}))
}

// audience is what of a pointer decides who may see its record.
func audience(p layout.SyncPointer) [3]any { return [3]any{p.IsPrivate, p.Visibility, p.CreatedBy} }

// syncReplaced writes the re-placement mark of a record whose audience changed from prev's to
// next's. One item, without a queue item: DynamoDB's TTL removes it, and no read reaches past
// GoneHistory by its key (the mark's time is in it), so one left by DynamoDB Local costs only
// its storage. The writes that re-place many records at once budget it (markerRelinkItems,
// relationItems).
func (b *txBuilder) syncReplaced(prev, next *layout.SyncRef, at time.Time) {
	g := goneItem{SyncPointer: prev.Ptr, EntityID: prev.EntityID, DeletedAt: layout.FormatTime(at), TTL: at.Add(domain.GoneHistory).Unix(),
		Replaced: true, NowPrivate: next.Ptr.IsPrivate, NowVisibility: next.Ptr.Visibility, NowCreatedBy: next.Ptr.CreatedBy}
	g.SK = layout.GoneSK(prev.Kind, g.DeletedAt, prev.Ptr.ID)
	b.put(b.s.table.Put(g))
}

// unGone deletes the tombstone syncGone wrote for ref at, and its queue item: a restored
// record is no longer deleted.
func (b *txBuilder) unGone(ref *layout.SyncRef, at time.Time) {
	b.del(b.s.table.Delete("pk", ref.Ptr.PK).Range("sk", layout.GoneSK(ref.Kind, layout.FormatTime(at), ref.Ptr.ID)))
	q := layout.GoneQueueKey(campaignOf(ref.Ptr.PK), at.Add(domain.GoneHistory), ref.Kind, ref.Ptr.ID)
	b.del(b.s.table.Delete("pk", q.PK).Range("sk", q.SK))
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
	digits, _, _ := strings.Cut(strings.TrimPrefix(pk, layout.CampaignPrefix), "#")
	cid, _ := strconv.ParseInt(digits, 10, 64)
	return cid
}

// goneSweepBatch bounds the expired tombstones one sweep removes per shard.
const goneSweepBatch = 500

// SweepGone removes the tombstones whose time is over (and their queue items), at most
// goneSweepBatch per shard per sweep; it returns how many, and whether more are due.
func (s *Store) SweepGone(ctx context.Context) (int, bool, error) {
	cutoff := s.now().UTC().Format(layout.PendingTimeFmt)
	n, more := 0, false
	for shard := 0; shard < layout.PendingShards; shard++ {
		var due []goneQueued
		err := s.table.Get("pk", layout.GoneQueuePK(shard)).Range("sk", dynamo.Less, cutoff).Consistent(true).Limit(goneSweepBatch).All(ctx, &due)
		if err != nil {
			return n, more, layout.Wrap(err)
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

// isSynced reports whether the writes of kind move a sync pointer (its row's synced); a
// lastSync read of any other list (members, reminder links, relations) filters its range instead.
func isSynced(kind string) bool {
	k, ok := layout.KindOf(kind)
	return ok && k.Synced
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
		f.CreatedBy == nil && f.UpdatedBy == nil && f.ParentLocationID == nil && f.ParentEntityID == nil && !f.None &&
		f.Fields == nil && f.Equal == nil && f.Differ == nil && f.Refs == nil
}

// listSync reads a page of l changed after l's lastSync from the pointers: one Query of the
// pointers after T, then one BatchGetItem of the page's records (lastSync alone), or of every
// candidate's record, 100 a call, when other filters are given with it. ok is false when too
// many records changed since T (the caller reads the range instead).
func (s *Store) listSync(ctx context.Context, l listSpec, p domain.PageRequest) (rows []row, total int, next string, ok bool, err error) {
	pk, kind := l.ranges[0].PK, rangeKind(l.ranges[0].Prefix)
	lower := layout.AfterTS(layout.SyncPrefix, kind, layout.FormatTime(*l.f.UpdatedAfter))
	var ptrs []layout.SyncPointer
	err = s.table.Get("pk", pk).Range("sk", dynamo.Between, lower, layout.SyncPrefix+kind+"#~").
		Consistent(true).Limit(maxSyncPointers+1).All(ctx, &ptrs)
	if err != nil {
		return nil, 0, "", false, layout.Wrap(err)
	}
	if len(ptrs) > maxSyncPointers {
		return nil, 0, "", false, nil
	}
	type cand struct {
		id  int64
		key layout.ItemKey
	}
	seen := map[int64]bool{}
	var cands []cand
	for _, ptr := range ptrs {
		if k, vis := layout.ReaderKey(l.ranges, kind, ptr); vis && !seen[ptr.ID] {
			seen[ptr.ID] = true
			cands = append(cands, cand{ptr.ID, k})
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].id < cands[j].id })
	fetch := func(cs []cand) (map[layout.ItemKey]dynamo.Item, error) {
		out := make(map[layout.ItemKey]dynamo.Item, len(cs))
		var mu sync.Mutex
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(writeConcurrency)
		for start := 0; start < len(cs); start += 100 {
			chunk := cs[start:min(start+100, len(cs))]
			g.Go(func() error {
				keys := make([]layout.ItemKey, len(chunk))
				for i, c := range chunk {
					keys[i] = c.key
				}
				items, err := s.batchGet(gctx, true, keys...)
				mu.Lock()
				defer mu.Unlock()
				for _, it := range items {
					var k layout.ItemKey
					_ = dynamo.Unmarshal(it["pk"], &k.PK)
					_ = dynamo.Unmarshal(it["sk"], &k.SK)
					out[k] = it
				}
				return err
			})
		}
		return out, g.Wait()
	}
	var items map[layout.ItemKey]dynamo.Item
	if filtered := !onlySince(*l.f) || l.keep != nil; filtered {
		if items, err = fetch(cands); err != nil {
			return nil, 0, "", false, err
		}
		kept := cands[:0]
		for _, c := range cands {
			if it, ok := items[c.key]; ok && l.f.Match(filteredOf(it)) && matchOwn(*l.f, it) && (l.keep == nil || l.keep(it)) {
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
		UpdatedBy: x.UpdatedBy, UpdatedAt: layout.ParseTime(x.UpdatedAt), ParentLocationID: x.Parent}
}

// ListGone reads one page of the tombstones of a list that reader a may see, deleted after
// q.Since (or within GoneHistory, whichever is later): one Query of the list's tombstones from
// that bound (at most domain.MaxGoneRead, a 422 on lastSync beyond), merged and paged by id.
// Tombstones past their ttl are skipped: DynamoDB removes them some time after it, and DynamoDB
// Local never does. The bound used is returned with the page.
func (s *Store) ListGone(ctx context.Context, cid int64, q domain.GoneQuery, a domain.Access, p domain.PageRequest) (domain.Page[domain.Gone], time.Time, error) {
	out := domain.Page[domain.Gone]{Items: []domain.Gone{}}
	since := s.goneSince(q)
	if read, ok := goneLists[q.List]; ok { // kept by the family itself
		rows, err := read(ctx, s, cid, q.Parent, since, a)
		if err != nil {
			return out, since, err
		}
		return domain.PageOf(rows, p, func(g *domain.Gone) int64 { return g.ID }), since, nil
	}
	tombs, ranges, kind, err := s.readTombstones(ctx, cid, q, since, a)
	if err != nil {
		return out, since, err
	}
	var rows []domain.Gone
	seen := map[int64]bool{}
	for _, t := range tombs {
		if t.Replaced || seen[t.ID] {
			continue
		}
		if _, vis := layout.ReaderKey(ranges, kind, t.SyncPointer); vis {
			seen[t.ID] = true
			rows = append(rows, domain.Gone{ID: t.ID, EntityID: t.EntityID, DeletedAt: layout.ParseTime(t.DeletedAt)})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return domain.PageOf(rows, p, func(g *domain.Gone) int64 { return g.ID }), since, nil
}

// goneSince is the bound of a tombstone read: q.Since, or GoneHistory ago if later.
func (s *Store) goneSince(q domain.GoneQuery) time.Time {
	since := s.now().Add(-domain.GoneHistory)
	if q.Since.After(since) {
		since = q.Since
	}
	return since
}

// readTombstones reads the tombstones of q's list after since, in time order, live ones only
// (past its ttl a tombstone is skipped: DynamoDB removes it some time after, DynamoDB Local
// never), with the reader's ranges of the list and its kind: one Query of at most
// domain.MaxGoneRead items, a 422 on lastSync beyond.
func (s *Store) readTombstones(ctx context.Context, cid int64, q domain.GoneQuery, since time.Time, a domain.Access) ([]goneItem, []layout.ListRange, string, error) {
	var ranges []layout.ListRange
	k, _ := layout.GoneKind(q.List)
	kind := k.Prefix
	switch {
	case kind == layout.RelationPrefix:
		ranges = childRanges(kind, layout.EntityPK(cid, q.Parent), a)
	case kind == layout.RelationIndexPrefix:
		ranges = childRanges(kind, layout.CampaignPK(cid), a)
	case k.Parent == "" && k.Prefix != "":
		ranges = ownerRanges(kind, cid, a.IsAdmin())
	case k.Placement == layout.PlaceChild:
		ranges = childRanges(kind, layout.ChildPK(cid, k.Parent, q.Parent), a)
	case k.Placement == layout.PlaceMapPoint:
		pk := layout.ChildPK(cid, k.Parent, q.Parent)
		ranges = []layout.ListRange{{PK: pk, Prefix: kind + "#", Counter: layout.CounterSK(kind), Attr: layout.ClassAdmin}}
	default:
		return nil, nil, kind, apperr.ErrNotFound
	}
	pk := ranges[0].PK
	var tombs []goneItem
	err := s.table.Get("pk", pk).Range("sk", dynamo.Between, layout.AfterTS(layout.GonePrefix, kind, layout.FormatTime(since)), layout.GonePrefix+kind+"#~").
		Consistent(true).Limit(domain.MaxGoneRead+1).All(ctx, &tombs)
	if err != nil {
		return nil, nil, kind, layout.Wrap(err)
	}
	if len(tombs) > domain.MaxGoneRead {
		return nil, nil, kind, apperr.Invalid("lastSync", "More than 10000 records were deleted since the last sync: sync this list in full.")
	}
	now := s.now().Unix()
	live := tombs[:0]
	for _, t := range tombs {
		if t.TTL > now {
			live = append(live, t)
		}
	}
	return live, ranges, kind, nil
}

// ListRemoved reads what of q's list was removed from reader a's view after q.Since (or
// within GoneHistory, whichever is later), by id: the records deleted that a could see when
// they were, and those a could see at some time since (before a re-placement) that it no
// longer can, alive or deleted since (Hidden). The one Query of ListGone; a family's own
// deletions (DeclareGoneList) are deletions only. The bound used is returned with them.
func (s *Store) ListRemoved(ctx context.Context, cid int64, q domain.GoneQuery, a domain.Access) ([]domain.Removal, time.Time, error) {
	since := s.goneSince(q)
	if read, ok := goneLists[q.List]; ok {
		rows, err := read(ctx, s, cid, q.Parent, since, a)
		out := make([]domain.Removal, len(rows))
		for i, g := range rows {
			out[i] = domain.Removal{ID: g.ID, EntityID: g.EntityID, At: g.DeletedAt}
		}
		return out, since, err
	}
	tombs, ranges, kind, err := s.readTombstones(ctx, cid, q, since, a)
	if err != nil {
		return nil, since, err
	}
	visible := func(p layout.SyncPointer) bool { _, vis := layout.ReaderKey(ranges, kind, p); return vis }
	// Each record's marks and tombstone in time order (the Query's): the last says where it is now.
	type state struct {
		seen    bool // a could see it at some time since
		deleted bool // the last is a deletion
		visNow  bool // a sees it now (alive) or saw it deleted
		entity  int64
		at      string
	}
	by := map[int64]*state{}
	for _, t := range tombs {
		st := by[t.ID]
		if st == nil {
			st = &state{}
			by[t.ID] = st
		}
		st.seen = st.seen || visible(t.SyncPointer)
		st.entity, st.at = t.EntityID, t.DeletedAt
		if t.Replaced {
			st.deleted, st.visNow = false, visible(t.now())
		} else {
			st.deleted, st.visNow = true, visible(t.SyncPointer)
		}
	}
	out := []domain.Removal{}
	for id, st := range by {
		switch {
		case st.deleted && st.visNow:
			out = append(out, domain.Removal{ID: id, EntityID: st.entity, At: layout.ParseTime(st.at)})
		case st.seen && !st.visNow:
			out = append(out, domain.Removal{ID: id, EntityID: st.entity, At: layout.ParseTime(st.at), Hidden: true})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, since, nil
}

// goneLists answer the `?deleted=1` of lists whose deletions their families keep themselves
// (not in tombstones), declared by the families.
var goneLists = map[string]func(ctx context.Context, s *Store, cid, parent int64, since time.Time, a domain.Access) ([]domain.Gone, error){}

// DeclareGoneList registers how list's `?deleted=1` is answered: the deletions after since
// under parent that reader a may see, by id.
func DeclareGoneList(list string, read func(ctx context.Context, s *Store, cid, parent int64, since time.Time, a domain.Access) ([]domain.Gone, error)) {
	goneLists[list] = read
}

// attributesOf reads the attributes of entities (a related=1 page), declared by their family.
var attributesOf func(ctx context.Context, s *Store, cid int64, eids []int64) (map[int64][]domain.Attribute, error)

// DeclareAttributes registers how a related=1 read reads the attributes of a page's entities.
func DeclareAttributes(read func(ctx context.Context, s *Store, cid int64, eids []int64) (map[int64][]domain.Attribute, error)) {
	attributesOf = read
}

// AttributesOf reads the attributes of the entities eids (a related=1 page), by the attributes
// family's declaration (package kinds links it in every binary).
func (s *Store) AttributesOf(ctx context.Context, cid int64, eids []int64) (map[int64][]domain.Attribute, error) {
	if attributesOf == nil {
		return nil, errors.New("store: the attributes family is not declared (package kinds)")
	}
	return attributesOf(ctx, s, cid, eids)
}
