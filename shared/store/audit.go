package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"
)

// Audit reads every item of campaign cid (a table scan: an operator's and the race suite's
// tool, never a request's) and returns each broken invariant of the stored state, one line
// each, sorted; none means the campaign is consistent:
//   - no location's parent chain is a cycle, and every parent exists;
//   - every calendar and location has its entity and every entity its record, mirroring its
//     name and privacy;
//   - no child partition (map points, events, notes) outlives its location or entity;
//   - every range counter (total and buckets) equals the items of its range, and every record
//     has exactly the copies its audiences need, each as new as its home;
//   - no delete is left pending (a tombstone: finished by the sweeper, a retry of the DELETE
//     or lorekeep migrate), every pending delete has its sweeper marker and every marker of
//     the campaign its pending delete;
//   - every event's calendar exists;
//   - every relation has its copies, pointer and bucket copy, is placed by its owner's and
//     target's privacy, and its mirror names it back (auditRelations).
//
// It knows the key layout, so it changes with it: whoever changes keys keeps it true.
func (s *Store) Audit(ctx context.Context, cid int64) ([]string, error) {
	var items []dynamo.Item
	prefix := campaignPK(cid)
	if err := s.table.Scan().Filter("begins_with('pk', ?)", prefix).Consistent(true).All(ctx, &items); err != nil {
		return nil, wrap(err)
	}
	var markers []pendingMarker
	if err := s.table.Get("pk", pendingPK(cid)).Filter("'campaign_id' = ?", cid).Consistent(true).All(ctx, &markers); err != nil {
		return nil, wrap(err)
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
	}
	type entity struct {
		typ     string
		childID int64
		name    string
		private bool
	}
	locations, calendars := map[int64]*owner{}, map[int64]*owner{}
	entities := map[int64]entity{}
	counters := map[counterKey]dynamo.Item{}
	tallies := map[counterKey]map[string]int{}
	stored := map[itemKey]int64{}             // every home and copy, by key: its version
	expected := map[itemKey]int64{}           // the slots of every home: its version
	partitions := map[string]map[string]int{} // child pk -> record prefix -> items
	var events []struct {
		key        string
		calendarID int64
	}
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
	for _, it := range items {
		pk, sk := str(it, "pk"), str(it, "sk")
		kind, _, _ := strings.Cut(sk, "#")
		if strings.HasPrefix(sk, counterPrefix) {
			counters[counterKey{pk, sk}] = it
			continue
		}
		if strings.HasPrefix(sk, tombstonePrefix) {
			what := strings.ToLower(strings.TrimPrefix(sk, tombstonePrefix))
			if m := str(it, "marker"); marked[m] {
				report("%s: delete pending", what)
				delete(marked, m)
			} else {
				report("%s: delete pending, with no sweeper marker", what)
			}
			continue
		}
		if counter, attr, id, ok := countedRange(sk); ok {
			k := counterKey{pk, counter}
			if tallies[k] == nil {
				tallies[k] = map[string]int{}
			}
			tallies[k][attr]++
			tallies[k][bucketAttr(attr, id)]++
		}
		if isRelationItem(pk, sk) {
			relationItems = append(relationItems, it)
			continue
		}
		if strings.HasPrefix(sk, childLinkPrefix) || strings.HasPrefix(sk, eventLinkPrefix) {
			stored[itemKey{pk, sk}] = 0
		}
		if strings.TrimPrefix(sk, selfHome) == recordSK(eventPrefix, num(it, "id")) {
			expected[eventLinkKey(cid, num(it, "calendar_id"), num(it, "entity_id"), num(it, "id"))] = 0
		}
		if isCopy(sk) || strings.HasPrefix(sk, selfHome) || kind == locationPrefix || kind == calendarPrefix ||
			kind == notePrefix || kind == eventPrefix || kind == mapPointPrefix || (kind == entityPrefix && pk == prefix) {
			stored[itemKey{pk, sk}] = num(it, "version")
		}
		for _, sl := range homeSlots(pk, sk, it) {
			expected[itemKey{sl.pk, sl.sk}] = num(it, "version")
		}
		if kind == entityPrefix && pk == prefix { // an entity is placed like its record (entitySlots)
			for _, sl := range ownerSlots(entityPrefix, cid, num(it, "id"), boolean(it, "is_private")) {
				expected[itemKey{sl.pk, sl.sk}] = num(it, "version")
			}
		}
		if isCopy(sk) {
			if strings.Contains(sk, eventPrefix+"#") {
				events = append(events, struct {
					key        string
					calendarID int64
				}{pk + " " + sk, num(it, "calendar_id")})
			}
			continue // the home stands for the record
		}
		if strings.HasPrefix(sk, selfHome) {
			kind, _, _ = strings.Cut(strings.TrimPrefix(sk, selfHome), "#")
		}
		if pk != prefix { // a child partition
			if partitions[pk] == nil {
				partitions[pk] = map[string]int{}
			}
			partitions[pk][kind]++
			if kind == eventPrefix {
				events = append(events, struct {
					key        string
					calendarID int64
				}{pk + " " + sk, num(it, "calendar_id")})
			}
			continue
		}
		switch kind {
		case locationPrefix, calendarPrefix:
			o := &owner{id: num(it, "id"), entityID: num(it, "entity_id"), name: str(it, "name"), private: boolean(it, "is_private")}
			if _, ok := it["parent_location_id"]; ok {
				p := num(it, "parent_location_id")
				o.parent = &p
			}
			if kind == locationPrefix {
				locations[o.id] = o
			} else {
				calendars[o.id] = o
			}
		case entityPrefix:
			entities[num(it, "id")] = entity{typ: str(it, "type"), childID: num(it, "child_id"), name: str(it, "name"), private: boolean(it, "is_private")}
		}
	}

	// Parents and cycles.
	for id, l := range locations {
		if l.parent != nil && locations[*l.parent] == nil {
			report("location %d: parent %d does not exist", id, *l.parent)
		}
	}
	for id := range locations {
		seen := map[int64]bool{}
		for at := id; ; {
			if seen[at] {
				if at == id {
					report("location %d: its parent chain is a cycle", id)
				}
				break
			}
			seen[at] = true
			l := locations[at]
			if l == nil || l.parent == nil {
				break
			}
			at = *l.parent
		}
	}

	// Records and their entities.
	owners := map[string]map[int64]*owner{"location": locations, "calendar": calendars}
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
		switch kind {
		case locationPrefix:
			exists = locations[id] != nil
		case entityPrefix:
			_, exists = entities[id]
		case calendarPrefix:
			exists = calendars[id] != nil
		}
		if !exists {
			report("partition %s: %s %d does not exist, %d items left (%v)", pk, strings.ToLower(kind), id, sum(kinds), kinds)
		}
	}

	// Counters and copies.
	for k, want := range tallies {
		for attr, n := range want {
			var got int
			_ = dynamo.Unmarshal(counters[k][attr], &got)
			if got != n {
				report("counter %s %s: %s is %d, items %d", k.pk, k.sk, attr, got, n)
			}
		}
	}
	var privateSet []int64
	_ = dynamo.Unmarshal(counters[counterKey{prefix, counterSK(locationPrefix)}][privateIDs], &privateSet)
	inSet := map[int64]bool{}
	for _, id := range privateSet {
		inSet[id] = true
		if l := locations[id]; l == nil || !l.private {
			report("location counter: private ids hold %d, not a private location", id)
		}
	}
	for id, l := range locations {
		if l.private && !inSet[id] {
			report("location counter: private ids lack private location %d", id)
		}
	}
	for k, c := range counters {
		for attr, v := range c {
			var got int
			if attr == "pk" || attr == "sk" || attr == privateIDs || dynamo.Unmarshal(v, &got) != nil || got == 0 {
				continue
			}
			if tallies[k][attr] == 0 {
				report("counter %s %s: %s is %d, items 0", k.pk, k.sk, attr, got)
			}
		}
	}
	for id, l := range locations {
		if l.parent != nil {
			expected[childLinkKey(cid, *l.parent, id)] = 0
		}
	}
	for k, v := range expected {
		if got, ok := stored[k]; !ok {
			report("item %s %s: missing", k.pk, k.sk)
		} else if got != v {
			report("item %s %s: version %d, its home has %d", k.pk, k.sk, got, v)
		}
	}
	for k := range stored {
		if _, ok := expected[k]; !ok {
			report("item %s %s: no home places it here", k.pk, k.sk)
		}
	}

	for sk := range marked {
		report("sweeper marker %s %s: no delete pending", pendingPK(cid), sk)
	}

	// Relations and their mirrors.
	entityPrivate := map[int64]bool{}
	for eid, e := range entities {
		entityPrivate[eid] = e.private
	}
	problems = append(problems, auditRelations(cid, relationItems, entityPrivate)...)

	// Events and their calendars.
	for _, ev := range events {
		if calendars[ev.calendarID] == nil {
			report("event %s: calendar %d does not exist", ev.key, ev.calendarID)
		}
	}
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
