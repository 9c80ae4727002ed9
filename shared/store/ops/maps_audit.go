package ops

import (
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// auditMapRefs checks what maps and markers say of other records: a map's centre names a
// marker of the map with the placement the map keeps of it; a marker linked to an entity has
// its MARKIN# pointer there and is placed by that entity's links privacy (for admins only
// while the entity is in the trash); every pointer names a marker that names its entity back.
func auditMapRefs(cid int64, items []dynamo.Item, tr *trashState) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	markers := map[layout.ItemKey]layout.MarkerItem{}
	var maps []layout.MapItem
	pointers := map[layout.ItemKey]bool{}
	locLinks := map[layout.ItemKey]bool{}
	locations := map[int64]bool{}
	linksPrivate := map[int64]bool{}
	for _, raw := range items {
		k := layout.KeyOfItem(raw)
		switch {
		case k.PK == layout.CampaignPK(cid) && strings.HasPrefix(k.SK, layout.EntityPrefix+"#"):
			var e layout.EntityItem
			_ = dynamo.UnmarshalItem(raw, &e)
			linksPrivate[e.ID] = e.LinksPrivate
		case strings.HasPrefix(k.SK, layout.MarkerInPrefix):
			pointers[k] = true
		case strings.HasPrefix(k.SK, layout.LocMapPrefix):
			locLinks[k] = true
		case k.PK == layout.CampaignPK(cid) && strings.HasPrefix(k.SK, layout.LocationPrefix+"#"):
			var l struct {
				ID        int64 `dynamo:"id"`
				IsPrivate bool  `dynamo:"is_private"`
			}
			_ = dynamo.UnmarshalItem(raw, &l)
			locations[l.ID] = l.IsPrivate
		case k.PK == layout.CampaignPK(cid) && strings.HasPrefix(k.SK, layout.MapPrefix+"#"):
			var it layout.MapItem
			_ = dynamo.UnmarshalItem(raw, &it)
			maps = append(maps, it)
		case strings.HasPrefix(k.PK, layout.CampaignPK(cid)+"#"+layout.MapPrefix+"#") && strings.HasPrefix(strings.TrimPrefix(k.SK, layout.SelfHome), layout.MarkerPrefix+"#"):
			var it layout.MarkerItem
			_ = dynamo.UnmarshalItem(raw, &it)
			markers[layout.ItemKey{PK: k.PK, SK: layout.RecordSK(layout.MarkerPrefix, it.ID)}] = it
		}
	}
	for k, mk := range markers {
		if mk.EntityID == nil {
			continue
		}
		eid := *mk.EntityID
		if !pointers[layout.MarkerInKey(cid, eid, mk.MapID, mk.ID)] {
			report("marker %d of map %d: no MARKIN# pointer in entity %d", mk.ID, mk.MapID, eid)
		}
		p, live := linksPrivate[eid]
		switch {
		case tr.entities[eid] && !mk.IsPrivate:
			report("marker %d of map %d: entity %d is in the trash, the marker is placed public", mk.ID, mk.MapID, eid)
		case live && p != mk.IsPrivate:
			report("marker %d of map %d: placed for entity %d private %v, the entity has %v", mk.ID, mk.MapID, eid, mk.IsPrivate, p)
		case !live && !tr.entities[eid] && !tr.hides(k.PK):
			report("marker %d of map %d: its entity %d does not exist", mk.ID, mk.MapID, eid)
		}
	}
	for k := range pointers {
		mid, id, ok := layout.MarkerInOf(k.SK)
		mk, found := markers[layout.ItemKey{PK: layout.MapPK(cid, mid), SK: layout.RecordSK(layout.MarkerPrefix, id)}]
		if !ok || !found || mk.EntityID == nil || layout.EntityPK(cid, *mk.EntityID) != k.PK {
			report("pointer %s %s: names no marker linked to this entity", k.PK, k.SK)
		}
	}
	linked := map[layout.ItemKey]bool{}
	for _, m := range maps {
		if m.LocationID == nil {
			continue
		}
		lid := *m.LocationID
		k := layout.LocMapKey(cid, lid, m.ID)
		linked[k] = true
		p, live := locations[lid]
		trashed := tr.records[layout.LocationPrefix][lid]
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
			report("link %s %s: names no live map of this location", k.PK, k.SK)
		}
	}
	for _, m := range maps {
		if m.CenterMarker == nil {
			continue
		}
		mk, ok := markers[layout.ItemKey{PK: layout.MapPK(cid, m.ID), SK: layout.RecordSK(layout.MarkerPrefix, *m.CenterMarker)}]
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
