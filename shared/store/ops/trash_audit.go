package ops

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// trashState is what Audit knows of a campaign's trash.
type trashState struct {
	entities  map[int64]bool // trashed entity ids
	calendars map[int64]bool // trashed calendar ids
	// records are the trashed records' ids by kind (their partitions hold what they hide).
	records map[string]map[int64]bool
	trashed map[int64]layout.TrashedEntity
	purges  map[int64]bool // entity ids with a purge queue item
}

// readTrash collects the trash of campaign cid from its items and reads its purge queue items
// (one Query of the campaign's shard).
func (s storeView) readTrash(ctx context.Context, cid int64, items []dynamo.Item) (*trashState, error) {
	t := &trashState{entities: map[int64]bool{}, calendars: map[int64]bool{}, records: map[string]map[int64]bool{},
		trashed: map[int64]layout.TrashedEntity{}, purges: map[int64]bool{}}
	prefix := layout.TrashedSK(layout.EntityPrefix, 0)[:len(layout.TrashedPrefix)+len(layout.EntityPrefix)+1]
	for _, it := range items {
		k := layout.KeyOfItem(it)
		if k.PK != layout.CampaignPK(cid) || !strings.HasPrefix(k.SK, prefix) {
			continue
		}
		var e layout.TrashedEntity
		if err := dynamo.UnmarshalItem(it, &e); err != nil {
			return nil, err
		}
		t.entities[e.ID], t.trashed[e.ID] = true, e
		if e.Type == layout.CalendarKind.EntityType {
			t.calendars[e.ChildID] = true
		}
		if k, ok := layout.OwnerKindOf(e.Type); ok {
			if t.records[k.Prefix] == nil {
				t.records[k.Prefix] = map[int64]bool{}
			}
			t.records[k.Prefix][e.ChildID] = true
		}
	}
	var queued []layout.PurgeItem
	if err := s.table.Get("pk", layout.PurgePK(int(cid%layout.PendingShards))).Filter("'campaign_id' = ?", cid).Consistent(true).All(ctx, &queued); err != nil {
		return nil, layout.Wrap(err)
	}
	for _, q := range queued {
		t.purges[q.EntityID] = true
	}
	return t, nil
}

// hides reports whether pk is the partition of a trashed entity or record.
func (t *trashState) hides(pk string) bool {
	parts := strings.Split(pk, "#")
	if len(parts) != 4 {
		return false
	}
	id, err := strconv.ParseInt(parts[3], 10, 64)
	if err != nil {
		return false
	}
	if parts[2] == layout.EntityPrefix {
		return t.entities[id]
	}
	return t.records[parts[2]][id]
}

// indexed leaves out the mention items of trashed entities' partitions (they wait for the
// restore; auditIndexes expects none for a missing target).
func (t *trashState) indexed(items []dynamo.Item) []dynamo.Item {
	out := make([]dynamo.Item, 0, len(items))
	for _, it := range items {
		k := layout.KeyOfItem(it)
		if strings.HasPrefix(k.SK, layout.MentionPrefix) && t.hides(k.PK) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// audit checks the trash's invariants (see Audit).
func (t *trashState) audit(cid int64, items []dynamo.Item) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	present := map[layout.ItemKey]bool{}
	for _, it := range items {
		present[layout.KeyOfItem(it)] = true
	}
	p := layout.CampaignPK(cid)
	for eid, e := range t.trashed {
		k, ok := layout.OwnerKindOf(e.Type)
		if !ok {
			report("trashed entity %d: unknown type %q", eid, e.Type)
			continue
		}
		if !present[layout.ItemKey{PK: p, SK: layout.TrashedSK(k.Prefix, e.ChildID)}] {
			report("trashed entity %d: its trashed %s %d is missing", eid, e.Type, e.ChildID)
		}
		if present[layout.ItemKey{PK: p, SK: layout.RecordSK(layout.EntityPrefix, eid)}] || present[layout.ItemKey{PK: p, SK: layout.RecordSK(k.Prefix, e.ChildID)}] {
			report("trashed entity %d: it is live too", eid)
		}
		if !t.purges[eid] {
			report("trashed entity %d: no purge queue item", eid)
		}
	}
	for _, it := range items {
		key := layout.KeyOfItem(it)
		var eid int64
		_ = dynamo.Unmarshal(it["entity_id"], &eid)
		switch {
		case key.PK == p && strings.HasPrefix(key.SK, layout.TrashedPrefix) && !strings.HasPrefix(key.SK, layout.TrashedSK(layout.EntityPrefix, 0)[:len(layout.TrashedPrefix)+len(layout.EntityPrefix)+1]):
			if !t.entities[eid] {
				report("item %s %s: trashed record without its trashed entity %d", key.PK, key.SK, eid)
			}
		case strings.HasPrefix(key.SK, layout.HiddenPrefix):
			if !t.hides(key.PK) {
				report("item %s %s: hidden, but its trash is gone", key.PK, key.SK)
			}
		case strings.HasPrefix(key.SK, layout.ChildLinkPrefix) && it["orphaned_by"] != nil:
			if !t.hides(key.PK) {
				report("item %s %s: marked by a trash that is gone", key.PK, key.SK)
			}
		}
	}
	return problems
}
