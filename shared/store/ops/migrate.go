package ops

import (
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"

	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// The migration's checkpoint: the phase and the last key of the scan it has finished, written
// after every page, so an interrupted run resumes where it stopped.
type migrationState struct {
	PK        string `dynamo:"pk"`
	SK        string `dynamo:"sk"`
	Phase     int    `dynamo:"phase"` // 1 rewrite, 2 recount, 3 done
	LastPK    string `dynamo:"last_pk,omitempty"`
	LastSK    string `dynamo:"last_sk,omitempty"`
	Read      int    `dynamo:"read"`
	Rewritten int    `dynamo:"rewritten"`
}

var scanPage = 500 // items per scanned page (and checkpoint); a variable for the tests

// MigrateResult says what a migration did.
type MigrateResult struct {
	Layout    int `json:"layout"` // the layout the table is now in
	Read      int `json:"items_read"`
	Rewritten int `json:"records_rewritten"`
	Counters  int `json:"counters_written"`
	Resumed   bool
}

// migrate rewrites a table written by an earlier layout to this one: every record gets the
// copies of its audience ranges (a `self` note or event moves to its SELF# home), pending
// deletes are finished, and every range counter is recounted from the items. It is idempotent
// (a second run rewrites the same items to the same values) and resumable (it continues from
// its checkpoint after an interruption). progress receives one line per scanned page.
//
// Run it while the API takes no writes (for example with the functions' reserved concurrency
// at 0): the recount is exact only for a table that does not change under it.
func (s storeView) migrate(ctx context.Context, progress func(string)) (MigrateResult, error) {
	if progress == nil {
		progress = func(string) {}
	}
	var st migrationState
	err := s.table.Get("pk", layout.MigrationPK).Range("sk", dynamo.Equal, layout.MigrationSK()).Consistent(true).One(ctx, &st)
	res := MigrateResult{Layout: layout.Version}
	switch {
	case errors.Is(err, dynamo.ErrNotFound) || (err == nil && st.Phase >= 3):
		st = migrationState{PK: layout.MigrationPK, SK: layout.MigrationSK(), Phase: 1}
	case err != nil:
		return res, layout.Wrap(err)
	default:
		res.Resumed = true
		progress(fmt.Sprintf("migrate: resuming phase %d after %d items", st.Phase, st.Read))
	}
	save := func() error { return layout.Wrap(s.table.Put(st).Run(ctx)) }
	// Tables made before layout 3 (locally) expire nothing: TTL on attribute `ttl`, as on AWS.
	if err := store.EnsureTTL(ctx, s.st.Client(), s.table.Name()); err != nil {
		return res, layout.Wrap(err)
	}

	if st.Phase == 1 {
		for {
			var items []dynamo.Item
			q := s.table.Scan().Consistent(true).SearchLimit(scanPage)
			if st.LastPK != "" {
				q = q.StartFrom(dynamo.PagingKey{"pk": layout.AttrS(st.LastPK), "sk": layout.AttrS(st.LastSK)})
			}
			lek, err := q.AllWithLastEvaluatedKey(ctx, &items)
			if err != nil {
				return res, layout.Wrap(err)
			}
			n, err := s.rewritePage(ctx, items)
			if err != nil {
				return res, err
			}
			st.Read += len(items)
			st.Rewritten += n
			if lek == nil {
				st.Phase, st.LastPK, st.LastSK = 2, "", ""
			} else {
				_ = dynamo.Unmarshal(lek["pk"], &st.LastPK)
				_ = dynamo.Unmarshal(lek["sk"], &st.LastSK)
			}
			if err := save(); err != nil {
				return res, err
			}
			progress(fmt.Sprintf("migrate: rewrite: %d items read, %d records rewritten", st.Read, st.Rewritten))
			if lek == nil {
				break
			}
		}
	}
	res.Read, res.Rewritten = st.Read, st.Rewritten
	// Phase 1 wrote every event's links, a trashed entity's too: the trash hides them again,
	// and every cascade or delete left pending is finished (both idempotent; before the
	// recount, which counts what they leave).
	if err := s.ReconcileTrash(ctx); err != nil {
		return res, err
	}
	if _, err := s.st.SweepDeletes(ctx, 0); err != nil {
		return res, err
	}

	// Phase 2 reads the whole table again (a recount cannot be resumed half-way) and replaces
	// every counter item.
	n, err := s.recount(ctx, progress)
	if err != nil {
		return res, err
	}
	res.Counters = n
	st.Phase = 3
	if err := save(); err != nil {
		return res, err
	}
	progress(fmt.Sprintf("migrate: done: layout %d, %d records rewritten, %d counters written", layout.Version, res.Rewritten, n))
	return res, nil
}

// rewritePage writes the layout of every record home in items (idempotent puts and deletes,
// 25 a BatchWriteItem) and finishes pending deletes.
func (s storeView) rewritePage(ctx context.Context, items []dynamo.Item) (int, error) {
	var puts []any
	var dels []dynamo.Keyed
	var evs []timeline.Event
	var wanted []layout.MentionItem // reverse mention items of the page's entries, if their targets exist
	n := 0
	now := layout.FormatTime(s.now())
	parentPrivate, err := s.parentsOf(ctx, items)
	if err != nil {
		return 0, err
	}
	tagsKnown, err := s.tagsOf(ctx, items)
	if err != nil {
		return 0, err
	}
	markerEntities, err := s.markerEntitiesOf(ctx, items)
	if err != nil {
		return 0, err
	}
	mapLocations, err := s.LocationMapsOf(ctx, items)
	if err != nil {
		return 0, err
	}
	for _, it := range items {
		var pk, sk string
		_ = dynamo.Unmarshal(it["pk"], &pk)
		_ = dynamo.Unmarshal(it["sk"], &sk)
		if up, err := s.identityItem(ctx, pk, sk, it, now); err != nil {
			return n, err
		} else if up != nil {
			puts = append(puts, up)
			continue
		}
		if strings.HasPrefix(sk, layout.TombstonePrefix) {
			var t layout.Tombstone
			if err := dynamo.UnmarshalItem(it, &t); err != nil {
				return n, err
			}
			if err := s.FinishDelete(ctx, t); err != nil {
				return n, err
			}
			continue
		}
		if h := strings.TrimPrefix(sk, layout.SelfHome); strings.HasPrefix(h, layout.RelationPrefix+"#") && strings.HasPrefix(pk, layout.CampaignPrefix) && !layout.IsRelatedBucket(pk) {
			// A relation's sync pointers (issue 19: relations are synced in both lists).
			var ri layout.RelationItem
			if err := dynamo.UnmarshalItem(it, &ri); err != nil {
				return n, err
			}
			r := ri.AsRelation()
			for _, ref := range layout.RelationRefs(&r) {
				p := ref.Ptr
				p.SK = layout.SyncSK(ref.Kind, layout.FormatTime(ref.Updated), r.ID)
				puts = append(puts, p)
			}
			continue
		}
		if strings.HasPrefix(strings.TrimPrefix(sk, layout.SelfHome), layout.MarkerPrefix+"#") && strings.HasPrefix(pk, layout.CampaignPrefix) {
			// Markers written before their entity pointers (MARKIN#) get one, placed by
			// their entity's links privacy (admins only while it is in the trash); one whose
			// entity is gone for good is kept unlinked.
			var mk layout.MarkerItem
			_ = dynamo.UnmarshalItem(it, &mk)
			if mk.EntityID != nil {
				if private, ok := markerEntities[layout.ItemKey{PK: layout.CampaignPK(mk.CampaignID), SK: layout.RecordSK(layout.EntityPrefix, *mk.EntityID)}]; ok {
					it["is_private"] = &types.AttributeValueMemberBOOL{Value: private}
					k := layout.MarkerInKey(mk.CampaignID, *mk.EntityID, mk.MapID, mk.ID)
					puts = append(puts, layout.MarkerInItem{PK: k.PK, SK: k.SK, MapID: mk.MapID, ID: mk.ID})
				} else {
					delete(it, "entity_id")
					it["is_private"] = &types.AttributeValueMemberBOOL{Value: false}
				}
			}
		}
		if strings.HasPrefix(sk, layout.MapPrefix+"#") && strings.Count(pk, "#") == 1 {
			// Maps written before their location links (LOCMAP#) get one; the public copy
			// shows location_id only while the location is public (gone for good: dropped).
			var m layout.MapItem
			_ = dynamo.UnmarshalItem(it, &m)
			if m.LocationID != nil {
				if hidden, ok := mapLocations[layout.ItemKey{PK: layout.CampaignPK(m.CampaignID), SK: layout.RecordSK(layout.LocationPrefix, *m.LocationID)}]; ok {
					it[layout.LocationHidden] = &types.AttributeValueMemberBOOL{Value: hidden}
					k := layout.LocMapKey(m.CampaignID, *m.LocationID, m.ID)
					puts = append(puts, layout.LocMapItem{PK: k.PK, SK: k.SK, ID: m.ID})
				} else {
					delete(it, "location_id")
					delete(it, layout.LocationHidden)
				}
			}
		}
		if strings.HasPrefix(sk, layout.TrashedPrefix) { // a trashed entry keeps its mention items (trashed before: none)
			wanted = append(wanted, layout.MentionItemsOf(pk, sk, it)...)
			continue
		}
		sls := homeSlots(pk, sk, it)
		if sls == nil {
			continue
		}
		n++
		lowerCopies(it)
		if k, ok := layout.KindOf(sk[:strings.Index(sk, "#")]); ok && k.Owner && sls[0].PK == pk {
			// Layout 3: tags are links; an id naming no tag of the campaign is dropped.
			var tags []int64
			var cid, id, eid int64
			var private bool
			_ = dynamo.Unmarshal(it["tags"], &tags)
			_ = dynamo.Unmarshal(it["campaign_id"], &cid)
			_ = dynamo.Unmarshal(it["id"], &id)
			_ = dynamo.Unmarshal(it["entity_id"], &eid)
			_ = dynamo.Unmarshal(it["is_private"], &private)
			kept := []int64{}
			var privateTags []int64 // the homes keep them, the public copies leave them out
			for _, t := range tags {
				if tagPrivate, ok := tagsKnown[layout.ItemKey{PK: pk, SK: layout.RecordSK(layout.TagPrefix, t)}]; ok && !slices.Contains(kept, t) {
					kept = append(kept, t)
					if tagPrivate {
						privateTags = append(privateTags, t)
					}
					key := layout.TagMemberKey(cid, t, private, k.Prefix, id)
					puts = append(puts, layout.TagMember{PK: key.PK, SK: key.SK, EntityID: eid})
				}
			}
			if tags != nil {
				it["tags"], _ = dynamo.Marshal(kept)
			}
			delete(it, "private_tags")
			if len(privateTags) > 0 {
				it["private_tags"], _ = dynamo.Marshal(privateTags)
			}
		}
		if strings.HasPrefix(sk, layout.LocationPrefix+"#") { // layout 1 indexed parents: links now
			delete(it, "gsi1pk")
			delete(it, "gsi1sk")
		}
		var cid, parent int64
		if nk, hasParent := nestedParent(sk, it); hasParent {
			var private bool
			_ = dynamo.Unmarshal(it["campaign_id"], &cid)
			_ = dynamo.Unmarshal(it[nk.ParentAttr], &parent)
			_ = dynamo.Unmarshal(it["is_private"], &private)
			for _, k := range layout.LinkKeys(nk, cid, parent, sls[0].Id) {
				puts = append(puts, layout.ChildLink{PK: k.PK, SK: k.SK, ID: sls[0].Id, IsPrivate: private})
			}
			// The public copy shows the parent only when it is public (a missing one: none).
			if hidden, known := parentPrivate[layout.ItemKey{PK: pk, SK: layout.RecordSK(nk.Prefix, parent)}]; hidden || !known {
				it[layout.ParentHidden] = &types.AttributeValueMemberBOOL{Value: true}
			}
		}
		if skKind, _, _ := strings.Cut(strings.TrimPrefix(sk, layout.SelfHome), "#"); skKind == layout.EventPrefix {
			// Layout 3: no index keys on events; calendar links instead of EVENTLINK# (linkPage).
			delete(it, "gsi1pk")
			delete(it, "gsi1sk")
			var ev layout.EventItem
			if err := dynamo.UnmarshalItem(it, &ev); err != nil {
				return n, err
			}
			evs = append(evs, ev.Event())
		}
		puts = append(puts, homePointer(sls[0], it))
		wanted = append(wanted, layout.MentionItemsOf(pk, sk, it)...)
		for _, sl := range sls {
			puts = append(puts, layout.CopyItem(it, sl))
			if sl.Home && sl.SK != sk {
				dels = append(dels, dynamo.Keys{pk, sk})
			}
		}
		// The entity of a location or calendar mirrors it (layout 1 kept only its name and
		// privacy) and is placed like it: rewritten from the record, never from itself.
		if k, ok := layout.KindOf(sls[0].SK[:strings.Index(sls[0].SK, "#")]); ok && k.Owner && sls[0].PK == pk {
			var rec struct {
				layout.MetaAttrs
				layout.OwnerAttrs
			}
			if err := dynamo.UnmarshalItem(it, &rec); err != nil {
				return n, err
			}
			m, o := rec.Meta(), rec.Owner()
			e := layout.Marshal(layout.EntityItemOf(k, &m, &o))
			for _, sl := range layout.EntitySlots(&m, &o) {
				puts = append(puts, layout.CopyItem(e, sl))
			}
			ptr := layout.EntityRef(&m, &o).Ptr
			ptr.SK = layout.SyncSK(layout.EntityPrefix, layout.FormatTime(m.UpdatedAt), o.EntityID)
			puts = append(puts, ptr)
		}
	}
	links, stale, err := s.migrationLinks(ctx, evs)
	if err != nil {
		return n, err
	}
	puts, dels = append(puts, links...), append(dels, stale...)
	mentions, err := s.ExistingTargets(ctx, wanted)
	if err != nil {
		return n, err
	}
	for _, m := range mentions {
		puts = append(puts, m)
	}
	for start := 0; start < len(puts); start += 25 {
		if _, err := s.table.Batch("pk", "sk").Write().Put(puts[start:min(start+25, len(puts))]...).Run(ctx); err != nil {
			return n, layout.Wrap(err)
		}
	}
	return n, s.BatchDelete(ctx, dels)
}

// markerEntitiesOf reads the entities the marker homes in items link (one BatchGetItem per
// 100 keys): by entity home key, the privacy that places the marker (links_private; true for
// an entity in the trash). Absent: no such entity.
func (s storeView) markerEntitiesOf(ctx context.Context, items []dynamo.Item) (map[layout.ItemKey]bool, error) {
	var keys []layout.ItemKey
	seen := map[layout.ItemKey]bool{}
	for _, it := range items {
		var mk layout.MarkerItem
		_ = dynamo.UnmarshalItem(it, &mk)
		if !strings.HasPrefix(strings.TrimPrefix(mk.SK, layout.SelfHome), layout.MarkerPrefix+"#") || mk.EntityID == nil {
			continue
		}
		if k := (layout.ItemKey{PK: layout.CampaignPK(mk.CampaignID), SK: layout.RecordSK(layout.EntityPrefix, *mk.EntityID)}); !seen[k] {
			seen[k] = true
			keys = append(keys, k, layout.ItemKey{PK: k.PK, SK: layout.TrashedSK(layout.EntityPrefix, *mk.EntityID)})
		}
	}
	out := map[layout.ItemKey]bool{}
	if len(keys) == 0 {
		return out, nil
	}
	got, err := s.GetItems(ctx, keys...)
	for k, it := range got {
		var e layout.EntityItem
		_ = dynamo.UnmarshalItem(it, &e)
		if strings.HasPrefix(k.SK, layout.TrashedPrefix) {
			out[layout.ItemKey{PK: k.PK, SK: layout.RecordSK(layout.EntityPrefix, e.ID)}] = true
		} else if _, trashed := out[k]; !trashed {
			out[k] = e.LinksPrivate
		}
	}
	return out, err
}

// tagsOf reads which tags the owner homes in items name exist, and their privacy (one
// BatchGetItem per 100).
func (s storeView) tagsOf(ctx context.Context, items []dynamo.Item) (map[layout.ItemKey]bool, error) {
	var keys []layout.ItemKey
	seen := map[layout.ItemKey]bool{}
	for _, it := range items {
		var pk, sk string
		var tags []int64
		_ = dynamo.Unmarshal(it["pk"], &pk)
		_ = dynamo.Unmarshal(it["sk"], &sk)
		kind, _, _ := strings.Cut(sk, "#")
		if !layout.IsOwnerPrefix(kind) {
			continue
		}
		_ = dynamo.Unmarshal(it["tags"], &tags)
		for _, t := range tags {
			if k := (layout.ItemKey{PK: pk, SK: layout.RecordSK(layout.TagPrefix, t)}); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	out := map[layout.ItemKey]bool{}
	if len(keys) == 0 {
		return out, nil
	}
	got, err := s.GetItems(ctx, keys...)
	for k, it := range got {
		var private bool
		_ = dynamo.Unmarshal(it["is_private"], &private)
		out[k] = private
	}
	return out, err
}

// nestedParent is the nested kind of the home (sk) item it, when it names a parent.
func nestedParent(sk string, it dynamo.Item) (layout.KindSpec, bool) {
	kind, _, _ := strings.Cut(sk, "#")
	k, ok := layout.KindOf(kind)
	return k, ok && k.ParentAttr != "" && it[k.ParentAttr] != nil
}

// parentsOf reads the privacy of the parents of the nested homes in items (one
// BatchGetItem per 100 parents): the placement of their public copies. Absent: no such parent.
func (s storeView) parentsOf(ctx context.Context, items []dynamo.Item) (map[layout.ItemKey]bool, error) {
	var keys []dynamo.Keyed
	seen := map[layout.ItemKey]bool{}
	for _, it := range items {
		var pk, sk string
		var parent int64
		_ = dynamo.Unmarshal(it["pk"], &pk)
		_ = dynamo.Unmarshal(it["sk"], &sk)
		nk, ok := nestedParent(sk, it)
		if !ok {
			continue
		}
		_ = dynamo.Unmarshal(it[nk.ParentAttr], &parent)
		k := layout.ItemKey{PK: pk, SK: layout.RecordSK(nk.Prefix, parent)}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, dynamo.Keys{k.PK, k.SK})
		}
	}
	out := map[layout.ItemKey]bool{}
	for start := 0; start < len(keys); start += 100 {
		var rows []struct {
			PK        string `dynamo:"pk"`
			SK        string `dynamo:"sk"`
			IsPrivate bool   `dynamo:"is_private"`
		}
		err := s.table.Batch("pk", "sk").Get(keys[start:min(start+100, len(keys))]...).Project("pk", "sk", "is_private").Consistent(true).All(ctx, &rows)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return nil, layout.Wrap(err)
		}
		for _, r := range rows {
			out[layout.ItemKey{PK: r.PK, SK: r.SK}] = r.IsPrivate
		}
	}
	return out, nil
}

// migrationLinks are the calendar links of a page's events (layout 3), placed by their
// entities' privacy (one batched read of the entities), and the keys of their layout 2 links
// and of links at a key they no longer have (the day link of a date changed while a run was
// interrupted is found by the Audit, not here: a migration runs with the writes stopped).
func (s storeView) migrationLinks(ctx context.Context, evs []timeline.Event) ([]any, []dynamo.Keyed, error) {
	var keys []layout.ItemKey
	for _, ev := range evs {
		keys = append(keys, layout.ItemKey{PK: layout.CampaignPK(ev.CampaignID), SK: layout.RecordSK(layout.EntityPrefix, ev.EntityID)})
	}
	ents, err := s.GetItems(ctx, keys...)
	if err != nil {
		return nil, nil, err
	}
	var puts []any
	var dels []dynamo.Keyed
	for i := range evs {
		ev := &evs[i]
		private := true // an event whose entity is gone is shown to nobody but admins
		if e, ok := ents[keys[i]]; ok {
			_ = dynamo.Unmarshal(e["is_private"], &private)
		}
		ev.EntityPrivate = private
		puts = append(puts, layout.ToDayLink(ev))
		item := layout.ReminderItem(ev)
		for _, sl := range layout.ReminderSlots(ev) {
			puts = append(puts, layout.CopyItem(item, sl))
		}
		old := layout.LegacyEventLinkKey(ev.CampaignID, ev.CalendarID, ev.EntityID, ev.ID)
		dels = append(dels, dynamo.Keys{old.PK, old.SK})
	}
	return puts, dels, nil
}

// homePointer is the sync pointer of the record whose home (the first of its slots) is it, by
// its update time as stored.
func homePointer(home layout.Slot, it dynamo.Item) layout.SyncPointer {
	var x struct {
		IsPrivate  bool   `dynamo:"is_private"`
		Visibility string `dynamo:"visibility"`
		CreatedBy  int64  `dynamo:"created_by"`
		UpdatedAt  string `dynamo:"updated_at"`
	}
	_ = dynamo.UnmarshalItem(it, &x)
	kind, _, _ := strings.Cut(strings.TrimPrefix(home.SK, layout.SelfHome), "#")
	p := layout.SyncPointer{PK: home.PK, SK: layout.SyncSK(kind, layout.FormatTime(layout.ParseTime(x.UpdatedAt)), home.Id), ID: home.Id, IsPrivate: x.IsPrivate}
	switch kind {
	case layout.NotePrefix, layout.WeatherPrefix:
		p.IsPrivate, p.Visibility, p.CreatedBy = false, x.Visibility, x.CreatedBy
	case layout.EventPrefix, layout.MarkerPrefix:
		p.Visibility, p.CreatedBy = x.Visibility, x.CreatedBy
	case layout.MapPointPrefix:
		p.IsPrivate = false
	}
	return p
}

// lowerCopies writes the lower-case copies the list filters read (name_lc, type_lc), which
// layout 1 kept on some kinds only.
func lowerCopies(it dynamo.Item) {
	for _, f := range []string{"name", "type"} {
		if v, ok := it[f].(*types.AttributeValueMemberS); ok && v.Value != "" {
			it[f+"_lc"] = &types.AttributeValueMemberS{Value: strings.ToLower(v.Value)}
		}
	}
}

// homeSlots is the placement of the record whose home item (old or new layout) is (pk, sk), or
// nil when the item is not a record's home.
func homeSlots(pk, sk string, it dynamo.Item) []layout.Slot {
	var id, createdBy int64
	var private bool
	var vis string
	_ = dynamo.Unmarshal(it["id"], &id)
	_ = dynamo.Unmarshal(it["created_by"], &createdBy)
	_ = dynamo.Unmarshal(it["is_private"], &private)
	_ = dynamo.Unmarshal(it["visibility"], &vis)
	pkParts := strings.Split(pk, "#")
	skKind, _, _ := strings.Cut(strings.TrimPrefix(sk, layout.SelfHome), "#")
	if sk != layout.RecordSK(skKind, id) && sk != layout.SelfHome+layout.RecordSK(skKind, id) {
		return nil
	}
	k, _ := layout.KindOf(skKind)
	if (k.Parent == "" && len(pkParts) != 2) || (k.Parent != "" && (len(pkParts) != 4 || pkParts[2] != k.Parent)) || pkParts[0] != "CAMPAIGN" {
		return nil
	}
	switch k.Placement {
	case layout.PlaceOwner:
		var cid int64
		_ = dynamo.Unmarshal(it["campaign_id"], &cid)
		if layout.CampaignPK(cid) != pk {
			return nil
		}
		return layout.OwnerSlots(skKind, cid, id, private)
	case layout.PlaceMapPoint:
		return []layout.Slot{{PK: pk, SK: sk, Home: true, Counter: layout.CounterSK(skKind), Attr: layout.ClassAdmin, Id: id}}
	case layout.PlaceChild:
		if skKind == layout.WeatherPrefix { // no related=1 copy: a calendar's weather is not an entity's
			return layout.ChildSlots(skKind, pk, id, createdBy, domain.Visibility(vis), false)
		}
		if skKind == layout.NotePrefix {
			private = false
		}
		var cid, eid int64
		_ = dynamo.Unmarshal(it["campaign_id"], &cid)
		_ = dynamo.Unmarshal(it["entity_id"], &eid)
		sls := layout.ChildSlots(skKind, pk, id, createdBy, domain.Visibility(vis), private)
		if k.Parent != layout.EntityPrefix { // a map's markers have no related=1 copy
			return sls
		}
		return append(sls, layout.RelatedSlot(cid, eid, skKind, id))
	}
	return nil
}

// recount replaces every range counter item (totals and segments, counters.go) by the counts
// of the items in its ranges; counter items no range needs any more, and layout 2's bucket
// attributes and private_ids, go with the whole-item Puts.
func (s storeView) recount(ctx context.Context, progress func(string)) (int, error) {
	tallies := map[layout.CounterKey]map[string]int{}
	old := map[layout.CounterKey]bool{}
	it := s.table.Scan().Consistent(true).Project("pk", "sk", "id", "is_private", "campaign_id", "'type'", "child_id", "'name'", "entity_id").Iter()
	var row struct {
		PK         string `dynamo:"pk"`
		SK         string `dynamo:"sk"`
		ID         int64  `dynamo:"id"`
		IsPrivate  bool   `dynamo:"is_private"`
		CampaignID int64  `dynamo:"campaign_id"`
		Type       string `dynamo:"type"`
		ChildID    int64  `dynamo:"child_id"`
		Name       string `dynamo:"name"`
		EntityID   int64  `dynamo:"entity_id"`
	}
	shards := layout.NameShards{}
	packs := layout.NewPackTally()
	read := 0
	for it.Next(ctx, &row) {
		read++
		if read%(10*scanPage) == 0 {
			progress(fmt.Sprintf("migrate: recount: %d items read", read))
		}
		if layout.IsRangeCounter(row.SK) {
			old[layout.CounterKey{PK: row.PK, SK: row.SK}] = true
			continue
		}
		shards.Add(row.PK, row.SK, row.ID, row.CampaignID, row.Type, row.ChildID, row.IsPrivate, row.Name)
		packs.Add(row.PK, row.SK, row.IsPrivate, row.EntityID)
		counter, attr, id, ok := layout.CountedRange(row.SK)
		if !ok || (strings.HasPrefix(row.PK, layout.MigrationPK)) {
			continue
		}
		layout.Tally(tallies, row.PK, counter, attr, id, 1)
	}
	if err := it.Err(); err != nil {
		return 0, layout.Wrap(err)
	}
	puts, stale := shards.Items()
	for k, m := range tallies {
		puts = append(puts, counterItem(k, m))
	}
	// Every tag's member pack is rebuilt whole (layout 3 with packs, DESIGN 3.3).
	packPuts, stalePacks := packs.Items()
	puts = append(puts, packPuts...)
	dels := append(stale, stalePacks...)
	for k := range old {
		if tallies[k] == nil {
			dels = append(dels, dynamo.Keys{k.PK, k.SK})
		}
	}
	for start := 0; start < len(puts); start += 25 {
		if _, err := s.table.Batch("pk", "sk").Write().Put(puts[start:min(start+25, len(puts))]...).Run(ctx); err != nil {
			return 0, layout.Wrap(err)
		}
	}
	return len(puts), s.BatchDelete(ctx, dels)
}

// counterItem is the whole counter item k holding counts (as the recount writes it).
func counterItem(k layout.CounterKey, counts map[string]int) dynamo.Item {
	item := dynamo.Item{"pk": layout.AttrS(k.PK), "sk": layout.AttrS(k.SK)}
	for attr, n := range counts {
		v, _ := dynamo.Marshal(n)
		item[attr] = v
	}
	return item
}
