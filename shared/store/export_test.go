package store

import (
	"context"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// PutPendingDelete writes what the first step of a delete of kind id (LOCATION, CALENDAR)
// begun at began leaves for the sweeper: its marker and, unless stale, its tombstone.
func PutPendingDelete(ctx context.Context, s *Store, cid int64, kind string, id int64, began time.Time, stale bool) error {
	m := layout.PendingMarker{PK: layout.PendingPK(cid), SK: layout.PendingSK(began, cid, kind, id), CID: cid, Kind: kind, ID: id}
	b := s.newTx()
	b.put(s.table.Put(m))
	if !stale {
		b.put(s.table.Put(layout.Tombstone{PK: layout.CampaignPK(cid), SK: layout.TombstoneSK(kind, id), Kind: kind, ID: id, CID: cid, EntityID: 1000 + id, Marker: m.SK}))
	}
	return b.run(ctx)
}

// SetMaxSyncPointers sets how many pointers a lastSync read evaluates before it falls back to
// reading the range (tests cross it with a few records).
func SetMaxSyncPointers(n int) func() {
	old := maxSyncPointers
	maxSyncPointers = n
	return func() { maxSyncPointers = old }
}

// PutGone writes the tombstone of location id of campaign cid deleted at deletedAt, expiring at
// ttl, with its queue item, as a delete writes them (DynamoDB Local never removes them).
func PutGone(ctx context.Context, s *Store, cid, id int64, deletedAt, ttl time.Time) error {
	g := goneItem{SyncPointer: layout.SyncPointer{PK: layout.CampaignPK(cid), SK: layout.GoneSK(layout.LocationPrefix, layout.FormatTime(deletedAt), id), ID: id},
		DeletedAt: layout.FormatTime(deletedAt), TTL: ttl.Unix()}
	q := layout.GoneQueueKey(cid, ttl, layout.LocationPrefix, id)
	b := s.newTx()
	b.put(s.table.Put(g))
	b.put(s.table.Put(goneQueued{PK: q.PK, SK: q.SK, GonePK: g.PK, GoneSK: g.SK, TTL: g.TTL}))
	return b.run(ctx)
}

// ExpireTrash makes the trash of entity eid of campaign cid expired, as if its 30 days had
// passed: its ttl in the past and its purge queue item due.
func ExpireTrash(ctx context.Context, s *Store, cid, eid int64) error {
	var t layout.TrashedEntity
	if err := s.getItem(ctx, layout.CampaignPK(cid), layout.TrashedSK(layout.EntityPrefix, eid), &t); err != nil {
		return err
	}
	at := layout.ParseTime(t.DeletedAt)
	old := layout.PurgeKey(cid, at.Add(TrashHistory), eid)
	var q layout.PurgeItem
	if err := s.getItem(ctx, old.PK, old.SK, &q); err != nil {
		return err
	}
	past := time.Now().Add(-time.Hour)
	next := layout.PurgeKey(cid, past, eid)
	q.PK, q.SK = next.PK, next.SK
	b := s.newTx()
	b.update(s.table.Update("pk", layout.CampaignPK(cid)).Range("sk", layout.TrashedSK(layout.EntityPrefix, eid)).Set("ttl", past.Unix()))
	b.del(s.table.Delete("pk", old.PK).Range("sk", old.SK))
	b.put(s.table.Put(q))
	return b.run(ctx)
}

// SetTagListByMembers switches the tags[] filter between the tags' member items (on) and the
// filtered scan of the range (off), for tests that compare them.
func SetTagListByMembers(on bool) func() {
	old := tagListByMembers
	tagListByMembers = on
	return func() { tagListByMembers = old }
}

// HalfRelink leaves what a privacy change of entity eid that stopped after hiding its
// references leaves: its marker (begun at began) with links_private set, and the entity's
// relations and tag members re-placed as private, the record itself unchanged.
func HalfRelink(ctx context.Context, s *Store, cid, eid int64, began time.Time) error {
	m := layout.PendingMarker{PK: layout.PendingPK(cid), SK: layout.RelinkMarkerSK(began, cid, eid), CID: cid, Kind: layout.RelinkKind, ID: eid}
	if err := s.setLinksPrivate(ctx, cid, eid, true, &m, "", "", 0); err != nil {
		return err
	}
	e, err := s.GetEntity(ctx, cid, eid)
	if err != nil {
		return err
	}
	return s.relinkRefs(ctx, cid, eid, e.Type, e.ChildID, true)
}

// SetTagPackCap sets how many ids of a class a tag's member pack holds (tests cross it with a
// few members).
func SetTagPackCap(n int) func() {
	old := layout.TagPackCap
	layout.TagPackCap = n
	return func() { layout.TagPackCap = old }
}

// DropMarkerPointers deletes the MARKIN# pointers in entity eid's partition, as a table written
// before them has none.
func DropMarkerPointers(ctx context.Context, s *Store, cid, eid int64) error {
	var ptrs []layout.MarkerInItem
	if err := s.table.Get("pk", layout.EntityPK(cid, eid)).Range("sk", dynamo.BeginsWith, layout.MarkerInPrefix).All(ctx, &ptrs); err != nil {
		return err
	}
	var keys []dynamo.Keyed
	for _, p := range ptrs {
		keys = append(keys, dynamo.Keys{p.PK, p.SK})
	}
	return s.deleteKeys(ctx, keys)
}

// DropLocationMapLinks deletes the LOCMAP# links in location lid's partition, as a table
// written before them has none.
func DropLocationMapLinks(ctx context.Context, s *Store, cid, lid int64) error {
	var links []layout.LocMapItem
	if err := s.table.Get("pk", layout.ChildPK(cid, layout.LocationPrefix, lid)).Range("sk", dynamo.BeginsWith, layout.LocMapPrefix).All(ctx, &links); err != nil {
		return err
	}
	var keys []dynamo.Keyed
	for _, l := range links {
		keys = append(keys, dynamo.Keys{l.PK, l.SK})
	}
	return s.deleteKeys(ctx, keys)
}

// DropEntryMentions deletes the reverse mention items entity src's entry has in targets, as a
// trash written before they were kept through it left them.
func DropEntryMentions(ctx context.Context, s *Store, cid, src int64, targets []int64) error {
	keys := make([]dynamo.Keyed, len(targets))
	for i, t := range targets {
		k := layout.MentionKey(cid, t, src, 0)
		keys[i] = dynamo.Keys{k.PK, k.SK}
	}
	return s.batchDelete(ctx, keys)
}

// GetItems reads items by key (pk, sk) as the store's reads by key do (getItems: one
// BatchGetItem per 100 keys, built without reflection); each found item's id, by key.
func GetItems(ctx context.Context, s *Store, keys [][2]string) (map[[2]string]int64, error) {
	ks := make([]layout.ItemKey, len(keys))
	for i, k := range keys {
		ks[i] = layout.ItemKey{PK: k[0], SK: k[1]}
	}
	items, err := s.getItems(ctx, ks...)
	out := map[[2]string]int64{}
	for k, it := range items {
		var id int64
		if err := dynamo.Unmarshal(it["id"], &id); err != nil {
			return nil, err
		}
		out[[2]string{k.PK, k.SK}] = id
	}
	return out, err
}

// TableName is the store's table.
func TableName(s *Store) string { return s.table.Name() }
