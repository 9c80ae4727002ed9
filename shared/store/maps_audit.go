package store

import (
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"
)

// auditMapRefs checks what maps and markers say of other records: a map's centre names a
// marker of the map with the placement the map keeps of it.
func auditMapRefs(cid int64, items []dynamo.Item) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	markers := map[itemKey]markerItem{}
	var maps []mapItem
	for _, raw := range items {
		k := keyOfItem(raw)
		switch {
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
