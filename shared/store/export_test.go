package store

import (
	"context"
	"time"

	"github.com/guregu/dynamo/v2"
)

// SetScanPage sets the migration's scan page size (tests interrupt it between pages).
func SetScanPage(n int) func() {
	old := scanPage
	scanPage = n
	return func() { scanPage = old }
}

// PutPendingDelete writes what the first step of a delete of kind id (LOCATION, CALENDAR)
// begun at began leaves for the sweeper: its marker and, unless stale, its tombstone.
func PutPendingDelete(ctx context.Context, s *Store, cid int64, kind string, id int64, began time.Time, stale bool) error {
	m := pendingMarker{PK: pendingPK(cid), SK: pendingSK(began, cid, kind, id), CID: cid, Kind: kind, ID: id}
	b := s.newTx()
	b.put(s.table.Put(m))
	if !stale {
		b.put(s.table.Put(tombstone{PK: campaignPK(cid), SK: tombstoneSK(kind, id), Kind: kind, ID: id, CID: cid, EntityID: 1000 + id, Marker: m.SK}))
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
	g := goneItem{syncPointer: syncPointer{PK: campaignPK(cid), SK: goneSK(locationPrefix, formatTime(deletedAt), id), ID: id},
		DeletedAt: formatTime(deletedAt), TTL: ttl.Unix()}
	q := goneQueueKey(cid, ttl, locationPrefix, id)
	b := s.newTx()
	b.put(s.table.Put(g))
	b.put(s.table.Put(goneQueued{PK: q.pk, SK: q.sk, GonePK: g.PK, GoneSK: g.SK, TTL: g.TTL}))
	return b.run(ctx)
}

// ExpireTrash makes the trash of entity eid of campaign cid expired, as if its 30 days had
// passed: its ttl in the past and its purge queue item due.
func ExpireTrash(ctx context.Context, s *Store, cid, eid int64) error {
	var t trashedEntity
	if err := s.getItem(ctx, campaignPK(cid), trashedSK(entityPrefix, eid), &t); err != nil {
		return err
	}
	at := parseTime(t.DeletedAt)
	old := purgeKey(cid, at.Add(TrashHistory), eid)
	var q purgeItem
	if err := s.getItem(ctx, old.pk, old.sk, &q); err != nil {
		return err
	}
	past := time.Now().Add(-time.Hour)
	next := purgeKey(cid, past, eid)
	q.PK, q.SK = next.pk, next.sk
	b := s.newTx()
	b.update(s.table.Update("pk", campaignPK(cid)).Range("sk", trashedSK(entityPrefix, eid)).Set("ttl", past.Unix()))
	b.del(s.table.Delete("pk", old.pk).Range("sk", old.sk))
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
	m := pendingMarker{PK: pendingPK(cid), SK: relinkMarkerSK(began, cid, eid), CID: cid, Kind: relinkKind, ID: eid}
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
	old := tagPackCap
	tagPackCap = n
	return func() { tagPackCap = old }
}

// DropMarkerPointers deletes the MARKIN# pointers in entity eid's partition, as a table written
// before them has none.
func DropMarkerPointers(ctx context.Context, s *Store, cid, eid int64) error {
	var ptrs []markerInItem
	if err := s.table.Get("pk", entityPK(cid, eid)).Range("sk", dynamo.BeginsWith, markerInPrefix).All(ctx, &ptrs); err != nil {
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
	var links []locMapItem
	if err := s.table.Get("pk", childPK(cid, locationPrefix, lid)).Range("sk", dynamo.BeginsWith, locMapPrefix).All(ctx, &links); err != nil {
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
		k := mentionKey(cid, t, src, 0)
		keys[i] = dynamo.Keys{k.pk, k.sk}
	}
	return s.batchDelete(ctx, keys)
}

// GetItems reads items by key (pk, sk) as the store's reads by key do (getItems: one
// BatchGetItem per 100 keys, built without reflection); each found item's id, by key.
func GetItems(ctx context.Context, s *Store, keys [][2]string) (map[[2]string]int64, error) {
	ks := make([]itemKey, len(keys))
	for i, k := range keys {
		ks[i] = itemKey{k[0], k[1]}
	}
	items, err := s.getItems(ctx, ks...)
	out := map[[2]string]int64{}
	for k, it := range items {
		var id int64
		if err := dynamo.Unmarshal(it["id"], &id); err != nil {
			return nil, err
		}
		out[[2]string{k.pk, k.sk}] = id
	}
	return out, err
}

// TableName is the store's table.
func TableName(s *Store) string { return s.table.Name() }
