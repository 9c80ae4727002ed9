package ops

import (
	"encoding/json"

	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"

	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// audit reads every item of campaign cid (a table scan: an operator's and the race suite's
// tool, never a request's) and returns each broken invariant of the stored state, one line
// each, sorted; none means the campaign is consistent:
//   - no location's parent chain is a cycle, and every parent exists;
//   - every calendar and location has its entity and every entity its record, mirroring its
//     name and privacy;
//   - no child partition (map points, events, notes) outlives its location or entity;
//   - every range counter (totals, segments and their buckets) equals the items of its range,
//     and every record has exactly the copies its audiences need, each as new as its home;
//   - a location's public copy shows its parent only when the parent is public, and its link
//     in its parent (and that link's related=1 copy) carries its privacy;
//   - every note and event has its related=1 copy, as new as its home, and no copy outlives
//     its record;
//   - no delete is left pending (a tombstone: finished by the sweeper, a retry of the DELETE
//     or lorekeep migrate), every pending delete has its sweeper marker and every marker of
//     the campaign its pending delete;
//   - every event's calendar exists, and the event has its day link and its reminder links
//     there, placed by its entity's privacy (links_private) and as new as the event;
//   - every membership has its item under its user, with the same role, and each member's
//     campaign counter counts its campaigns (auditMembers);
//   - every record and entity has exactly one sync pointer, at its update time, carrying its
//     audience, and every pointer has its record;
//   - the name shards and the reverse mention items match their records (auditIndexes);
//   - every relation has its copies, pointer and bucket copy, is placed by its owner's and
//     target's privacy, and its mirror names it back (auditRelations);
//   - the trash (auditTrash): every trashed entity has its trashed record and purge item and
//     no live home; its events have no calendar links, its children's partitions are left
//     as they were; no hidden relation or event, and no child link its trash marked, outlives
//     the trash (a restore shows them again);
//   - no stored image a record or entity holds (a trashed one too) is queued for the sweeper,
//     and every queued path is of the campaign (auditImages).
//
// It knows the key layout, so it changes with it: whoever changes keys keeps it true.
func (s storeView) audit(ctx context.Context, cid int64) ([]string, error) {
	var items []dynamo.Item
	prefix := layout.CampaignPK(cid)
	if err := s.table.Scan().Filter("begins_with('pk', ?)", prefix).Consistent(true).All(ctx, &items); err != nil {
		return nil, layout.Wrap(err)
	}
	var markers []layout.PendingMarker
	if err := s.table.Get("pk", layout.PendingPK(cid)).Filter("'campaign_id' = ?", cid).Consistent(true).All(ctx, &markers); err != nil {
		return nil, layout.Wrap(err)
	}
	marked := map[string]bool{}
	for _, m := range markers {
		marked[m.SK] = true
	}
	type owner struct {
		id, entityID int64
		name         string
		private      bool
		parent       *int64
		tags         []int64
		privateTags  []int64
	}
	type entity struct {
		typ          string
		childID      int64
		name         string
		private      bool
		linksPrivate bool
		tags         []int64
		privateTags  []int64
	}
	owners := map[string]map[int64]*owner{} // entity type -> records of that owner kind
	for _, k := range layout.OwnerKinds {
		owners[k.EntityType] = map[int64]*owner{}
	}
	calendars := owners[layout.CalendarKind.EntityType]
	entities := map[int64]entity{}
	pubTags := map[string][]int64{} // public copies' tags (owners' and entities'), by sort key
	counters := map[layout.CounterKey]dynamo.Item{}
	tagMembers := map[layout.ItemKey]bool{} // TM# items (taglinks.go)
	type memberID struct {
		private bool
		eid     int64
	}
	memberIDs := map[string][]memberID{}    // tag partition -> its members' entity ids
	packs := map[string]*layout.TagPack{}   // tag partition -> its pack (tagpacks.go)
	pubParents := map[layout.ItemKey]bool{} // public copies of nested records (kind, id): whether they show a parent
	links := map[layout.ItemKey]bool{}      // child links: the privacy they carry
	tallies := map[layout.CounterKey]map[string]int{}
	stored := map[layout.ItemKey]int64{}                // every home and copy, by key: its version
	expected := map[layout.ItemKey]int64{}              // the slots of every home: its version
	partitions := map[string]map[string]int{}           // child pk -> record prefix -> items
	familyRecords := map[layout.ItemKey]bool{}          // the homes of family kinds that own a partition
	dayLinks := map[layout.ItemKey]layout.DayLinkItem{} // every DAY# and RECUR# link
	var eventHomes []timeline.Event
	var events []struct {
		key        string
		calendarID int64
	}
	pointers := map[layout.ItemKey]layout.SyncPointer{} // stored sync pointers
	wantPointers := map[layout.ItemKey]layout.SyncPointer{}
	// a calendar weather's day key, by the weather's id (dayweather.go)
	weatherDays, wantWeatherDays := map[layout.ItemKey]int64{}, map[layout.ItemKey]int64{}
	var problems []string
	var relationItems []dynamo.Item
	str := func(it dynamo.Item, name string) string {
		var v string
		_ = dynamo.Unmarshal(it[name], &v)
		return v
	}
	num := func(it dynamo.Item, name string) int64 {
		var v int64
		_ = dynamo.Unmarshal(it[name], &v)
		return v
	}
	boolean := func(it dynamo.Item, name string) bool {
		var v bool
		_ = dynamo.Unmarshal(it[name], &v)
		return v
	}
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	tr, err := s.readTrash(ctx, cid, items)
	if err != nil {
		return nil, err
	}
	// While a trash's cascade is pending (its marker, reported below) its references are not all
	// hidden yet: they are left out of the checks of what they point at.
	pendingTrash, pendingLoc := map[int64]bool{}, map[int64]bool{}
	for _, m := range markers {
		if e, ok := tr.trashed[m.ID]; ok && m.Kind == layout.CascadeKind {
			pendingTrash[m.ID] = true
			if e.Type == layout.LocationKind.EntityType {
				pendingLoc[e.ChildID] = true
			}
		}
	}
	unhidden := func(pk, sk string, it dynamo.Item) bool {
		if len(pendingTrash) == 0 {
			return false
		}
		if isRelationItem(pk, sk) {
			return pendingTrash[num(it, "owner_id")] || pendingTrash[num(it, "target_id")] || (tr.hides(pk) && strings.HasPrefix(sk, layout.IncomingPrefix))
		}
		link := strings.HasPrefix(sk, layout.DayLinkPrefix) || strings.HasPrefix(sk, layout.RecurLinkPrefix) || strings.Contains(sk, layout.ReminderKind+"#")
		return link && strings.Contains(pk, "#"+layout.CalendarPrefix+"#") && pendingTrash[num(it, "entity_id")]
	}
	for _, it := range items {
		pk, sk := str(it, "pk"), str(it, "sk")
		kind, _, _ := strings.Cut(sk, "#")
		spec, _ := layout.KindOf(kind)
		if strings.HasPrefix(sk, layout.TrashedPrefix) || strings.HasPrefix(sk, layout.HiddenPrefix) {
			continue // auditTrash's
		}
		if strings.HasPrefix(sk, layout.ChildLinkPrefix) && str(it, "orphaned_by") != "" {
			continue // marked by a trash: auditTrash's
		}
		if strings.HasPrefix(sk, layout.MentionPrefix) && tr.hides(pk) {
			continue // in a trashed entity's partition: mentions of it wait for its restore
		}
		if layout.IsRangeCounter(sk) {
			counters[layout.CounterKey{PK: pk, SK: sk}] = it
			continue
		}
		if layout.IsRelatedBucket(pk) && !isRelationItem(pk, sk) { // related=1 copies of notes, events, child links
			if strings.Contains(sk, "#"+layout.RelatedChildKind+"#") {
				stored[layout.ItemKey{PK: pk, SK: sk}] = 0
				links[layout.ItemKey{PK: pk, SK: sk}] = boolean(it, "is_private")
			} else {
				stored[layout.ItemKey{PK: pk, SK: sk}] = num(it, "version")
			}
			continue
		}
		if pk == prefix {
			if fk, ok := layout.FamilyKindOf(kind); ok && fk.Partition {
				familyRecords[layout.ItemKey{PK: pk, SK: sk}] = true
			}
		}
		if pk == prefix && strings.HasPrefix(sk, layout.PublicCopy) {
			if k, ok := layout.KindOf(strings.Split(sk, "#")[1]); ok && k.ParentAttr != "" {
				pubParents[layout.ItemKey{PK: k.Prefix, SK: layout.Pad(num(it, "id"))}] = it[k.ParentAttr] != nil
			}
		}
		if strings.HasPrefix(sk, layout.ChildLinkPrefix) {
			links[layout.ItemKey{PK: pk, SK: sk}] = boolean(it, "is_private")
		}
		if strings.HasPrefix(sk, layout.TagMemberPrefix) {
			tagMembers[layout.ItemKey{PK: pk, SK: sk}] = true
			memberIDs[pk] = append(memberIDs[pk], memberID{sk[len(layout.TagMemberPrefix)] == 'A', num(it, "entity_id")})
		}
		if sk == layout.TagPackSK {
			var p layout.TagPack
			_ = dynamo.UnmarshalItem(it, &p)
			packs[pk] = &p
		}
		if strings.HasPrefix(sk, layout.TombstonePrefix) {
			what := strings.ToLower(strings.TrimPrefix(sk, layout.TombstonePrefix))
			if m := str(it, "marker"); marked[m] {
				report("%s: delete pending", what)
				delete(marked, m)
			} else {
				report("%s: delete pending, with no sweeper marker", what)
			}
			continue
		}
		if strings.HasPrefix(sk, layout.SyncPrefix) {
			var p layout.SyncPointer
			_ = dynamo.UnmarshalItem(it, &p)
			pointers[layout.ItemKey{PK: pk, SK: sk}] = p
			continue
		}
		if counter, attr, id, ok := layout.CountedRange(sk); ok {
			layout.Tally(tallies, pk, counter, attr, id, 1)
		}
		if unhidden(pk, sk, it) {
			continue // counted as it is, but its trash's cascade has yet to hide it
		}
		if isRelationItem(pk, sk) {
			relationItems = append(relationItems, it)
			if h := strings.TrimPrefix(sk, layout.SelfHome); strings.HasPrefix(h, layout.RelationPrefix+"#") && !layout.IsRelatedBucket(pk) {
				var ri layout.RelationItem
				_ = dynamo.UnmarshalItem(it, &ri)
				r := ri.AsRelation()
				for _, ref := range layout.RelationRefs(&r) { // a relation's two pointers (relations.go)
					p := ref.Ptr
					p.SK = layout.SyncSK(ref.Kind, layout.FormatTime(ref.Updated), r.ID)
					wantPointers[layout.ItemKey{PK: p.PK, SK: p.SK}] = p
				}
			}
			continue
		}
		if sls := homeSlots(pk, sk, it); sls != nil {
			p := homePointer(sls[0], it)
			wantPointers[layout.ItemKey{PK: p.PK, SK: p.SK}] = p
		}
		if kind == layout.EntityPrefix && pk == prefix {
			p := layout.SyncPointer{PK: pk, SK: layout.SyncSK(layout.EntityPrefix, str(it, "updated_at"), num(it, "id")), ID: num(it, "id"), IsPrivate: boolean(it, "is_private")}
			wantPointers[layout.ItemKey{PK: p.PK, SK: p.SK}] = p
		}
		if strings.HasPrefix(sk, layout.ChildLinkPrefix) || strings.HasPrefix(sk, layout.LegacyEventLink) {
			stored[layout.ItemKey{PK: pk, SK: sk}] = 0
		}
		if strings.HasPrefix(sk, layout.DayLinkPrefix) || strings.HasPrefix(sk, layout.RecurLinkPrefix) {
			var l layout.DayLinkItem
			_ = dynamo.UnmarshalItem(it, &l)
			dayLinks[layout.ItemKey{PK: pk, SK: sk}] = l
		}
		if strings.HasPrefix(sk, layout.WeatherDayPrefix) {
			weatherDays[layout.ItemKey{PK: pk, SK: sk}] = num(it, "id")
		}
		if strings.TrimPrefix(sk, layout.SelfHome) == layout.RecordSK(layout.WeatherPrefix, num(it, "id")) && pk != prefix {
			var w struct { // a weather's date, whose day key it must have
				Year  int64 `dynamo:"year"`
				Month int   `dynamo:"month"`
				Day   int   `dynamo:"day"`
			}
			_ = dynamo.UnmarshalItem(it, &w)
			wantWeatherDays[layout.ItemKey{PK: pk, SK: layout.WeatherDaySK(calengine.Date{Year: w.Year, Month: w.Month, Day: w.Day})}] = num(it, "id")
		}
		if strings.TrimPrefix(sk, layout.SelfHome) == layout.RecordSK(layout.EventPrefix, num(it, "id")) && pk != prefix {
			var ev layout.EventItem
			_ = dynamo.UnmarshalItem(it, &ev)
			eventHomes = append(eventHomes, ev.Event())
		}
		if layout.IsCopy(sk) || strings.HasPrefix(sk, layout.SelfHome) || spec.Placement != layout.PlaceNone || kind == layout.ReminderKind ||
			strings.HasPrefix(sk, layout.DayLinkPrefix) || strings.HasPrefix(sk, layout.RecurLinkPrefix) || (kind == layout.EntityPrefix && pk == prefix) {
			stored[layout.ItemKey{PK: pk, SK: sk}] = num(it, "version")
		}
		for _, sl := range homeSlots(pk, sk, it) {
			expected[layout.ItemKey{PK: sl.PK, SK: sl.SK}] = num(it, "version")
		}
		if kind == layout.EntityPrefix && pk == prefix { // an entity is placed like its record (layout.EntitySlots)
			for _, sl := range layout.OwnerSlots(layout.EntityPrefix, cid, num(it, "id"), boolean(it, "is_private")) {
				expected[layout.ItemKey{PK: sl.PK, SK: sl.SK}] = num(it, "version")
			}
		}
		if layout.IsCopy(sk) {
			if _, has := it["private_tags"]; has {
				report("copy %s %s: carries private_tags (only homes keep them)", pk, sk)
			}
			if strings.HasPrefix(sk, layout.PublicCopy) && pk == prefix {
				var tags []int64
				_ = dynamo.Unmarshal(it["tags"], &tags)
				pubTags[sk] = tags
			}
			if strings.Contains(sk, layout.EventPrefix+"#") {
				events = append(events, struct {
					key        string
					calendarID int64
				}{pk + " " + sk, num(it, "calendar_id")})
			}
			continue // the home stands for the record
		}
		if strings.HasPrefix(sk, layout.SelfHome) {
			kind, _, _ = strings.Cut(strings.TrimPrefix(sk, layout.SelfHome), "#")
		}
		if pk != prefix { // a child partition
			if partitions[pk] == nil {
				partitions[pk] = map[string]int{}
			}
			partitions[pk][kind]++
			if kind == layout.EventPrefix {
				events = append(events, struct {
					key        string
					calendarID int64
				}{pk + " " + sk, num(it, "calendar_id")})
			}
			continue
		}
		switch {
		case spec.Owner:
			o := &owner{id: num(it, "id"), entityID: num(it, "entity_id"), name: str(it, "name"), private: boolean(it, "is_private")}
			if _, ok := it[spec.ParentAttr]; ok && spec.ParentAttr != "" {
				p := num(it, spec.ParentAttr)
				o.parent = &p
			}
			_ = dynamo.Unmarshal(it["tags"], &o.tags)
			_ = dynamo.Unmarshal(it["private_tags"], &o.privateTags)
			owners[spec.EntityType][o.id] = o
		case kind == layout.EntityPrefix:
			entities[num(it, "id")] = entity{typ: str(it, "type"), childID: num(it, "child_id"), name: str(it, "name"), private: boolean(it, "is_private"),
				linksPrivate: boolean(it, "links_private")}
			e := entities[num(it, "id")]
			_ = dynamo.Unmarshal(it["tags"], &e.tags)
			_ = dynamo.Unmarshal(it["private_tags"], &e.privateTags)
			entities[num(it, "id")] = e
		}
	}

	// Parents and cycles, of every nested kind.
	for _, k := range layout.OwnerKinds {
		if k.ParentAttr == "" {
			continue
		}
		recs := owners[k.EntityType]
		for id, l := range recs {
			if l.parent != nil && recs[*l.parent] == nil && !(k.Prefix == layout.LocationPrefix && pendingLoc[*l.parent]) {
				report("%s %d: parent %d does not exist", k.EntityType, id, *l.parent)
			}
		}
		for id := range recs {
			seen := map[int64]bool{}
			for at := id; ; {
				if seen[at] {
					if at == id {
						report("%s %d: its parent chain is a cycle", k.EntityType, id)
					}
					break
				}
				seen[at] = true
				l := recs[at]
				if l == nil || l.parent == nil {
					break
				}
				at = *l.parent
			}
		}
	}

	// Tag links: each tag a record names exists and has the record's member item, placed by
	// the record's privacy; each member item is such a link.
	wantMembers := map[layout.ItemKey]bool{}
	for _, k := range layout.OwnerKinds {
		for id, o := range owners[k.EntityType] {
			for _, t := range o.tags {
				if owners[layout.TagKind.EntityType][t] == nil {
					report("%s %d: tag %d does not exist", k.EntityType, id, t)
				}
				key := layout.TagMemberKey(cid, t, o.private, k.Prefix, id)
				wantMembers[key] = true
				if !tagMembers[key] {
					report("%s %d: its link in tag %d is missing", k.EntityType, id, t)
				}
			}
		}
	}
	for key := range tagMembers {
		if !wantMembers[key] {
			report("tag member %s %s: no record carries the tag", key.PK, key.SK)
		}
	}
	// Tag packs: every tag has one, with its privacy and exactly its member items' entity ids
	// (each class's smallest layout.TagPackCap, and their number); every pack has its tag.
	for id, tag := range owners[layout.TagKind.EntityType] {
		pk := layout.TagPackKey(cid, id).PK
		p := packs[pk]
		if p == nil {
			report("tag %d: its member pack is missing", id)
			continue
		}
		var want layout.TagPack
		for _, m := range memberIDs[pk] {
			ids, n := want.Class(layout.MemberClass(m.private))
			*ids = append(*ids, m.eid)
			*n++
		}
		if p.IsPrivate != tag.private {
			report("tag %d: its member pack says private %v", id, p.IsPrivate)
		}
		for _, c := range []string{"a", "p"} {
			got, gotN := p.Class(c)
			ids, n := want.Class(c)
			slices.Sort(*ids)
			*ids = (*ids)[:min(len(*ids), layout.TagPackCap)]
			if *gotN != *n || !sameIDs(slices.Sorted(slices.Values(*got)), *ids) {
				report("tag %d: its member pack's %s holds %d ids %v, its member items %d %v", id, c, *gotN, *got, *n, *ids)
			}
		}
	}
	for pk := range packs {
		id, _ := strconv.ParseInt(pk[strings.LastIndexByte(pk, '#')+1:], 10, 64)
		if owners[layout.TagKind.EntityType][id] == nil {
			report("member pack %s: tag %d does not exist", pk, id)
		}
	}

	// Records and their entities.
	for typ, recs := range owners {
		for id, o := range recs {
			e, ok := entities[o.entityID]
			switch {
			case !ok:
				report("%s %d: entity %d does not exist", typ, id, o.entityID)
			case e.typ != typ || e.childID != id:
				report("%s %d: entity %d belongs to %s %d", typ, id, o.entityID, e.typ, e.childID)
			case e.name != o.name || e.private != o.private:
				report("%s %d: entity %d mirrors name %q private %v, record has %q %v", typ, id, o.entityID, e.name, e.private, o.name, o.private)
			}
		}
	}
	for eid, e := range entities {
		if recs := owners[e.typ]; recs == nil || recs[e.childID] == nil {
			report("entity %d: its %s %d does not exist", eid, e.typ, e.childID)
		}
	}

	// Child partitions and their owners.
	for pk, kinds := range partitions {
		rest := strings.TrimPrefix(pk, prefix+"#")
		kind, idText, _ := strings.Cut(rest, "#")
		id, _ := strconv.ParseInt(idText, 10, 64)
		var exists bool
		if k, ok := layout.KindOf(kind); ok && k.Owner {
			exists = owners[k.EntityType][id] != nil
		} else if kind == layout.EntityPrefix {
			_, exists = entities[id]
		} else if fk, ok := layout.FamilyKindOf(kind); ok && fk.Partition {
			exists = familyRecords[layout.ItemKey{PK: prefix, SK: layout.RecordSK(kind, id)}]
		}
		if !exists && !tr.hides(pk) {
			report("partition %s: %s %d does not exist, %d items left (%v)", pk, strings.ToLower(kind), id, sum(kinds), kinds)
		}
	}

	// Counters and copies.
	for k, want := range tallies {
		for attr, n := range want {
			var got int
			_ = dynamo.Unmarshal(counters[k][attr], &got)
			if got != n {
				report("counter %s %s: %s is %d, items %d", k.PK, k.SK, attr, got, n)
			}
		}
	}
	for k, c := range counters {
		for attr, v := range c {
			var got int
			if attr == "pk" || attr == "sk" || dynamo.Unmarshal(v, &got) != nil || got == 0 {
				continue
			}
			if tallies[k][attr] == 0 {
				report("counter %s %s: %s is %d, items 0", k.PK, k.SK, attr, got)
			}
		}
	}
	for _, nk := range layout.OwnerKinds {
		if nk.ParentAttr == "" {
			continue
		}
		recs := owners[nk.EntityType]
		for id, l := range recs {
			if l.parent != nil {
				keys := []layout.ItemKey{layout.ChildLinkKeyOf(nk, cid, *l.parent, id)}
				if nk.Prefix == layout.LocationPrefix { // and its copy in the parent's related bucket
					keys = append(keys, layout.RelatedChildKey(cid, *l.parent, id))
				}
				for _, k := range keys {
					expected[k] = 0
					if p, ok := links[k]; ok && p != l.private {
						report("%s %d: its link %s %s says private %v", nk.EntityType, id, k.PK, k.SK, p)
					}
				}
			}
			// The public copy is the non-admins' projection: a parent only when the parent is public.
			if shows, ok := pubParents[layout.ItemKey{PK: nk.Prefix, SK: layout.Pad(id)}]; ok && (l.parent == nil || nk.Prefix != layout.LocationPrefix || !pendingLoc[*l.parent]) {
				want := l.parent != nil && recs[*l.parent] != nil && !recs[*l.parent].private
				if shows != want {
					report("%s %d: its public copy shows parent %v, want %v", nk.EntityType, id, shows, want)
				}
			}
		}
	}
	// Calendar links: each event's day link and reminder links, placed by its entity's
	// links_private, each as new as the event; links_private is is_private unless a re-placing
	// is pending (its marker).
	relinking := map[int64]bool{}
	for _, m := range markers {
		if m.Kind == layout.RelinkKind {
			relinking[m.ID] = true
			report("entity %d: its links' re-placing is pending", m.ID)
			delete(marked, m.SK)
		}
		if m.Kind == layout.CascadeKind {
			report("entity %d: its reference cascade is pending", m.ID)
			delete(marked, m.SK)
		}
	}
	// Private tags (round3 3.4's projection): a home's private_tags are its tags naming private
	// tags, its entity's the same, and the public copies (record's and entity's) show the rest,
	// unless a re-placing of one of its tags is pending.
	tagRecs := owners[layout.TagKind.EntityType]
	for _, k := range layout.OwnerKinds {
		for id, o := range owners[k.EntityType] {
			var want []int64
			pending := false
			for _, t := range o.tags {
				if tg := tagRecs[t]; tg != nil {
					pending = pending || relinking[tg.entityID]
					if tg.private {
						want = append(want, t)
					}
				}
			}
			if pending {
				continue
			}
			if !sameIDs(o.privateTags, want) {
				report("%s %d: private_tags %v, its private tags are %v", k.EntityType, id, o.privateTags, want)
			}
			if e, ok := entities[o.entityID]; ok && (!sameIDs(e.tags, o.tags) || !sameIDs(e.privateTags, want)) {
				report("entity %d: tags %v private %v, its %s says %v private %v", o.entityID, e.tags, e.privateTags, k.EntityType, o.tags, want)
			}
			shown := domain.VisibleTags(o.tags, want, false)
			for _, sk := range []string{layout.PublicCopy + layout.RecordSK(k.Prefix, id), layout.PublicCopy + layout.RecordSK(layout.EntityPrefix, o.entityID)} {
				if got, ok := pubTags[sk]; ok && !sameIDs(got, shown) {
					report("%s %d: its public copy %s shows tags %v, want %v", k.EntityType, id, sk, got, shown)
				}
			}
		}
	}
	for eid, e := range entities {
		if e.linksPrivate != e.private && !relinking[eid] {
			report("entity %d: links placed as private=%v, the entity is private=%v", eid, e.linksPrivate, e.private)
		}
	}
	for i := range eventHomes {
		ev := &eventHomes[i]
		if tr.entities[ev.EntityID] {
			continue // a trashed entity's events have no links (auditTrash)
		}
		ev.EntityPrivate = entities[ev.EntityID].linksPrivate
		k := layout.EventDayKey(ev)
		expected[k] = ev.Version
		if l, ok := dayLinks[k]; ok && (l.EntityPrivate != ev.EntityPrivate || l.IsPrivate != ev.IsPrivate || l.Visibility != string(ev.Visibility)) {
			report("item %s %s: its event's placement differs (entity private %v, private %v, %s)", k.PK, k.SK, ev.EntityPrivate, ev.IsPrivate, ev.Visibility)
		}
		if l, ok := dayLinks[k]; ok && !sameWhen(layout.ToDayLink(ev), l) {
			report("item %s %s: its event's recurrence or time differs", k.PK, k.SK)
		}
		for _, sl := range layout.ReminderSlots(ev) {
			expected[layout.ItemKey{PK: sl.PK, SK: sl.SK}] = ev.Version
		}
	}
	reconcile(report, "item", expected, stored, "version %d, its home has %d", "no home places it here", nil)

	for sk := range marked {
		report("sweeper marker %s %s: no delete pending", layout.PendingPK(cid), sk)
	}

	// Calendar weathers and their day keys: one each, in the same partition.
	for k, id := range wantWeatherDays {
		if got, ok := weatherDays[k]; !ok || got != id {
			report("calendar weather %d: day key %s %s missing or held by %d", id, k.PK, k.SK, got)
		}
	}
	for k, id := range weatherDays {
		if wantWeatherDays[k] != id {
			report("calendar weather day key %s %s: weather %d has another day or is gone", k.PK, k.SK, id)
		}
	}

	// Sync pointers.
	reconcile(report, "sync pointer", wantPointers, pointers, "holds %+v, its record %+v", "no record updated then", nil)
	// Relations and their mirrors.
	entityPrivate := map[int64]bool{}
	for eid, e := range entities {
		entityPrivate[eid] = e.private
	}
	problems = append(problems, auditRelations(cid, relationItems, entityPrivate)...)
	busy := map[int64]bool{} // entities whose cascade (trash, restore, privacy change) is pending
	for _, m := range markers {
		if m.Kind == layout.CascadeKind || m.Kind == layout.RelinkKind {
			busy[m.ID] = true
		}
	}
	problems = append(problems, auditRefs(cid, items, tr, busy)...)

	// Events and their calendars.
	for _, ev := range events {
		if calendars[ev.calendarID] == nil && !tr.calendars[ev.calendarID] {
			report("event %s: calendar %d does not exist", ev.key, ev.calendarID)
		}
	}
	more, err := s.auditMembers(ctx, cid, items)
	if err != nil {
		return nil, err
	}
	problems = append(problems, more...)
	problems = append(problems, auditIndexes(cid, tr.indexed(items))...)
	problems = append(problems, tr.audit(cid, items)...)
	held := map[string]string{}
	for _, it := range items {
		if p, ok := it["image_path"].(*types.AttributeValueMemberS); ok {
			pk, _ := it["pk"].(*types.AttributeValueMemberS)
			sk, _ := it["sk"].(*types.AttributeValueMemberS)
			if pk != nil && sk != nil {
				held[p.Value] = pk.Value + " " + sk.Value
			}
		}
	}
	layout.HeldPackImages(items, held)
	more, err = s.auditImages(ctx, cid, held)
	if err != nil {
		return nil, err
	}
	problems = append(problems, more...)
	problems = append(problems, auditMapPacks(cid, items, tr)...)
	problems = append(problems, auditMapRefs(cid, items, tr)...)
	sort.Strings(problems)
	return problems, nil
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// sameWhen reports whether two day links say the same of when their event happens: the
// day view computes occurrences and times from the link alone.
func sameWhen(a, b layout.DayLinkItem) bool {
	eq := func(x, y *int) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return a.Recurrence == b.Recurrence && a.Periodicity == b.Periodicity && eq(a.Hour, b.Hour) && eq(a.Minute, b.Minute)
}

// sameIDs reports whether a and b hold the same ids, in any order.
func sameIDs(a, b []int64) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// auditMembers checks the campaign's memberships against their users' partitions (Audit reads
// the campaign's items): each MEMBER#uid has its USER#uid CAMPAIGN#c twin with the same role,
// and each member's COUNT#CAMPAIGN counts the campaigns of its range. It reads each member's
// partition of campaigns (bounded by one user's campaigns).
func (s storeView) auditMembers(ctx context.Context, cid int64, items []dynamo.Item) ([]string, error) {
	var problems []string
	for _, it := range items {
		var m layout.MemberItem
		if err := dynamo.UnmarshalItem(it, &m); err != nil || m.PK != layout.CampaignPK(cid) || m.SK != layout.MemberSK(m.UserID) {
			continue
		}
		var rows []dynamo.Item
		if err := s.table.Get("pk", layout.UserPK(m.UserID)).Consistent(true).All(ctx, &rows); err != nil {
			return nil, layout.Wrap(err)
		}
		campaigns, counted, found := 0, 0, false
		for _, row := range rows {
			var r layout.MemberItem
			_ = dynamo.UnmarshalItem(row, &r)
			switch {
			case r.SK == layout.CounterSK(layout.CampaignKind):
				_ = dynamo.Unmarshal(row[layout.ClassAll], &counted)
			case r.SK == layout.CampaignPK(cid):
				campaigns++
				found = true
				if r.Role != m.Role {
					problems = append(problems, fmt.Sprintf("member %d: role %s, its user's campaign item says %s", m.UserID, m.Role, r.Role))
				}
			case strings.HasPrefix(r.SK, layout.CampaignPrefix):
				campaigns++
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("member %d: no campaign item under its user", m.UserID))
		}
		if counted != campaigns {
			problems = append(problems, fmt.Sprintf("member %d: campaign counter %d, campaigns %d", m.UserID, counted, campaigns))
		}
	}
	return problems, nil
}

// auditImages checks that no path a record holds is queued for the sweeper (which would delete
// a live image) and that every queued path is one of the campaign's.
func (s storeView) auditImages(ctx context.Context, cid int64, held map[string]string) ([]string, error) {
	var queued []layout.ImageGCItem
	if err := s.table.Get("pk", layout.ImageGCPK(cid)).Filter("'campaign_id' = ?", cid).Consistent(true).All(ctx, &queued); err != nil {
		return nil, layout.Wrap(err)
	}
	var out []string
	for _, q := range queued {
		if _, ok := layout.ImagePathTime(cid, q.Path); !ok {
			out = append(out, fmt.Sprintf("image queue item %s: path %q is not of campaign %d", q.SK, q.Path, cid))
		}
		if who, ok := held[q.Path]; ok {
			out = append(out, fmt.Sprintf("image %s of %s is queued for deletion (%s)", q.Path, who, q.SK))
		}
	}
	return out, nil
}

// auditMapPacks checks the packs of campaign cid: each in the partition of a live or trashed
// map, within its caps, its ids unique and at most its sequence, its groups' parents groups of
// the pack, with no cycle and at most domain.MaxGroupDepth levels.
func auditMapPacks(cid int64, items []dynamo.Item, tr *trashState) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	live := map[string]bool{}
	for _, it := range items {
		if k := layout.KeyOfItem(it); k.PK == layout.CampaignPK(cid) && strings.HasPrefix(k.SK, layout.MapPrefix+"#") {
			var id int64
			_ = dynamo.Unmarshal(it["id"], &id)
			live[layout.MapPK(cid, id)] = true
		}
	}
	for _, it := range items {
		k := layout.KeyOfItem(it)
		if k.SK != layout.GroupsSK && k.SK != layout.LayersSK {
			continue
		}
		if !live[k.PK] && !tr.hides(k.PK) {
			report("pack %s %s: no map", k.PK, k.SK)
		}
		var entries []domain.PackEntry
		var seq int64
		var raw string
		_ = dynamo.Unmarshal(it["seq"], &seq)
		_ = dynamo.Unmarshal(it["items"], &raw)
		if err := json.Unmarshal([]byte(raw), &entries); err != nil {
			report("pack %s %s: items unreadable: %v", k.PK, k.SK, err)
			continue
		}
		limit := domain.MaxMapLayers
		if k.SK == layout.GroupsSK {
			limit = domain.MaxMapGroups
		}
		if len(entries) > limit {
			report("pack %s %s: %d entries, at most %d", k.PK, k.SK, len(entries), limit)
		}
		seen := map[int64]bool{}
		for _, e := range entries {
			if seen[e.ID] || e.ID < 1 || e.ID > seq {
				report("pack %s %s: entry %d repeated or beyond its sequence %d", k.PK, k.SK, e.ID, seq)
			}
			seen[e.ID] = true
		}
		if k.SK != layout.GroupsSK {
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
					report("pack %s %s: group %d under missing group %d", k.PK, k.SK, g.ID, *at)
					break
				}
				if depth++; depth > domain.MaxGroupDepth {
					report("pack %s %s: group %d nested deeper than %d (or in a cycle)", k.PK, k.SK, g.ID, domain.MaxGroupDepth)
					break
				}
			}
		}
	}
	return problems
}

// reconcile reports what an index holds against what its homes place in it, by key: an
// expected item missing or holding another value (differs formats the stored value, then the
// expected one), and a stored item nothing places (stray), unless excused (items written
// after the scan began).
func reconcile[V comparable](report func(string, ...any), what string, expected, stored map[layout.ItemKey]V, differs, stray string, excused map[layout.ItemKey]bool) {
	for k, want := range expected {
		if got, ok := stored[k]; !ok {
			report(what+" %s %s: missing", k.PK, k.SK)
		} else if got != want {
			report(what+" %s %s: "+differs, k.PK, k.SK, got, want)
		}
	}
	for k := range stored {
		if _, ok := expected[k]; !ok && !excused[k] {
			report(what+" %s %s: "+stray, k.PK, k.SK)
		}
	}
}
