package ops

import (
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// auditIndexes checks the items derived from records (Audit's part for names.go and
// mentions.go), given every item of campaign cid:
//   - every entity has its entry in its name shard, mirroring its kind, child id, privacy and
//     lower-case name, and no shard holds an entry of an entity that does not exist or belongs
//     to another shard;
//   - the reverse mention items are exactly those the entries of the records and notes call
//     for (targets that are entities of the campaign, self-mentions aside), with the post's
//     visibility and creator; an entity created after the entry was written has none (Kanka
//     maps what exists when the entry is saved).
func auditIndexes(cid int64, items []dynamo.Item) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	prefix := layout.CampaignPK(cid)
	entities := map[int64]layout.NameEntry{}
	shards := map[layout.ItemKey]dynamo.Item{}
	stored := map[layout.ItemKey]layout.MentionItem{}
	type want struct {
		m       layout.MentionItem
		written string // the entry's updated_at
	}
	var wanted []want
	created := map[int64]string{}
	for _, it := range items {
		k := layout.KeyOfItem(it)
		switch {
		case k.PK == prefix && strings.HasPrefix(k.SK, layout.NamesPrefix):
			shards[k] = it
		case k.PK == prefix && strings.HasPrefix(k.SK, layout.EntityPrefix+"#"):
			var e layout.EntityItem
			if dynamo.UnmarshalItem(it, &e) == nil && k.SK == layout.RecordSK(layout.EntityPrefix, e.ID) {
				created[e.ID] = e.CreatedAt
				entities[e.ID] = layout.NameEntry{EntityID: e.ID, Kind: e.Type, ChildID: e.ChildID, IsPrivate: e.IsPrivate, NameLC: strings.ToLower(e.Name)}
			}
		case strings.HasPrefix(k.SK, layout.MentionPrefix):
			var m layout.MentionItem
			_ = dynamo.UnmarshalItem(it, &m)
			stored[k] = m
		default:
			var written string
			_ = dynamo.Unmarshal(it["updated_at"], &written)
			for _, m := range layout.MentionItemsOf(k.PK, k.SK, it) {
				wanted = append(wanted, want{m, written})
			}
		}
	}

	seen := map[int64]bool{}
	for k, it := range shards {
		for _, got := range layout.NameEntries(it) {
			seen[got.EntityID] = true
			want, ok := entities[got.EntityID]
			switch {
			case !ok:
				report("name shard %s: entity %d does not exist", k.SK, got.EntityID)
			case layout.NamesKey(cid, got.EntityID) != k:
				report("name shard %s: entity %d belongs to %s", k.SK, got.EntityID, layout.NamesKey(cid, got.EntityID).SK)
			case got != want:
				report("name shard %s: entity %d is %+v, its entity %+v", k.SK, got.EntityID, got, want)
			}
		}
	}
	for eid := range entities {
		if !seen[eid] {
			report("name shard %s: entity %d missing", layout.NamesKey(cid, eid).SK, eid)
		}
	}

	expected := map[layout.ItemKey]layout.MentionItem{}
	late := map[layout.ItemKey]bool{} // targets created after the entry: an item is allowed, not due
	for _, w := range wanted {
		if _, ok := entities[w.m.TargetID]; !ok {
			continue
		}
		k := layout.ItemKey{PK: w.m.PK, SK: w.m.SK}
		if created[w.m.TargetID] > w.written {
			late[k] = true
			continue
		}
		expected[k] = w.m
	}
	reconcile(report, "mention", expected, stored, "is %+v, its entry says %+v", "no entry mentions it", late)
	return problems
}
