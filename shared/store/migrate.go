package store

import (
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

// LayoutVersion is the key layout this store reads and writes. Version 1 (before audience
// ranges) kept each record once and counted locations, calendars and map points in `n` and
// `private`; version 2 added audience ranges (the package doc). Version 3 splits every range
// counter into a total and segments (counters.go) and drops the location counter's private_ids
// (a location's public copy is the non-admins' projection instead); it links every event from
// its calendar (calendarlinks.go) instead of indexing it in GSI1 and EVENTLINK#; it adds Kanka's
// campaign, profile and membership fields and counts memberships (migrate_campaigns.go); it adds
// the sync pointers (SYNC#, written by the migration for every record) and tombstones (GONE#,
// written by deletes); it adds the name shards (rebuilt whole by the recount) and the reverse
// mention items (written from every entry by the rewrite), and the tags' member packs (rebuilt
// whole by the recount, tagpacks.go).
const LayoutVersion = 3

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

var scanPage = 500 // items per scanned page (and checkpoint)

// MigrateResult says what a migration did.
type MigrateResult struct {
	Read      int `json:"items_read"`
	Rewritten int `json:"records_rewritten"`
	Counters  int `json:"counters_written"`
	Resumed   bool
}

// Migrate rewrites a table written by an earlier layout to this one: every record gets the
// copies of its audience ranges (a `self` note or event moves to its SELF# home), pending
// deletes are finished, and every range counter is recounted from the items. It is idempotent
// (a second run rewrites the same items to the same values) and resumable (it continues from
// its checkpoint after an interruption). progress receives one line per scanned page.
//
// Run it while the API takes no writes (for example with the functions' reserved concurrency
// at 0): the recount is exact only for a table that does not change under it.
func (s *Store) Migrate(ctx context.Context, progress func(string)) (MigrateResult, error) {
	if progress == nil {
		progress = func(string) {}
	}
	var st migrationState
	err := s.table.Get("pk", migrationPK).Range("sk", dynamo.Equal, migrationSK()).Consistent(true).One(ctx, &st)
	var res MigrateResult
	switch {
	case errors.Is(err, dynamo.ErrNotFound) || (err == nil && st.Phase >= 3):
		st = migrationState{PK: migrationPK, SK: migrationSK(), Phase: 1}
	case err != nil:
		return res, wrap(err)
	default:
		res.Resumed = true
		progress(fmt.Sprintf("migrate: resuming phase %d after %d items", st.Phase, st.Read))
	}
	save := func() error { return wrap(s.table.Put(st).Run(ctx)) }
	// Tables made before layout 3 (locally) expire nothing: TTL on attribute `ttl`, as on AWS.
	if err := EnsureTTL(ctx, s.Client(), s.table.Name()); err != nil {
		return res, wrap(err)
	}

	if st.Phase == 1 {
		for {
			var items []dynamo.Item
			q := s.table.Scan().Consistent(true).SearchLimit(scanPage)
			if st.LastPK != "" {
				q = q.StartFrom(dynamo.PagingKey{"pk": attrS(st.LastPK), "sk": attrS(st.LastSK)})
			}
			lek, err := q.AllWithLastEvaluatedKey(ctx, &items)
			if err != nil {
				return res, wrap(err)
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
	if err := s.reconcileTrash(ctx); err != nil {
		return res, err
	}
	if _, err := s.SweepDeletes(ctx, 0); err != nil {
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
	progress(fmt.Sprintf("migrate: done: layout %d, %d records rewritten, %d counters written", LayoutVersion, res.Rewritten, n))
	return res, nil
}

// rewritePage writes the layout of every record home in items (idempotent puts and deletes,
// 25 a BatchWriteItem) and finishes pending deletes.
func (s *Store) rewritePage(ctx context.Context, items []dynamo.Item) (int, error) {
	var puts []any
	var dels []dynamo.Keyed
	var evs []timeline.Event
	var wanted []mentionItem // reverse mention items of the page's entries, if their targets exist
	n := 0
	now := formatTime(s.now())
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
	mapLocations, err := s.locationMapsOf(ctx, items)
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
		if strings.HasPrefix(sk, tombstonePrefix) {
			var t tombstone
			if err := dynamo.UnmarshalItem(it, &t); err != nil {
				return n, err
			}
			if err := s.finishDelete(ctx, t); err != nil {
				return n, err
			}
			continue
		}
		if h := strings.TrimPrefix(sk, selfHome); strings.HasPrefix(h, relationPrefix+"#") && strings.HasPrefix(pk, campaignPrefix) && !isRelatedBucket(pk) {
			// A relation's sync pointers (issue 19: relations are synced in both lists).
			var ri relationItem
			if err := dynamo.UnmarshalItem(it, &ri); err != nil {
				return n, err
			}
			r := ri.relation()
			for _, ref := range relationRefs(&r) {
				p := ref.ptr
				p.SK = syncSK(ref.kind, formatTime(ref.updated), r.ID)
				puts = append(puts, p)
			}
			continue
		}
		if strings.HasPrefix(strings.TrimPrefix(sk, selfHome), markerPrefix+"#") && strings.HasPrefix(pk, campaignPrefix) {
			// Markers written before their entity pointers (MARKIN#) get one, placed by
			// their entity's links privacy (admins only while it is in the trash); one whose
			// entity is gone for good is kept unlinked.
			var mk markerItem
			_ = dynamo.UnmarshalItem(it, &mk)
			if mk.EntityID != nil {
				if private, ok := markerEntities[itemKey{campaignPK(mk.CampaignID), recordSK(entityPrefix, *mk.EntityID)}]; ok {
					it["is_private"] = &types.AttributeValueMemberBOOL{Value: private}
					k := markerInKey(mk.CampaignID, *mk.EntityID, mk.MapID, mk.ID)
					puts = append(puts, markerInItem{PK: k.pk, SK: k.sk, MapID: mk.MapID, ID: mk.ID})
				} else {
					delete(it, "entity_id")
					it["is_private"] = &types.AttributeValueMemberBOOL{Value: false}
				}
			}
		}
		if strings.HasPrefix(sk, mapPrefix+"#") && strings.Count(pk, "#") == 1 {
			// Maps written before their location links (LOCMAP#) get one; the public copy
			// shows location_id only while the location is public (gone for good: dropped).
			var m mapItem
			_ = dynamo.UnmarshalItem(it, &m)
			if m.LocationID != nil {
				if hidden, ok := mapLocations[itemKey{campaignPK(m.CampaignID), recordSK(locationPrefix, *m.LocationID)}]; ok {
					it[locationHidden] = &types.AttributeValueMemberBOOL{Value: hidden}
					k := locMapKey(m.CampaignID, *m.LocationID, m.ID)
					puts = append(puts, locMapItem{PK: k.pk, SK: k.sk, ID: m.ID})
				} else {
					delete(it, "location_id")
					delete(it, locationHidden)
				}
			}
		}
		if strings.HasPrefix(sk, trashedPrefix) { // a trashed entry keeps its mention items (trashed before: none)
			wanted = append(wanted, mentionItemsOf(pk, sk, it)...)
			continue
		}
		sls := homeSlots(pk, sk, it)
		if sls == nil {
			continue
		}
		n++
		lowerCopies(it)
		if k, ok := kindOf(sk[:strings.Index(sk, "#")]); ok && k.owner && sls[0].pk == pk {
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
				if tagPrivate, ok := tagsKnown[itemKey{pk, recordSK(tagPrefix, t)}]; ok && !slices.Contains(kept, t) {
					kept = append(kept, t)
					if tagPrivate {
						privateTags = append(privateTags, t)
					}
					key := tagMemberKey(cid, t, private, k.prefix, id)
					puts = append(puts, tagMember{PK: key.pk, SK: key.sk, EntityID: eid})
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
		if strings.HasPrefix(sk, locationPrefix+"#") { // layout 1 indexed parents: links now
			delete(it, "gsi1pk")
			delete(it, "gsi1sk")
		}
		var cid, parent int64
		if nk, hasParent := nestedParent(sk, it); hasParent {
			var private bool
			_ = dynamo.Unmarshal(it["campaign_id"], &cid)
			_ = dynamo.Unmarshal(it[nk.parentAttr], &parent)
			_ = dynamo.Unmarshal(it["is_private"], &private)
			for _, k := range linkKeys(nk, cid, parent, sls[0].id) {
				puts = append(puts, childLink{PK: k.pk, SK: k.sk, ID: sls[0].id, IsPrivate: private})
			}
			// The public copy shows the parent only when it is public (a missing one: none).
			if hidden, known := parentPrivate[itemKey{pk, recordSK(nk.prefix, parent)}]; hidden || !known {
				it[parentHidden] = &types.AttributeValueMemberBOOL{Value: true}
			}
		}
		if skKind, _, _ := strings.Cut(strings.TrimPrefix(sk, selfHome), "#"); skKind == eventPrefix {
			// Layout 3: no index keys on events; calendar links instead of EVENTLINK# (linkPage).
			delete(it, "gsi1pk")
			delete(it, "gsi1sk")
			var ev eventItem
			if err := dynamo.UnmarshalItem(it, &ev); err != nil {
				return n, err
			}
			evs = append(evs, ev.event())
		}
		puts = append(puts, homePointer(sls[0], it))
		wanted = append(wanted, mentionItemsOf(pk, sk, it)...)
		for _, sl := range sls {
			puts = append(puts, copyItem(it, sl))
			if sl.home && sl.sk != sk {
				dels = append(dels, dynamo.Keys{pk, sk})
			}
		}
		// The entity of a location or calendar mirrors it (layout 1 kept only its name and
		// privacy) and is placed like it: rewritten from the record, never from itself.
		if k, ok := kindOf(sls[0].sk[:strings.Index(sls[0].sk, "#")]); ok && k.owner && sls[0].pk == pk {
			var rec struct {
				metaAttrs
				ownerAttrs
			}
			if err := dynamo.UnmarshalItem(it, &rec); err != nil {
				return n, err
			}
			m, o := rec.meta(), rec.owner()
			e := marshal(entityItemOf(k, &m, &o))
			for _, sl := range entitySlots(&m, &o) {
				puts = append(puts, copyItem(e, sl))
			}
			ptr := entityRef(&m, &o).ptr
			ptr.SK = syncSK(entityPrefix, formatTime(m.UpdatedAt), o.EntityID)
			puts = append(puts, ptr)
		}
	}
	links, stale, err := s.migrationLinks(ctx, evs)
	if err != nil {
		return n, err
	}
	puts, dels = append(puts, links...), append(dels, stale...)
	mentions, err := s.existingTargets(ctx, wanted)
	if err != nil {
		return n, err
	}
	for _, m := range mentions {
		puts = append(puts, m)
	}
	for start := 0; start < len(puts); start += 25 {
		if _, err := s.table.Batch("pk", "sk").Write().Put(puts[start:min(start+25, len(puts))]...).Run(ctx); err != nil {
			return n, wrap(err)
		}
	}
	return n, s.batchDelete(ctx, dels)
}

// markerEntitiesOf reads the entities the marker homes in items link (one BatchGetItem per
// 100 keys): by entity home key, the privacy that places the marker (links_private; true for
// an entity in the trash). Absent: no such entity.
func (s *Store) markerEntitiesOf(ctx context.Context, items []dynamo.Item) (map[itemKey]bool, error) {
	var keys []itemKey
	seen := map[itemKey]bool{}
	for _, it := range items {
		var mk markerItem
		_ = dynamo.UnmarshalItem(it, &mk)
		if !strings.HasPrefix(strings.TrimPrefix(mk.SK, selfHome), markerPrefix+"#") || mk.EntityID == nil {
			continue
		}
		if k := (itemKey{campaignPK(mk.CampaignID), recordSK(entityPrefix, *mk.EntityID)}); !seen[k] {
			seen[k] = true
			keys = append(keys, k, itemKey{k.pk, trashedSK(entityPrefix, *mk.EntityID)})
		}
	}
	out := map[itemKey]bool{}
	if len(keys) == 0 {
		return out, nil
	}
	got, err := s.getItems(ctx, keys...)
	for k, it := range got {
		var e entityItem
		_ = dynamo.UnmarshalItem(it, &e)
		if strings.HasPrefix(k.sk, trashedPrefix) {
			out[itemKey{k.pk, recordSK(entityPrefix, e.ID)}] = true
		} else if _, trashed := out[k]; !trashed {
			out[k] = e.LinksPrivate
		}
	}
	return out, err
}

// tagsOf reads which tags the owner homes in items name exist, and their privacy (one
// BatchGetItem per 100).
func (s *Store) tagsOf(ctx context.Context, items []dynamo.Item) (map[itemKey]bool, error) {
	var keys []itemKey
	seen := map[itemKey]bool{}
	for _, it := range items {
		var pk, sk string
		var tags []int64
		_ = dynamo.Unmarshal(it["pk"], &pk)
		_ = dynamo.Unmarshal(it["sk"], &sk)
		kind, _, _ := strings.Cut(sk, "#")
		if !isOwnerPrefix(kind) {
			continue
		}
		_ = dynamo.Unmarshal(it["tags"], &tags)
		for _, t := range tags {
			if k := (itemKey{pk, recordSK(tagPrefix, t)}); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	out := map[itemKey]bool{}
	if len(keys) == 0 {
		return out, nil
	}
	got, err := s.getItems(ctx, keys...)
	for k, it := range got {
		var private bool
		_ = dynamo.Unmarshal(it["is_private"], &private)
		out[k] = private
	}
	return out, err
}

// nestedParent is the nested kind of the home (sk) item it, when it names a parent.
func nestedParent(sk string, it dynamo.Item) (kindSpec, bool) {
	kind, _, _ := strings.Cut(sk, "#")
	k, ok := kindOf(kind)
	return k, ok && k.parentAttr != "" && it[k.parentAttr] != nil
}

// parentsOf reads the privacy of the parents of the nested homes in items (one
// BatchGetItem per 100 parents): the placement of their public copies. Absent: no such parent.
func (s *Store) parentsOf(ctx context.Context, items []dynamo.Item) (map[itemKey]bool, error) {
	var keys []dynamo.Keyed
	seen := map[itemKey]bool{}
	for _, it := range items {
		var pk, sk string
		var parent int64
		_ = dynamo.Unmarshal(it["pk"], &pk)
		_ = dynamo.Unmarshal(it["sk"], &sk)
		nk, ok := nestedParent(sk, it)
		if !ok {
			continue
		}
		_ = dynamo.Unmarshal(it[nk.parentAttr], &parent)
		k := itemKey{pk, recordSK(nk.prefix, parent)}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, dynamo.Keys{k.pk, k.sk})
		}
	}
	out := map[itemKey]bool{}
	for start := 0; start < len(keys); start += 100 {
		var rows []struct {
			PK        string `dynamo:"pk"`
			SK        string `dynamo:"sk"`
			IsPrivate bool   `dynamo:"is_private"`
		}
		err := s.table.Batch("pk", "sk").Get(keys[start:min(start+100, len(keys))]...).Project("pk", "sk", "is_private").Consistent(true).All(ctx, &rows)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return nil, wrap(err)
		}
		for _, r := range rows {
			out[itemKey{r.PK, r.SK}] = r.IsPrivate
		}
	}
	return out, nil
}

// migrationLinks are the calendar links of a page's events (layout 3), placed by their
// entities' privacy (one batched read of the entities), and the keys of their layout 2 links
// and of links at a key they no longer have (the day link of a date changed while a run was
// interrupted is found by the Audit, not here: a migration runs with the writes stopped).
func (s *Store) migrationLinks(ctx context.Context, evs []timeline.Event) ([]any, []dynamo.Keyed, error) {
	var keys []itemKey
	for _, ev := range evs {
		keys = append(keys, itemKey{campaignPK(ev.CampaignID), recordSK(entityPrefix, ev.EntityID)})
	}
	ents, err := s.getItems(ctx, keys...)
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
		puts = append(puts, toDayLink(ev))
		item := reminderItem(ev)
		for _, sl := range reminderSlots(ev) {
			puts = append(puts, copyItem(item, sl))
		}
		old := legacyEventLinkKey(ev.CampaignID, ev.CalendarID, ev.EntityID, ev.ID)
		dels = append(dels, dynamo.Keys{old.pk, old.sk})
	}
	return puts, dels, nil
}

// homePointer is the sync pointer of the record whose home (the first of its slots) is it, by
// its update time as stored.
func homePointer(home slot, it dynamo.Item) syncPointer {
	var x struct {
		IsPrivate  bool   `dynamo:"is_private"`
		Visibility string `dynamo:"visibility"`
		CreatedBy  int64  `dynamo:"created_by"`
		UpdatedAt  string `dynamo:"updated_at"`
	}
	_ = dynamo.UnmarshalItem(it, &x)
	kind, _, _ := strings.Cut(strings.TrimPrefix(home.sk, selfHome), "#")
	p := syncPointer{PK: home.pk, SK: syncSK(kind, formatTime(parseTime(x.UpdatedAt)), home.id), ID: home.id, IsPrivate: x.IsPrivate}
	switch kind {
	case notePrefix, weatherPrefix:
		p.IsPrivate, p.Visibility, p.CreatedBy = false, x.Visibility, x.CreatedBy
	case eventPrefix, markerPrefix:
		p.Visibility, p.CreatedBy = x.Visibility, x.CreatedBy
	case mapPointPrefix:
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
func homeSlots(pk, sk string, it dynamo.Item) []slot {
	var id, createdBy int64
	var private bool
	var vis string
	_ = dynamo.Unmarshal(it["id"], &id)
	_ = dynamo.Unmarshal(it["created_by"], &createdBy)
	_ = dynamo.Unmarshal(it["is_private"], &private)
	_ = dynamo.Unmarshal(it["visibility"], &vis)
	pkParts := strings.Split(pk, "#")
	skKind, _, _ := strings.Cut(strings.TrimPrefix(sk, selfHome), "#")
	if sk != recordSK(skKind, id) && sk != selfHome+recordSK(skKind, id) {
		return nil
	}
	k, _ := kindOf(skKind)
	if (k.parent == "" && len(pkParts) != 2) || (k.parent != "" && (len(pkParts) != 4 || pkParts[2] != k.parent)) || pkParts[0] != "CAMPAIGN" {
		return nil
	}
	switch k.placement {
	case placeOwner:
		var cid int64
		_ = dynamo.Unmarshal(it["campaign_id"], &cid)
		if campaignPK(cid) != pk {
			return nil
		}
		return ownerSlots(skKind, cid, id, private)
	case placeMapPoint:
		return []slot{{pk: pk, sk: sk, home: true, counter: counterSK(skKind), attr: classAdmin, id: id}}
	case placeChild:
		if skKind == weatherPrefix { // no related=1 copy: a calendar's weather is not an entity's
			return childSlots(skKind, pk, id, createdBy, domain.Visibility(vis), false)
		}
		if skKind == notePrefix {
			private = false
		}
		var cid, eid int64
		_ = dynamo.Unmarshal(it["campaign_id"], &cid)
		_ = dynamo.Unmarshal(it["entity_id"], &eid)
		sls := childSlots(skKind, pk, id, createdBy, domain.Visibility(vis), private)
		if k.parent != entityPrefix { // a map's markers have no related=1 copy
			return sls
		}
		return append(sls, relatedSlot(cid, eid, skKind, id))
	}
	return nil
}

// recount replaces every range counter item (totals and segments, counters.go) by the counts
// of the items in its ranges; counter items no range needs any more, and layout 2's bucket
// attributes and private_ids, go with the whole-item Puts.
func (s *Store) recount(ctx context.Context, progress func(string)) (int, error) {
	tallies := map[counterKey]map[string]int{}
	old := map[counterKey]bool{}
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
	shards := nameShards{}
	packs := newPackTally()
	read := 0
	for it.Next(ctx, &row) {
		read++
		if read%(10*scanPage) == 0 {
			progress(fmt.Sprintf("migrate: recount: %d items read", read))
		}
		if isRangeCounter(row.SK) {
			old[counterKey{row.PK, row.SK}] = true
			continue
		}
		shards.add(row.PK, row.SK, row.ID, row.CampaignID, row.Type, row.ChildID, row.IsPrivate, row.Name)
		packs.add(row.PK, row.SK, row.IsPrivate, row.EntityID)
		counter, attr, id, ok := countedRange(row.SK)
		if !ok || (strings.HasPrefix(row.PK, migrationPK)) {
			continue
		}
		tally(tallies, row.PK, counter, attr, id, 1)
	}
	if err := it.Err(); err != nil {
		return 0, wrap(err)
	}
	puts, stale := shards.items()
	for k, m := range tallies {
		puts = append(puts, counterItem(k, m))
	}
	// Every tag's member pack is rebuilt whole (layout 3 with packs, DESIGN 3.3).
	packPuts, stalePacks := packs.items()
	puts = append(puts, packPuts...)
	dels := append(stale, stalePacks...)
	for k := range old {
		if tallies[k] == nil {
			dels = append(dels, dynamo.Keys{k.pk, k.sk})
		}
	}
	for start := 0; start < len(puts); start += 25 {
		if _, err := s.table.Batch("pk", "sk").Write().Put(puts[start:min(start+25, len(puts))]...).Run(ctx); err != nil {
			return 0, wrap(err)
		}
	}
	return len(puts), s.batchDelete(ctx, dels)
}

// counterItem is the whole counter item k holding counts (as the recount writes it).
func counterItem(k counterKey, counts map[string]int) dynamo.Item {
	item := dynamo.Item{"pk": attrS(k.pk), "sk": attrS(k.sk)}
	for attr, n := range counts {
		v, _ := dynamo.Marshal(n)
		item[attr] = v
	}
	return item
}
