package store

import (
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"
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
	prefix := campaignPK(cid)
	entities := map[int64]NameEntry{}
	shards := map[itemKey]dynamo.Item{}
	stored := map[itemKey]mentionItem{}
	type want struct {
		m       mentionItem
		written string // the entry's updated_at
	}
	var wanted []want
	created := map[int64]string{}
	for _, it := range items {
		k := keyOfItem(it)
		switch {
		case k.pk == prefix && strings.HasPrefix(k.sk, namesPrefix):
			shards[k] = it
		case k.pk == prefix && strings.HasPrefix(k.sk, entityPrefix+"#"):
			var e entityItem
			if dynamo.UnmarshalItem(it, &e) == nil && k.sk == recordSK(entityPrefix, e.ID) {
				created[e.ID] = e.CreatedAt
				entities[e.ID] = NameEntry{EntityID: e.ID, Kind: e.Type, ChildID: e.ChildID, IsPrivate: e.IsPrivate, NameLC: strings.ToLower(e.Name)}
			}
		case strings.HasPrefix(k.sk, mentionPrefix):
			var m mentionItem
			_ = dynamo.UnmarshalItem(it, &m)
			stored[k] = m
		default:
			var written string
			_ = dynamo.Unmarshal(it["updated_at"], &written)
			for _, m := range mentionItemsOf(k.pk, k.sk, it) {
				wanted = append(wanted, want{m, written})
			}
		}
	}

	seen := map[int64]bool{}
	for k, it := range shards {
		for _, got := range nameEntries(it) {
			seen[got.EntityID] = true
			want, ok := entities[got.EntityID]
			switch {
			case !ok:
				report("name shard %s: entity %d does not exist", k.sk, got.EntityID)
			case namesKey(cid, got.EntityID) != k:
				report("name shard %s: entity %d belongs to %s", k.sk, got.EntityID, namesKey(cid, got.EntityID).sk)
			case got != want:
				report("name shard %s: entity %d is %+v, its entity %+v", k.sk, got.EntityID, got, want)
			}
		}
	}
	for eid := range entities {
		if !seen[eid] {
			report("name shard %s: entity %d missing", namesKey(cid, eid).sk, eid)
		}
	}

	expected := map[itemKey]mentionItem{}
	late := map[itemKey]bool{} // targets created after the entry: an item is allowed, not due
	for _, w := range wanted {
		if _, ok := entities[w.m.TargetID]; !ok {
			continue
		}
		k := itemKey{w.m.PK, w.m.SK}
		if created[w.m.TargetID] > w.written {
			late[k] = true
			continue
		}
		expected[k] = w.m
	}
	for k, m := range expected {
		if got, ok := stored[k]; !ok {
			report("mention %s %s: missing", k.pk, k.sk)
		} else if got != m {
			report("mention %s %s: is %+v, its entry says %+v", k.pk, k.sk, got, m)
		}
	}
	for k := range stored {
		if _, ok := expected[k]; !ok && !late[k] {
			report("mention %s %s: no entry mentions it", k.pk, k.sk)
		}
	}
	return problems
}
