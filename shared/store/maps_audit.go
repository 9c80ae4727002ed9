package store

import (
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"
)

// auditMapRefs checks what maps and markers say of other records: a map's centre names a
// marker of the map with the placement the map keeps of it; a marker linked to an entity has
// its MARKIN# pointer there and is placed by that entity's links privacy (for admins only
// while the entity is in the trash); every pointer names a marker that names its entity back.
func auditMapRefs(cid int64, items []dynamo.Item, tr *trashState) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	markers := map[itemKey]markerItem{}
	var maps []mapItem
	pointers := map[itemKey]bool{}
	locLinks := map[itemKey]bool{}
	locations := map[int64]bool{}
	linksPrivate := map[int64]bool{}
	for _, raw := range items {
		k := keyOfItem(raw)
		switch {
		case k.pk == campaignPK(cid) && strings.HasPrefix(k.sk, entityPrefix+"#"):
			var e entityItem
			_ = dynamo.UnmarshalItem(raw, &e)
			linksPrivate[e.ID] = e.LinksPrivate
		case strings.HasPrefix(k.sk, markerInPrefix):
			pointers[k] = true
		case strings.HasPrefix(k.sk, locMapPrefix):
			locLinks[k] = true
		case k.pk == campaignPK(cid) && strings.HasPrefix(k.sk, locationPrefix+"#"):
			var l struct {
				ID        int64 `dynamo:"id"`
				IsPrivate bool  `dynamo:"is_private"`
			}
			_ = dynamo.UnmarshalItem(raw, &l)
			locations[l.ID] = l.IsPrivate
		case k.pk == campaignPK(cid) && strings.HasPrefix(k.sk, mapPrefix+"#"):
			var it mapItem
			_ = dynamo.UnmarshalItem(raw, &it)
			maps = append(maps, it)
		case strings.HasPrefix(k.pk, campaignPK(cid)+"#"+mapPrefix+"#") && strings.HasPrefix(strings.TrimPrefix(k.sk, selfHome), markerPrefix+"#"):
			var it markerItem
			_ = dynamo.UnmarshalItem(raw, &it)
			markers[itemKey{k.pk, recordSK(markerPrefix, it.ID)}] = it
		}
	}
	for k, mk := range markers {
		if mk.EntityID == nil {
			continue
		}
		eid := *mk.EntityID
		if !pointers[markerInKey(cid, eid, mk.MapID, mk.ID)] {
			report("marker %d of map %d: no MARKIN# pointer in entity %d", mk.ID, mk.MapID, eid)
		}
		p, live := linksPrivate[eid]
		switch {
		case tr.entities[eid] && !mk.IsPrivate:
			report("marker %d of map %d: entity %d is in the trash, the marker is placed public", mk.ID, mk.MapID, eid)
		case live && p != mk.IsPrivate:
			report("marker %d of map %d: placed for entity %d private %v, the entity has %v", mk.ID, mk.MapID, eid, mk.IsPrivate, p)
		case !live && !tr.entities[eid] && !tr.hides(k.pk):
			report("marker %d of map %d: its entity %d does not exist", mk.ID, mk.MapID, eid)
		}
	}
	for k := range pointers {
		mid, id, ok := markerInOf(k.sk)
		mk, found := markers[itemKey{mapPK(cid, mid), recordSK(markerPrefix, id)}]
		if !ok || !found || mk.EntityID == nil || entityPK(cid, *mk.EntityID) != k.pk {
			report("pointer %s %s: names no marker linked to this entity", k.pk, k.sk)
		}
	}
	linked := map[itemKey]bool{}
	for _, m := range maps {
		if m.LocationID == nil {
			continue
		}
		lid := *m.LocationID
		k := locMapKey(cid, lid, m.ID)
		linked[k] = true
		p, live := locations[lid]
		trashed := tr.records[locationPrefix][lid]
		switch {
		case !live && !trashed:
			report("map %d: its location %d does not exist", m.ID, lid)
		case !locLinks[k]:
			report("map %d: no LOCMAP# link in location %d", m.ID, lid)
		case trashed && !m.LocationHidden:
			report("map %d: location %d is in the trash, its public copy shows it", m.ID, lid)
		case live && p != m.LocationHidden:
			report("map %d: placed for location %d private %v, the location has %v", m.ID, lid, m.LocationHidden, p)
		}
	}
	for k := range locLinks {
		if !linked[k] {
			report("link %s %s: names no live map of this location", k.pk, k.sk)
		}
	}
	for _, m := range maps {
		if m.CenterMarker == nil {
			continue
		}
		mk, ok := markers[itemKey{mapPK(cid, m.ID), recordSK(markerPrefix, *m.CenterMarker)}]
		switch {
		case !ok:
			report("map %d: centre marker %d is not a marker of the map", m.ID, *m.CenterMarker)
		case mk.Visibility != m.CenterVis || mk.CreatedBy != m.CenterBy || mk.IsPrivate != m.CenterPrivate:
			report("map %d: centre marker %d placed %s/%d/%v, the map says %s/%d/%v", m.ID, mk.ID,
				mk.Visibility, mk.CreatedBy, mk.IsPrivate, m.CenterVis, m.CenterBy, m.CenterPrivate)
		}
	}
	return problems
}
