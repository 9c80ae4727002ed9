package ops

import (
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// isRelationItem reports whether (pk, sk) is one of a relation's items: its home and copies, its
// campaign-wide copies, its related=1 bucket copy or its incoming pointer. Audit checks them
// with auditRelations.
func isRelationItem(pk, sk string) bool {
	if strings.HasPrefix(sk, layout.IncomingPrefix) && !layout.IsRelatedBucket(pk) {
		return true
	}
	parts := strings.Split(sk, "#")
	if len(parts) < 2 {
		return false
	}
	kind := parts[len(parts)-2]
	return kind == layout.RelationPrefix || kind == layout.RelationIndexPrefix
}

// auditRelations checks the relations of campaign cid (items: every relation item, see
// isRelationItem; entityPrivate: each existing entity's privacy): every relation has exactly
// the items its placement needs, each as new as its home; its owner and target exist and it is
// placed by their privacy; every mirror_id names a relation that names it back, with owner and
// target swapped; no pointer or copy outlives its relation.
func auditRelations(cid int64, items []dynamo.Item, entityPrivate map[int64]bool) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	stored := map[layout.ItemKey]int64{}
	homes := map[int64]layout.RelationItem{}
	for _, it := range items {
		var ri layout.RelationItem
		if err := dynamo.UnmarshalItem(it, &ri); err != nil {
			report("relation item: %v", err)
			continue
		}
		stored[layout.ItemKey{PK: ri.PK, SK: ri.SK}] = ri.Version
		if ri.PK == layout.EntityPK(cid, ri.OwnerID) && (ri.SK == layout.RecordSK(layout.RelationPrefix, ri.ID) || ri.SK == layout.SelfHome+layout.RecordSK(layout.RelationPrefix, ri.ID)) {
			homes[ri.ID] = ri
		}
	}
	expected := map[layout.ItemKey]int64{}
	for id, h := range homes {
		r := h.AsRelation()
		for _, sl := range layout.RelationSlots(&r) {
			expected[layout.ItemKey{PK: sl.PK, SK: sl.SK}] = r.Version
		}
		in := layout.IncomingKey(cid, r.TargetID, id)
		expected[in] = stored[in] // a pointer has no version: only its presence counts
		for _, end := range []struct {
			what    string
			eid     int64
			private bool
		}{{"owner", r.OwnerID, r.OwnerPrivate}, {"target", r.TargetID, r.TargetPrivate}} {
			p, ok := entityPrivate[end.eid]
			switch {
			case !ok:
				report("relation %d: its %s entity %d does not exist", id, end.what, end.eid)
			case p != end.private:
				report("relation %d: placed for %s %d private %v, the entity has %v", id, end.what, end.eid, end.private, p)
			}
		}
		if r.MirrorID != nil {
			m, ok := homes[*r.MirrorID]
			switch {
			case !ok:
				report("relation %d: mirror %d does not exist", id, *r.MirrorID)
			case m.MirrorID == nil || *m.MirrorID != id:
				report("relation %d: mirror %d does not name it back", id, *r.MirrorID)
			case m.OwnerID != r.TargetID || m.TargetID != r.OwnerID:
				report("relation %d: mirror %d joins %d to %d, not %d to %d", id, m.ID, m.OwnerID, m.TargetID, r.TargetID, r.OwnerID)
			}
		}
	}
	reconcile(report, "item", expected, stored, "version %d, its relation has %d", "no relation places it here", nil)
	return problems
}
