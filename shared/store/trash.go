package store

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// Trash, recovery and purge (round3 5.8, DESIGN 3.4). Deleting an owner record (every kind in
// ownerKinds) moves it to the trash in one transaction: its home, copies, entity, counters,
// sync pointers and name go, TRASHED#KIND#id and TRASHED#ENTITY#eid keep the homes as they were
// (ttl TrashHistory, checked on read), the GONE tombstones tell sync clients, and a PURGE# queue
// item and a CASCADE sweeper marker are written. Its children stay where they are, unreachable
// (every child read and write checks the entity). Then the reference cascade hides what other
// records show of it (hideRefs); a restore puts the homes back in one transaction and the
// cascade shows them again (showRefs). The cascade is batched, idempotent and decided by the
// state it finds (trashed: hide; live: show; neither: purged, nothing), so a failure or a passed
// deadline is finished by the sweeper (the marker) or `lorekeep migrate`. The sweeper purges
// trashes whose time is over with v2's delete cascade.

// TrashHistory is how long a trashed record can be restored (Kanka's hard_delete, 30 days).
const TrashHistory = domain.GoneHistory

// trashedEntity is an entity in the trash: its home as it was, and when and by whom.
type trashedEntity struct {
	entityItem
	DeletedAt string `dynamo:"deleted_at"`
	DeletedBy int64  `dynamo:"deleted_by"`
	TTL       int64  `dynamo:"ttl"`
}

// trashedHome is what restore reads of a trashed record of any owner kind.
type trashedHome struct {
	metaAttrs
	ownerAttrs
	ParentLocID *int64 `dynamo:"parent_location_id,omitempty"`
	ParentMapID *int64 `dynamo:"map_id,omitempty"`
}

// parent is the trashed record's parent, for the nested kinds whose trash keeps it.
func (th trashedHome) parent(k kindSpec) *int64 {
	return nestRow{ParentLocID: th.ParentLocID, ParentMapID: th.ParentMapID}.parent(k)
}

// purgeItem lists a trash by its expiry (purgeKey).
type purgeItem struct {
	PK        string `dynamo:"pk"`
	SK        string `dynamo:"sk"`
	CID       int64  `dynamo:"campaign_id"`
	EntityID  int64  `dynamo:"entity_id"`
	Kind      string `dynamo:"kind"`
	ID        int64  `dynamo:"id"`
	DeletedAt string `dynamo:"deleted_at"`
}

// trashOwner is the first step of a trash: one transaction, conditional on the version read,
// that moves the record and its entity to the trash (see the package comment above). also adds
// the kind's own changes (a location's link in its parent). Once it is written the record is
// gone for every reader and writer; the cascade that follows only hides references.
func (s *Store) trashOwner(ctx context.Context, k kindSpec, m *domain.Meta, o *domain.Owner, item any, also ...func(*txBuilder)) error {
	cid := m.CampaignID
	now := s.now().UTC().Truncate(time.Microsecond)
	expires := now.Add(TrashHistory)
	// The entry's reverse mention items stay while it is in the trash (readers check the source
	// entity, which is gone): they go with its purge, and a restore has them already.
	tags, err := s.tagLinksGone(ctx, k, m, o)
	if err != nil {
		return err
	}
	marker := pendingMarker{PK: pendingPK(cid), SK: pendingSK(now, cid, cascadeKind, o.EntityID), CID: cid, Kind: cascadeKind, ID: o.EntityID}
	b := s.newTx()
	b.remove(k.slots(m, o), m.Version)
	b.remove(entitySlots(m, o), 0)
	for _, ref := range []*syncRef{ownerRef(k.prefix, m, o), entityRef(m, o)} {
		b.del(s.table.Delete("pk", ref.ptr.PK).Range("sk", syncSK(ref.kind, formatTime(ref.updated), ref.ptr.ID)))
		b.syncGone(ref, now)
	}
	b.removeName(cid, o.EntityID)
	home := marshal(item)
	delete(home, parentHidden)
	delete(home, locationHidden)
	home["sk"] = attrS(trashedSK(k.prefix, m.ID))
	home["deleted_at"] = attrS(formatTime(now))
	home["ttl"] = &types.AttributeValueMemberN{Value: formatInt(expires.Unix())}
	b.put(s.table.Put(home))
	e := trashedEntity{entityItem: entityItemOf(k, m, o), DeletedAt: formatTime(now), DeletedBy: m.UpdatedBy, TTL: expires.Unix()}
	e.SK = trashedSK(entityPrefix, o.EntityID)
	b.put(s.table.Put(e))
	q := purgeKey(cid, expires, o.EntityID)
	b.put(s.table.Put(purgeItem{PK: q.pk, SK: q.sk, CID: cid, EntityID: o.EntityID, Kind: k.prefix, ID: m.ID, DeletedAt: e.DeletedAt}))
	b.put(s.table.Put(marker))
	for _, f := range append(also, tags) { // its tag links go; a restore puts back those whose tag lives
		if f != nil {
			f(b)
		}
	}
	if err := b.run(ctx); err != nil {
		return err
	}
	// The state is known (trashed): hide at once, without reading it again.
	err = s.hideRefs(ctx, &e.entityItem)
	if err == nil {
		err = wrap(s.table.Delete("pk", marker.PK).Range("sk", marker.SK).Run(ctx))
	}
	if err != nil {
		slog.WarnContext(ctx, "reference cascade pending: the sweeper finishes it", "campaign_id", cid, "entity_id", o.EntityID, "err", err.Error())
	}
	return nil
}

// finishCascade runs the cascade of a trash or restore within the request's deadline; what it
// leaves (a failure, the deadline) the sweeper finishes through the marker.
func (s *Store) finishCascade(ctx context.Context, cid, eid int64, markerSK string) {
	if err := s.reconcileCascade(ctx, cid, eid, markerSK); err != nil {
		slog.WarnContext(ctx, "reference cascade pending: the sweeper finishes it",
			"campaign_id", cid, "entity_id", eid, "err", err.Error())
	}
}

// reconcileCascade brings the references of entity eid in line with its state (trashed: hidden;
// live: shown; purged: nothing to do), then removes the marker ("" for none). Idempotent.
func (s *Store) reconcileCascade(ctx context.Context, cid, eid int64, markerSK string) error {
	home := itemKey{campaignPK(cid), recordSK(entityPrefix, eid)}
	trashed := itemKey{campaignPK(cid), trashedSK(entityPrefix, eid)}
	items, err := s.getItems(ctx, home, trashed)
	if err != nil {
		return err
	}
	var e entityItem
	switch {
	case items[home] != nil:
		if err := dynamo.UnmarshalItem(items[home], &e); err != nil {
			return err
		}
		err = s.showRefs(ctx, &e)
	case items[trashed] != nil:
		if err := dynamo.UnmarshalItem(items[trashed], &e); err != nil {
			return err
		}
		err = s.hideRefs(ctx, &e)
	}
	if err != nil || markerSK == "" {
		return err
	}
	return wrap(s.table.Delete("pk", pendingPK(cid)).Range("sk", markerSK).Run(ctx))
}

// hideRefs hides what other records show of trashed entity e: its events' links in calendars,
// the relations it owns or that point at it, and, by kind, a calendar's other entities' events
// and a location's children (made roots, as Kanka does, and marked for the restore).
func (s *Store) hideRefs(ctx context.Context, e *entityItem) error {
	// One Query of its partition finds its events, relations and markers' pointers (as the
	// purge's does).
	var all []dynamo.Item
	if err := s.table.Get("pk", entityPK(e.CampaignID, e.ID)).Consistent(true).All(ctx, &all); err != nil {
		return wrap(err)
	}
	var evs []timeline.Event
	var rels []partitionRow
	markers := []markerInItem{}
	for _, raw := range all {
		k := keyOfItem(raw)
		var r partitionRow
		_ = dynamo.UnmarshalItem(raw, &r)
		switch home := strings.TrimPrefix(k.sk, selfHome); {
		case strings.HasPrefix(k.sk, markerInPrefix):
			var p markerInItem
			if err := dynamo.UnmarshalItem(raw, &p); err != nil {
				return err
			}
			markers = append(markers, p)
		case home == recordSK(eventPrefix, r.ID):
			var it eventItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return err
			}
			evs = append(evs, it.event())
		case home == recordSK(relationPrefix, r.ID) || k.sk == incomingPrefix+pad(r.ID):
			rels = append(rels, r)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.hideOwnLinks(gctx, e.CampaignID, e.ID, evs) })
	g.Go(func() error { return s.hideRelations(gctx, e.CampaignID, e.ID, rels) })
	g.Go(func() error { // admins only until restored or purged
		return s.relinkKnownMarkers(gctx, e.CampaignID, e.ID, true, &markers)
	})
	switch e.Type {
	case calendarKind.entityType:
		g.Go(func() error { return s.hideCalendarEvents(gctx, e.CampaignID, e.ChildID, e.ID) })
	case locationKind.entityType:
		g.Go(func() error { return s.orphanChildren(gctx, locationKind, e.CampaignID, e.ChildID, true) })
		g.Go(func() error { return s.placeLocationMaps(gctx, e.CampaignID, e.ChildID, true, false) })
	case mapKind.entityType:
		g.Go(func() error { return s.orphanChildren(gctx, mapKind, e.CampaignID, e.ChildID, true) })
	}
	return g.Wait()
}

// showRefs is hideRefs undone, for live entity e.
func (s *Store) showRefs(ctx context.Context, e *entityItem) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.showOwnLinks(gctx, e) })
	g.Go(func() error { return s.showRelations(gctx, e.CampaignID, e.ID) })
	g.Go(func() error { return s.relinkMarkers(gctx, e.CampaignID, e.ID, e.IsPrivate || e.LinksPrivate) })
	switch e.Type {
	case calendarKind.entityType:
		g.Go(func() error { return s.showCalendarEvents(gctx, e.CampaignID, e.ChildID) })
	case locationKind.entityType, mapKind.entityType:
		if e.Type == locationKind.entityType {
			g.Go(func() error {
				return s.placeLocationMaps(gctx, e.CampaignID, e.ChildID, e.IsPrivate || e.LinksPrivate, false)
			})
		}
		k, _ := ownerKindOf(e.Type)
		g.Go(func() error { return s.adoptChildren(gctx, k, e.CampaignID, e.ChildID) })
	}
	return g.Wait()
}

// queryPrefixes reads the items of partition pk under each prefix (consistent, concurrent).
func (s *Store) queryPrefixes(ctx context.Context, pk string, prefixes ...string) ([]dynamo.Item, error) {
	out := make([][]dynamo.Item, len(prefixes))
	g, gctx := errgroup.WithContext(ctx)
	for i, p := range prefixes {
		g.Go(func() error {
			return wrap(s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, p).Consistent(true).All(gctx, &out[i]))
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(out...), nil
}

// entityEvents reads the event homes of entity eid.
func (s *Store) entityEvents(ctx context.Context, cid, eid int64) ([]timeline.Event, error) {
	raws, err := s.queryPrefixes(ctx, entityPK(cid, eid), eventPrefix+"#", selfHome+eventPrefix+"#")
	if err != nil {
		return nil, err
	}
	evs := make([]timeline.Event, 0, len(raws))
	for _, raw := range raws {
		var it eventItem
		if err := dynamo.UnmarshalItem(raw, &it); err != nil {
			return nil, err
		}
		evs = append(evs, it.event())
	}
	return evs, nil
}

// hideOwnLinks removes the calendar links of entity eid's events evs (day, recurring and
// reminder links, with their counts), each on condition of the link as read; a lost race
// reads the events again.
func (s *Store) hideOwnLinks(ctx context.Context, cid, eid int64, evs []timeline.Event) error {
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			var err error
			if evs, err = s.entityEvents(ctx, cid, eid); err != nil {
				return err
			}
		}
		if len(evs) == 0 {
			return nil
		}
		keys := make([]itemKey, len(evs))
		for i := range evs {
			keys[i] = reminderHome(&evs[i])
		}
		links, err := s.getItems(ctx, keys...)
		if err != nil {
			return err
		}
		var txs []*txBuilder
		for i := range evs {
			raw, ok := links[keys[i]]
			if !ok {
				continue // hidden already
			}
			var l dayLinkItem
			_ = dynamo.UnmarshalItem(raw, &l)
			ev := evs[i]
			ev.EntityPrivate, ev.Version = l.EntityPrivate, l.Version
			if len(txs) == 0 || txs[len(txs)-1].size()+8 > maxTx {
				txs = append(txs, s.newTx())
			}
			s.linkEvent(&ev, nil)(txs[len(txs)-1])
		}
		err = runTxs(ctx, txs)
		if err == nil || !errors.Is(err, apperr.ErrConflict) || attempt >= apperr.WriteAttempts {
			return err
		}
	}
}

// showOwnLinks links the events of live entity e that have no calendar links, placed by its
// links_private (checked in each transaction with the event's version), unless their
// calendar is gone for good (neither live nor trashed).
func (s *Store) showOwnLinks(ctx context.Context, e *entityItem) error {
	cid := e.CampaignID
	for attempt := 0; ; attempt++ {
		var ent entityItem
		if err := s.getItem(ctx, campaignPK(cid), recordSK(entityPrefix, e.ID), &ent); err != nil {
			if errors.Is(err, apperr.ErrNotFound) {
				return nil // trashed again: its own cascade hides
			}
			return err
		}
		evs, err := s.entityEvents(ctx, cid, e.ID)
		if err != nil || len(evs) == 0 {
			return err
		}
		var keys []itemKey
		cals := map[int64]bool{}
		for i := range evs {
			keys = append(keys, reminderHome(&evs[i]))
			if !cals[evs[i].CalendarID] {
				cals[evs[i].CalendarID] = true
				keys = append(keys, itemKey{campaignPK(cid), recordSK(calendarPrefix, evs[i].CalendarID)},
					itemKey{campaignPK(cid), trashedSK(calendarPrefix, evs[i].CalendarID)})
			}
		}
		got, err := s.getItems(ctx, keys...)
		if err != nil {
			return err
		}
		var txs []*txBuilder
		for i := range evs {
			ev := evs[i]
			calID := ev.CalendarID
			if _, linked := got[reminderHome(&ev)]; linked {
				continue
			}
			if got[itemKey{campaignPK(cid), recordSK(calendarPrefix, calID)}] == nil &&
				got[itemKey{campaignPK(cid), trashedSK(calendarPrefix, calID)}] == nil {
				continue // its calendar was purged: the purge of its partition took the links
			}
			ev.EntityPrivate = ent.LinksPrivate
			if len(txs) == 0 || txs[len(txs)-1].size()+10 > maxTx {
				b := s.newTx()
				b.check(s.table.Check("pk", campaignPK(cid)).Range("sk", recordSK(entityPrefix, e.ID)).
					If("attribute_exists(pk) AND 'links_private' = ?", ent.LinksPrivate))
				txs = append(txs, b)
			}
			b := txs[len(txs)-1]
			home := eventSlots(&ev)[0]
			b.check(s.table.Check("pk", home.pk).Range("sk", home.sk).If(ifVersion, ev.Version))
			s.linkEvent(nil, &ev)(b)
		}
		err = runTxs(ctx, txs)
		if err == nil || !errors.Is(err, apperr.ErrConflict) || attempt >= apperr.WriteAttempts {
			return err
		}
	}
}

// hideRelations moves every relation entity eid owns or is the target of (rows: their homes and
// RELIN# pointers in its partition) out of every list:
// each is removed with its copies, pointer and counts and kept whole in eid's partition
// (HIDDEN#RELATION#id), in one transaction on condition of its version (re-read on conflict).
func (s *Store) hideRelations(ctx context.Context, cid, eid int64, rows []partitionRow) error {
	type ref struct{ owner, id int64 }
	var refs []ref
	for _, r := range rows {
		if strings.HasPrefix(r.SK, incomingPrefix) {
			refs = append(refs, ref{r.OwnerID, r.ID})
		} else {
			refs = append(refs, ref{eid, r.ID})
		}
	}
	w, wctx := errgroup.WithContext(ctx)
	w.SetLimit(writeConcurrency)
	for _, rf := range refs {
		w.Go(func() error {
			return apperr.RetryConflicts(wctx, func() error {
				r, err := s.getRelation(wctx, cid, rf.owner, rf.id)
				if errors.Is(err, apperr.ErrNotFound) {
					return nil
				}
				if err != nil {
					return err
				}
				b := s.newTx()
				b.removeRelation(r, 0)
				hidden := marshal(toRelationItem(r))
				k := hiddenRelationKey(cid, eid, r.ID)
				hidden["pk"], hidden["sk"] = attrS(k.pk), attrS(k.sk)
				b.put(s.table.Put(hidden))
				return b.run(wctx)
			})
		})
	}
	return w.Wait()
}

// showRelations puts back the relations hidden in entity eid's partition whose other end is
// live, placed by both ends' privacy now (checked in the transaction) and updated now, so
// lastSync sees them. One whose other end is in the trash too moves to that entity's
// partition (its restore brings it back); one whose other end is purged goes.
func (s *Store) showRelations(ctx context.Context, cid, eid int64) error {
	var hidden []relationItem
	err := s.table.Get("pk", entityPK(cid, eid)).Range("sk", dynamo.BeginsWith, hiddenPrefix+relationPrefix+"#").Consistent(true).All(ctx, &hidden)
	if err != nil || len(hidden) == 0 {
		return wrap(err)
	}
	w, wctx := errgroup.WithContext(ctx)
	w.SetLimit(writeConcurrency)
	for _, it := range hidden {
		w.Go(func() error {
			return apperr.RetryConflicts(wctx, func() error { return s.showRelation(wctx, cid, eid, it) })
		})
	}
	return w.Wait()
}

func (s *Store) showRelation(ctx context.Context, cid, eid int64, it relationItem) error {
	r := it.relation()
	here := hiddenRelationKey(cid, eid, r.ID)
	other := r.TargetID
	if other == eid {
		other = r.OwnerID
	}
	keys := []itemKey{{campaignPK(cid), recordSK(entityPrefix, r.OwnerID)}, {campaignPK(cid), recordSK(entityPrefix, r.TargetID)},
		{campaignPK(cid), trashedSK(entityPrefix, other)}}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return err
	}
	b := s.newTx()
	b.del(s.table.Delete("pk", here.pk).Range("sk", here.sk).If("attribute_exists(pk)"))
	owner, target := got[keys[0]], got[keys[1]]
	switch {
	case owner != nil && target != nil:
		var o, t entityItem
		_ = dynamo.UnmarshalItem(owner, &o)
		_ = dynamo.UnmarshalItem(target, &t)
		prev := r.Meta
		r.OwnerPrivate, r.TargetPrivate = o.LinksPrivate, t.LinksPrivate // placed as relink.go places
		s.stampUpdate(&prev, &r.Meta)
		b.needEntity(cid, r.OwnerID, o.LinksPrivate, apperr.ErrConflict)
		if r.TargetID != r.OwnerID {
			b.needEntity(cid, r.TargetID, t.LinksPrivate, apperr.ErrConflict)
		}
		b.placeRelation(nil, &r)
	case got[keys[2]] != nil && other != eid:
		k := hiddenRelationKey(cid, other, r.ID)
		moved := marshal(it)
		moved["pk"], moved["sk"] = attrS(k.pk), attrS(k.sk)
		b.need(campaignPK(cid), trashedSK(entityPrefix, other), apperr.ErrConflict)
		b.put(s.table.Put(moved))
	case owner == nil && target == nil:
		return nil // eid itself is trashed again: its cascade hides
	}
	err = b.run(ctx)
	if errors.Is(err, apperr.ErrConflict) {
		var left struct {
			PK string `dynamo:"pk"`
		}
		if s.getItem(ctx, here.pk, here.sk, &left, "pk") != nil {
			return nil // shown (or moved) by a concurrent cascade
		}
	}
	return err
}

// hideCalendarEvents hides the events of other entities that use trashed calendar calID
// (found by their day links in its partition): each event leaves its entity's lists (home,
// copies, counts, sync pointer; a tombstone tells sync clients) and its links, and is kept
// whole in the calendar's partition (HIDDEN#EVENT#eid#id), in transactions conditional on the
// versions read. The calendar's own entity's events are hideOwnLinks'.
func (s *Store) hideCalendarEvents(ctx context.Context, cid, calID, calEntityID int64) error {
	for attempt := 0; ; attempt++ {
		var links []dayLinkItem
		err := s.table.Get("pk", calendarPK(cid, calID)).Project("pk", "sk", "entity_id", "id").Consistent(true).All(ctx, &links)
		if err != nil {
			return wrap(err)
		}
		var keys []itemKey
		for _, l := range links {
			if (strings.HasPrefix(l.SK, dayLinkPrefix) || strings.HasPrefix(l.SK, recurLinkPrefix)) && l.EntityID != calEntityID {
				for _, sk := range childHomeSKs(eventPrefix, l.ID) {
					keys = append(keys, itemKey{entityPK(cid, l.EntityID), sk})
				}
			}
		}
		if len(keys) == 0 {
			return nil
		}
		items, err := s.getItems(ctx, keys...)
		if err != nil {
			return err
		}
		var evs []timeline.Event
		var raws []dynamo.Item
		var remKeys []itemKey
		for _, raw := range items {
			var it eventItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return err
			}
			if it.CalendarID != calID {
				continue
			}
			ev := it.event()
			evs, raws, remKeys = append(evs, ev), append(raws, raw), append(remKeys, reminderHome(&ev))
		}
		rems, err := s.getItems(ctx, remKeys...)
		if err != nil {
			return err
		}
		now := s.now().UTC().Truncate(time.Microsecond)
		var txs []*txBuilder
		for i := range evs {
			ev := &evs[i]
			// An event: at most 5 items and 4 counters, its pointer, tombstone and queue item,
			// at most 5 links and 4 counters, and its hidden copy.
			if len(txs) == 0 || txs[len(txs)-1].size()+25 > maxTx {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			b.remove(eventSlots(ev), ev.Version)
			ref := eventRef(ev)
			b.del(s.table.Delete("pk", ref.ptr.PK).Range("sk", syncSK(ref.kind, formatTime(ref.updated), ref.ptr.ID)))
			b.syncGone(ref, now)
			if raw, ok := rems[remKeys[i]]; ok {
				var l dayLinkItem
				_ = dynamo.UnmarshalItem(raw, &l)
				ev.EntityPrivate = l.EntityPrivate
				s.linkEvent(ev, nil)(b)
			}
			hidden := make(dynamo.Item, len(raws[i])+1)
			for k, v := range raws[i] {
				hidden[k] = v
			}
			k := hiddenEventKey(cid, calID, ev.EntityID, ev.ID)
			hidden["pk"], hidden["sk"], hidden["hidden_at"] = attrS(k.pk), attrS(k.sk), attrS(formatTime(now))
			b.put(s.table.Put(hidden))
		}
		err = runTxs(ctx, txs)
		if err == nil || !errors.Is(err, apperr.ErrConflict) || attempt >= apperr.WriteAttempts {
			return err
		}
	}
}

// hiddenEvent is an event kept by hideCalendarEvents.
type hiddenEvent struct {
	eventItem
	HiddenAt string `dynamo:"hidden_at"`
}

// showCalendarEvents puts back the events hidden in calendar calID's partition: each in its
// entity's lists (updated now, its tombstone removed) and, when its entity is live, in the
// calendar's links, in its own transaction conditional on the entity as read. An event whose
// entity is in the trash goes back unlinked (the entity's restore links it); one whose
// entity is purged goes.
func (s *Store) showCalendarEvents(ctx context.Context, cid, calID int64) error {
	var hidden []hiddenEvent
	err := s.table.Get("pk", calendarPK(cid, calID)).Range("sk", dynamo.BeginsWith, hiddenPrefix+eventPrefix+"#").Consistent(true).All(ctx, &hidden)
	if err != nil || len(hidden) == 0 {
		return wrap(err)
	}
	w, wctx := errgroup.WithContext(ctx)
	w.SetLimit(writeConcurrency)
	for _, h := range hidden {
		w.Go(func() error {
			return apperr.RetryConflicts(wctx, func() error { return s.showEvent(wctx, cid, calID, h) })
		})
	}
	return w.Wait()
}

func (s *Store) showEvent(ctx context.Context, cid, calID int64, h hiddenEvent) error {
	ev := h.event()
	here := hiddenEventKey(cid, calID, ev.EntityID, ev.ID)
	home := itemKey{campaignPK(cid), recordSK(entityPrefix, ev.EntityID)}
	trashed := itemKey{campaignPK(cid), trashedSK(entityPrefix, ev.EntityID)}
	got, err := s.getItems(ctx, home, trashed)
	if err != nil {
		return err
	}
	b := s.newTx()
	b.del(s.table.Delete("pk", here.pk).Range("sk", here.sk).If("attribute_exists(pk)"))
	if got[home] != nil || got[trashed] != nil {
		old := ev
		s.stampUpdate(&old.Meta, &ev.Meta)
		b.place(marshal(toEventItem(&ev)), nil, eventSlots(&ev), 0)
		b.syncMove(nil, eventRef(&ev))
		b.unGone(eventRef(&old), parseTime(h.HiddenAt))
		if got[home] != nil {
			var e entityItem
			_ = dynamo.UnmarshalItem(got[home], &e)
			b.check(s.table.Check("pk", home.pk).Range("sk", home.sk).If("attribute_exists(pk) AND 'links_private' = ?", e.LinksPrivate))
			ev.EntityPrivate = e.LinksPrivate
			s.linkEvent(nil, &ev)(b)
		} else {
			b.need(trashed.pk, trashed.sk, apperr.ErrConflict)
		}
	}
	err = b.run(ctx)
	if errors.Is(err, apperr.ErrConflict) {
		var left struct {
			PK string `dynamo:"pk"`
		}
		if s.getItem(ctx, here.pk, here.sk, &left, "pk") != nil {
			return nil // shown by a concurrent cascade
		}
	}
	return err
}

// adoptChildren puts back under record pid of nested kind k the children its trash made roots:
// each link it marked (orphaned_by) whose child is still the root at the version the trash
// left it (no write since) is re-parented, with its parent chain checked as every move's is (no
// cycle, no depth beyond domain.MaxLocationDepth); any other marked link goes.
func (s *Store) adoptChildren(ctx context.Context, k kindSpec, cid, pid int64) error {
	var links []childLink
	err := s.table.Get("pk", childPK(cid, k.prefix, pid)).Range("sk", dynamo.BeginsWith, childLinkPrefix).Consistent(true).All(ctx, &links)
	if err != nil {
		return wrap(err)
	}
	w, wctx := errgroup.WithContext(ctx)
	w.SetLimit(writeConcurrency)
	for _, link := range links {
		if link.OrphanedBy == "" {
			continue
		}
		w.Go(func() error {
			return apperr.RetryConflicts(wctx, func() error { return s.adoptChild(wctx, k, cid, pid, link) })
		})
	}
	return w.Wait()
}

// adoptChild re-parents one child as it is stored (whatever its kind's fields), as
// orphanChildren made it a root.
func (s *Store) adoptChild(ctx context.Context, k kindSpec, cid, pid int64, link childLink) error {
	drop := func() error {
		return wrap(s.table.Delete("pk", link.PK).Range("sk", link.SK).If("'orphaned_by' = ?", link.OrphanedBy).Run(ctx))
	}
	home := itemKey{campaignPK(cid), recordSK(k.prefix, link.ID)}
	items, err := s.getItems(ctx, home)
	if err != nil {
		return err
	}
	raw, ok := items[home]
	if !ok {
		return ignoreCondition(drop())
	}
	var rec struct {
		metaAttrs
		ownerAttrs
	}
	var row nestRow
	if err := dynamo.UnmarshalItem(raw, &rec); err != nil {
		return err
	}
	if err := dynamo.UnmarshalItem(raw, &row); err != nil {
		return err
	}
	if rec.Version != link.ChildVersion || row.parent(k) != nil {
		return ignoreCondition(drop())
	}
	chain, err := s.ancestry(ctx, k, cid, pid, domain.MaxLocationDepth)
	if err != nil {
		return err
	}
	if len(chain) == 0 {
		return nil // pid is trashed again
	}
	for _, a := range chain {
		if a.ID == link.ID {
			return ignoreCondition(drop()) // it became an ancestor of pid meanwhile
		}
	}
	if len(chain) >= domain.MaxLocationDepth {
		return ignoreCondition(drop())
	}
	checks, private, err := s.parentChecks(ctx, k, cid, pid, chain, domain.MaxLocationDepth)
	if err != nil {
		return err
	}
	prevM, o := rec.meta(), rec.owner()
	nextM := prevM
	s.stampUpdate(&prevM, &nextM)
	next := make(dynamo.Item, len(raw))
	for name, v := range raw {
		next[name] = v
	}
	for name, v := range marshal(toMetaAttrs(home.pk, home.sk, nextM)) {
		next[name] = v
	}
	next[k.parentAttr] = &types.AttributeValueMemberN{Value: formatInt(pid)}
	next[parentHidden] = &types.AttributeValueMemberBOOL{Value: private}
	b := s.newTx()
	checks(b)
	b.place(next, k.slots(&prevM, &o), k.slots(&nextM, &o), prevM.Version)
	b.syncMove(ownerRef(k.prefix, &prevM, &o), ownerRef(k.prefix, &nextM, &o))
	b.mirror(marshal(entityItemOf(k, &nextM, &o)), entitySlots(&prevM, &o), entitySlots(&nextM, &o))
	b.syncMove(entityRef(&prevM, &o), entityRef(&nextM, &o))
	for _, l := range linkKeys(k, cid, pid, link.ID) { // the link, unmarked, and its related=1 copy
		b.put(s.table.Put(childLink{PK: l.pk, SK: l.sk, ID: link.ID, IsPrivate: o.IsPrivate}))
	}
	return b.run(ctx)
}

// ignoreCondition is nil for a conditional write that found the state already changed.
func ignoreCondition(err error) error {
	if errors.Is(err, apperr.ErrConflict) {
		return nil
	}
	return err
}

// GetTrashed reads the trashed entities of campaign cid among ids (missing, restored and
// expired ones are absent): the check of a restore request.
func (s *Store) GetTrashed(ctx context.Context, cid int64, ids []int64) (map[int64]*domain.Entity, error) {
	keys := make([]itemKey, len(ids))
	for i, id := range ids {
		keys[i] = itemKey{campaignPK(cid), trashedSK(entityPrefix, id)}
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	now := s.now().Unix()
	out := map[int64]*domain.Entity{}
	for _, raw := range got {
		var t trashedEntity
		if err := dynamo.UnmarshalItem(raw, &t); err != nil {
			return nil, err
		}
		if t.TTL > now {
			out[t.ID] = t.trashed()
		}
	}
	return out, nil
}

func (t trashedEntity) trashed() *domain.Entity {
	e := t.entity()
	at := parseTime(t.DeletedAt)
	e.DeletedAt, e.DeletedBy = &at, t.DeletedBy
	return e
}

// ListTrash reads one page of campaign cid's trashed entities not yet expired, by entity id:
// the whole TRASHED#ENTITY# range is read (bounded by TrashHistory of deletions), filtered on
// ttl, counted and windowed in one pass.
func (s *Store) ListTrash(ctx context.Context, cid int64, p domain.PageRequest) (domain.Page[domain.Entity], error) {
	l := listSpec{ranges: []listRange{{pk: campaignPK(cid), prefix: trashedSK(entityPrefix, 0)[:len(trashedPrefix)+len(entityPrefix)+1]}}}
	l.where("'ttl' > ?", s.now().Unix())
	return listPage(ctx, s, l, p, func(t trashedEntity) domain.Entity { return *t.trashed() })
}

// RestoreEntity restores trashed entity eid of campaign cid for user uid: one transaction,
// conditional on the trash being unexpired and as read, puts the record and its entity back
// (ids unchanged, version + 1, updated now so lastSync sees them), with their copies, counts,
// sync pointers and name, removes the trash, its tombstones and its purge item, re-links a
// location under its parent when that is live (a root otherwise) and writes the marker of the
// cascade that then shows its references again. domain.ErrNotTrashed when there is nothing to restore.
func (s *Store) RestoreEntity(ctx context.Context, cid, eid, uid int64) error {
	return apperr.RetryConflicts(ctx, func() error { return s.restoreEntity(ctx, cid, eid, uid) })
}

func (s *Store) restoreEntity(ctx context.Context, cid, eid, uid int64) error {
	var t trashedEntity
	err := s.getItem(ctx, campaignPK(cid), trashedSK(entityPrefix, eid), &t)
	if errors.Is(err, apperr.ErrNotFound) {
		return domain.ErrNotTrashed
	}
	if err != nil {
		return err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	if t.TTL <= now.Unix() {
		return domain.ErrNotTrashed
	}
	k, ok := ownerKindOf(t.Type)
	if !ok {
		return domain.ErrNotTrashed
	}
	var raw dynamo.Item
	if err := s.getItem(ctx, campaignPK(cid), trashedSK(k.prefix, t.ChildID), &raw); err != nil {
		if errors.Is(err, apperr.ErrNotFound) {
			return domain.ErrNotTrashed
		}
		return err
	}
	var th trashedHome
	if err := dynamo.UnmarshalItem(raw, &th); err != nil {
		return err
	}
	m, o := th.meta(), th.owner()
	gone := m // the record as its tombstones know it
	m.Version, m.UpdatedAt, m.UpdatedBy = m.Version+1, now, uid
	item := make(dynamo.Item, len(raw))
	for name, v := range raw {
		item[name] = v
	}
	for _, name := range []string{"deleted_at", "deleted_by", "ttl"} {
		delete(item, name)
	}
	item["sk"] = attrS(recordSK(k.prefix, m.ID))
	item["version"] = &types.AttributeValueMemberN{Value: formatInt(m.Version)}
	item["updated_at"] = attrS(formatTime(m.UpdatedAt))
	item["updated_by"] = &types.AttributeValueMemberN{Value: formatInt(uid)}
	var checks []func(*txBuilder)
	if k == mapKind {
		c, err := s.restoreMapLocation(ctx, cid, item)
		if err != nil {
			return err
		}
		checks = append(checks, c)
	}
	if parent := th.parent(k); parent != nil {
		c, err := s.restoreParent(ctx, k, cid, m.ID, *parent, o.IsPrivate, item)
		if err != nil {
			return err
		}
		checks = append(checks, c)
	}
	tags, err := s.restoredTags(ctx, k, &m, &o, item)
	if err != nil {
		return err
	}
	checks = append(checks, tags)
	at := parseTime(t.DeletedAt)
	marker := pendingMarker{PK: pendingPK(cid), SK: pendingSK(now, cid, cascadeKind, eid), CID: cid, Kind: cascadeKind, ID: eid}
	b := s.newTx()
	if b.needs == nil {
		b.needs = map[int]error{}
	}
	b.needs[b.n] = domain.ErrNotTrashed // the trash as read, unexpired: a purge or another restore got there first
	b.del(s.table.Delete("pk", campaignPK(cid)).Range("sk", trashedSK(entityPrefix, eid)).
		If("'deleted_at' = ? AND 'ttl' > ?", t.DeletedAt, now.Unix()))
	b.del(s.table.Delete("pk", campaignPK(cid)).Range("sk", trashedSK(k.prefix, m.ID)))
	b.place(item, nil, k.slots(&m, &o), 0)
	b.place(marshal(entityItemOf(k, &m, &o)), nil, entitySlots(&m, &o), 0)
	b.syncMove(nil, ownerRef(k.prefix, &m, &o))
	b.syncMove(nil, entityRef(&m, &o))
	b.unGone(ownerRef(k.prefix, &gone, &o), at)
	b.unGone(entityRef(&gone, &o), at)
	b.setName(cid, eid, k.entityType, m.ID, o.IsPrivate, o.Name)
	q := purgeKey(cid, at.Add(TrashHistory), eid)
	b.del(s.table.Delete("pk", q.pk).Range("sk", q.sk))
	b.put(s.table.Put(marker))
	for _, c := range checks { // the entry's mention items stayed through the trash
		if c != nil {
			c(b)
		}
	}
	if err := b.run(ctx); err != nil {
		if errors.Is(err, errTagGone) { // a tag deleted or turned private meanwhile: read again
			return apperr.ErrConflict
		}
		return err
	}
	s.finishCascade(ctx, cid, eid, marker.SK)
	return nil
}

// restoreParent makes a restored location's write depend on its parent: when the parent is
// live and not too deep it is checked (its chain, as a move's) and the link put back, and item
// carries the parent's privacy for its public copy; otherwise the location comes back a root.
func (s *Store) restoreParent(ctx context.Context, k kindSpec, cid, id, parent int64, private bool, item dynamo.Item) (func(*txBuilder), error) {
	chain, err := s.ancestry(ctx, k, cid, parent, domain.MaxLocationDepth)
	if err != nil {
		return nil, err
	}
	if len(chain) == 0 || len(chain) >= domain.MaxLocationDepth {
		delete(item, k.parentAttr)
		return nil, nil
	}
	checks, parentPrivate, err := s.parentChecks(ctx, k, cid, parent, chain, domain.MaxLocationDepth)
	if err != nil {
		return nil, err
	}
	item[parentHidden] = &types.AttributeValueMemberBOOL{Value: parentPrivate}
	return func(b *txBuilder) {
		checks(b)
		s.linkParent(k, cid, id, nil, &parent, false, private)(b)
	}, nil
}

// restoreMapLocation makes a restored map's write depend on its location as read now: a live
// one is held with its privacy (which places the public copy), a gone one is cleared.
func (s *Store) restoreMapLocation(ctx context.Context, cid int64, item dynamo.Item) (func(*txBuilder), error) {
	var it mapItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil || it.LocationID == nil {
		return nil, err
	}
	chain, err := s.ancestry(ctx, locationKind, cid, *it.LocationID, 1)
	if err != nil {
		return nil, err
	}
	if len(chain) == 0 {
		delete(item, "location_id")
		return nil, nil
	}
	item[locationHidden] = &types.AttributeValueMemberBOOL{Value: chain[0].IsPrivate}
	m := domain.Map{Meta: domain.Meta{CampaignID: cid}, LocationID: it.LocationID, LocationPrivate: chain[0].IsPrivate}
	check := s.locationCheck(&m)
	return func(b *txBuilder) { check(b); b.linkLocation(cid, it.ID, nil, it.LocationID) }, nil
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

// reconcileTrash runs the hiding cascade of every trashed entity of the table (a filtered Scan:
// the migration's, never a request's).
func (s *Store) reconcileTrash(ctx context.Context) error {
	var trashed []trashedEntity
	err := s.table.Scan().Filter("begins_with('sk', ?)", trashedSK(entityPrefix, 0)[:len(trashedPrefix)+len(entityPrefix)+1]).
		Consistent(true).All(ctx, &trashed)
	if err != nil {
		return wrap(err)
	}
	for i := range trashed {
		if err := s.hideRefs(ctx, &trashed[i].entityItem); err != nil {
			return err
		}
	}
	return nil
}

// restoredTags keeps, of a restored record's tags, those whose tag still lives (a tag deleted
// while the record was in the trash did not reach it: its links were gone), in o and in its
// home item, and returns the transaction part that puts their member items back, each checked.
func (s *Store) restoredTags(ctx context.Context, k kindSpec, m *domain.Meta, o *domain.Owner, item dynamo.Item) (func(*txBuilder), error) {
	if len(o.Tags) == 0 {
		return nil, nil
	}
	keys := make([]itemKey, len(o.Tags))
	for i, t := range o.Tags {
		keys[i] = itemKey{campaignPK(m.CampaignID), recordSK(tagPrefix, t)}
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	live := []int64{}
	for i, t := range o.Tags {
		if _, ok := got[keys[i]]; ok {
			live = append(live, t)
		}
	}
	o.Tags, o.TagsByAdmin = live, true
	av, err := dynamo.Marshal(live)
	if err != nil {
		return nil, err
	}
	item["tags"] = av
	plan, err := s.tagPlan(ctx, k, m, nil, o) // sets o.PrivateTags as read
	if err != nil {
		return nil, err
	}
	delete(item, "private_tags")
	if len(o.PrivateTags) > 0 {
		item["private_tags"], _ = dynamo.Marshal(o.PrivateTags)
	}
	return plan, nil
}
