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
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Trash, recovery and purge (round3 5.8, DESIGN 3.4). Deleting an owner record (every kind in
// layout.OwnerKinds) moves it to the trash in one transaction: its home, copies, entity, counters,
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

// trashedHome is what restore reads of a trashed record of any owner kind (its parent, for a
// nested kind whose trash keeps it: parentOf).
type trashedHome struct {
	layout.MetaAttrs
	layout.OwnerAttrs
}

// trashOwner is the first step of a trash: one transaction, conditional on the version read,
// that moves the record and its entity to the trash (see the package comment above). also adds
// the kind's own changes (a location's link in its parent). Once it is written the record is
// gone for every reader and writer; the cascade that follows only hides references.
func (s *Store) trashOwner(ctx context.Context, k layout.KindSpec, m *domain.Meta, o *domain.Owner, item any, also ...func(*txBuilder)) error {
	cid := m.CampaignID
	now := s.now().UTC().Truncate(time.Microsecond)
	expires := now.Add(TrashHistory)
	// The entry's reverse mention items stay while it is in the trash (readers check the source
	// entity, which is gone): they go with its purge, and a restore has them already.
	tags, err := s.tagLinksGone(ctx, k, m, o)
	if err != nil {
		return err
	}
	marker := layout.PendingMarker{PK: layout.PendingPK(cid), SK: layout.PendingSK(now, cid, layout.CascadeKind, o.EntityID), CID: cid, Kind: layout.CascadeKind, ID: o.EntityID}
	b := s.newTx()
	b.remove(k.Slots(m, o), m.Version)
	b.remove(layout.EntitySlots(m, o), 0)
	for _, ref := range []*layout.SyncRef{ownerRef(k.Prefix, m, o), layout.EntityRef(m, o)} {
		b.del(s.table.Delete("pk", ref.Ptr.PK).Range("sk", layout.SyncSK(ref.Kind, layout.FormatTime(ref.Updated), ref.Ptr.ID)))
		b.syncGone(ref, now)
	}
	b.removeName(cid, o.EntityID)
	home := layout.Marshal(item)
	delete(home, layout.ParentHidden)
	delete(home, layout.LocationHidden)
	home["sk"] = layout.AttrS(layout.TrashedSK(k.Prefix, m.ID))
	home["deleted_at"] = layout.AttrS(layout.FormatTime(now))
	home["ttl"] = &types.AttributeValueMemberN{Value: formatInt(expires.Unix())}
	b.put(s.table.Put(home))
	e := layout.TrashedEntity{EntityItem: layout.EntityItemOf(k, m, o), DeletedAt: layout.FormatTime(now), DeletedBy: m.UpdatedBy, TTL: expires.Unix()}
	e.SK = layout.TrashedSK(layout.EntityPrefix, o.EntityID)
	b.put(s.table.Put(e))
	q := layout.PurgeKey(cid, expires, o.EntityID)
	b.put(s.table.Put(layout.PurgeItem{PK: q.PK, SK: q.SK, CID: cid, EntityID: o.EntityID, Kind: k.Prefix, ID: m.ID, DeletedAt: e.DeletedAt}))
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
	err = s.hideRefs(ctx, &e.EntityItem, refTargetsOfItem(home))
	if err == nil {
		err = layout.Wrap(s.table.Delete("pk", marker.PK).Range("sk", marker.SK).Run(ctx))
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
	home := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, eid)}
	trashed := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(layout.EntityPrefix, eid)}
	items, err := s.getItems(ctx, home, trashed)
	if err != nil {
		return err
	}
	var e layout.EntityItem
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
		err = s.hideRefs(ctx, &e, nil)
	}
	if err != nil || markerSK == "" {
		return err
	}
	return layout.Wrap(s.table.Delete("pk", layout.PendingPK(cid)).Range("sk", markerSK).Run(ctx))
}

// hideRefs hides what other records show of trashed entity e: its events' links in calendars,
// the relations it owns or that point at it, and, by kind, a calendar's other entities' events
// and a location's children (made roots, as Kanka does, and marked for the restore).
func (s *Store) hideRefs(ctx context.Context, e *layout.EntityItem, own []layout.RefTarget) error {
	// One Query of its partition finds its events, relations and markers' pointers (as the
	// purge's does).
	var all []dynamo.Item
	if err := s.table.Get("pk", layout.EntityPK(e.CampaignID, e.ID)).Consistent(true).All(ctx, &all); err != nil {
		return layout.Wrap(err)
	}
	var evs []timeline.Event
	var rels []partitionRow
	var links []layout.RefLink
	markers := []layout.MarkerInItem{}
	for _, raw := range all {
		k := layout.KeyOfItem(raw)
		var r partitionRow
		_ = dynamo.UnmarshalItem(raw, &r)
		switch home := strings.TrimPrefix(k.SK, layout.SelfHome); {
		case strings.HasPrefix(k.SK, layout.RefByPrefix):
			var l layout.RefLink
			if err := dynamo.UnmarshalItem(raw, &l); err != nil {
				return err
			}
			links = append(links, l)
		case strings.HasPrefix(k.SK, layout.MarkerInPrefix):
			var p layout.MarkerInItem
			if err := dynamo.UnmarshalItem(raw, &p); err != nil {
				return err
			}
			markers = append(markers, p)
		case home == layout.RecordSK(layout.EventPrefix, r.ID):
			var it layout.EventItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return err
			}
			evs = append(evs, it.Event())
		case home == layout.RecordSK(layout.RelationPrefix, r.ID) || k.SK == layout.IncomingPrefix+layout.Pad(r.ID):
			rels = append(rels, r)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.hideReferences(gctx, e, links, own) })
	g.Go(func() error { return s.hideOwnLinks(gctx, e.CampaignID, e.ID, evs) })
	g.Go(func() error { return s.hideRelations(gctx, e.CampaignID, e.ID, rels) })
	g.Go(func() error { // admins only until restored or purged
		return s.relinkKnownMarkers(gctx, e.CampaignID, e.ID, true, &markers)
	})
	k, owner := layout.OwnerKindOf(e.Type)
	if owner && k.ParentAttr != "" { // a nested kind: its children become roots
		g.Go(func() error { return s.orphanChildren(gctx, k, e.CampaignID, e.ChildID, true) })
	}
	if c, ok := kindCascades[k.Prefix]; owner && ok && c.hide != nil {
		g.Go(func() error { return c.hide(gctx, s, e) })
	}
	return g.Wait()
}

// showRefs is hideRefs undone, for live entity e.
func (s *Store) showRefs(ctx context.Context, e *layout.EntityItem) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.showReferences(gctx, e) })
	g.Go(func() error { return s.showOwnLinks(gctx, e) })
	g.Go(func() error { return s.showRelations(gctx, e.CampaignID, e.ID) })
	g.Go(func() error { return s.relinkMarkers(gctx, e.CampaignID, e.ID, e.IsPrivate || e.LinksPrivate) })
	k, owner := layout.OwnerKindOf(e.Type)
	if c, ok := kindCascades[k.Prefix]; owner && ok && c.show != nil {
		g.Go(func() error { return c.show(gctx, s, e) })
	}
	if owner && k.ParentAttr != "" { // a nested kind: the children its trash made roots come back
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
			return layout.Wrap(s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, p).Consistent(true).All(gctx, &out[i]))
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(out...), nil
}

// entityEvents reads the event homes of entity eid.
func (s *Store) entityEvents(ctx context.Context, cid, eid int64) ([]timeline.Event, error) {
	raws, err := s.queryPrefixes(ctx, layout.EntityPK(cid, eid), layout.EventPrefix+"#", layout.SelfHome+layout.EventPrefix+"#")
	if err != nil {
		return nil, err
	}
	evs := make([]timeline.Event, 0, len(raws))
	for _, raw := range raws {
		var it layout.EventItem
		if err := dynamo.UnmarshalItem(raw, &it); err != nil {
			return nil, err
		}
		evs = append(evs, it.Event())
	}
	return evs, nil
}

// hideOwnLinks removes the calendar links of entity eid's events evs (day, recurring and
// reminder links, with their counts), each on condition of the link as read; a lost race
// reads the events again.
func (s *Store) hideOwnLinks(ctx context.Context, cid, eid int64, evs []timeline.Event) error {
	first := true
	return apperr.RetryConflicts(ctx, func() error {
		if !first { // a lost race reads the events again
			var err error
			if evs, err = s.entityEvents(ctx, cid, eid); err != nil {
				return err
			}
		}
		first = false
		if len(evs) == 0 {
			return nil
		}
		keys := make([]layout.ItemKey, len(evs))
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
			var l layout.DayLinkItem
			_ = dynamo.UnmarshalItem(raw, &l)
			ev := evs[i]
			ev.EntityPrivate, ev.Version = l.EntityPrivate, l.Version
			if len(txs) == 0 || txs[len(txs)-1].size()+8 > maxTx {
				txs = append(txs, s.newTx())
			}
			s.linkEvent(&ev, nil)(txs[len(txs)-1])
		}
		return runTxs(ctx, txs)
	})
}

// showOwnLinks links the events of live entity e that have no calendar links, placed by its
// links_private (checked in each transaction with the event's version), unless their
// calendar is gone for good (neither live nor trashed).
func (s *Store) showOwnLinks(ctx context.Context, e *layout.EntityItem) error {
	cid := e.CampaignID
	return apperr.RetryConflicts(ctx, func() error {
		var ent layout.EntityItem
		if err := s.getItem(ctx, layout.CampaignPK(cid), layout.RecordSK(layout.EntityPrefix, e.ID), &ent); err != nil {
			if errors.Is(err, apperr.ErrNotFound) {
				return nil // trashed again: its own cascade hides
			}
			return err
		}
		evs, err := s.entityEvents(ctx, cid, e.ID)
		if err != nil || len(evs) == 0 {
			return err
		}
		var keys []layout.ItemKey
		cals := map[int64]bool{}
		for i := range evs {
			keys = append(keys, reminderHome(&evs[i]))
			if !cals[evs[i].CalendarID] {
				cals[evs[i].CalendarID] = true
				keys = append(keys, layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.CalendarPrefix, evs[i].CalendarID)},
					layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(layout.CalendarPrefix, evs[i].CalendarID)})
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
			if got[layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.CalendarPrefix, calID)}] == nil &&
				got[layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(layout.CalendarPrefix, calID)}] == nil {
				continue // its calendar was purged: the purge of its partition took the links
			}
			ev.EntityPrivate = ent.LinksPrivate
			if len(txs) == 0 || txs[len(txs)-1].size()+10 > maxTx {
				b := s.newTx()
				b.check(s.table.Check("pk", layout.CampaignPK(cid)).Range("sk", layout.RecordSK(layout.EntityPrefix, e.ID)).
					If("attribute_exists(pk) AND 'links_private' = ?", ent.LinksPrivate))
				txs = append(txs, b)
			}
			b := txs[len(txs)-1]
			home := eventSlots(&ev)[0]
			b.check(s.table.Check("pk", home.PK).Range("sk", home.SK).If(ifVersion, ev.Version))
			s.linkEvent(nil, &ev)(b)
		}
		return runTxs(ctx, txs)
	})
}

// hideRelations moves every relation entity eid owns or is the target of (rows: their homes and
// RELIN# pointers in its partition) out of every list:
// each is removed with its copies, pointer and counts and kept whole in eid's partition
// (HIDDEN#RELATION#id), in one transaction on condition of its version (re-read on conflict).
func (s *Store) hideRelations(ctx context.Context, cid, eid int64, rows []partitionRow) error {
	type ref struct{ owner, id int64 }
	var refs []ref
	for _, r := range rows {
		if strings.HasPrefix(r.SK, layout.IncomingPrefix) {
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
				hidden := layout.Marshal(toRelationItem(r))
				k := layout.HiddenRelationKey(cid, eid, r.ID)
				hidden["pk"], hidden["sk"] = layout.AttrS(k.PK), layout.AttrS(k.SK)
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
	var hidden []layout.RelationItem
	err := s.table.Get("pk", layout.EntityPK(cid, eid)).Range("sk", dynamo.BeginsWith, layout.HiddenPrefix+layout.RelationPrefix+"#").Consistent(true).All(ctx, &hidden)
	if err != nil || len(hidden) == 0 {
		return layout.Wrap(err)
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

func (s *Store) showRelation(ctx context.Context, cid, eid int64, it layout.RelationItem) error {
	r := it.AsRelation()
	here := layout.HiddenRelationKey(cid, eid, r.ID)
	other := r.TargetID
	if other == eid {
		other = r.OwnerID
	}
	keys := []layout.ItemKey{{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, r.OwnerID)}, {PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, r.TargetID)},
		{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(layout.EntityPrefix, other)}}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return err
	}
	b := s.newTx()
	b.del(s.table.Delete("pk", here.PK).Range("sk", here.SK).If("attribute_exists(pk)"))
	owner, target := got[keys[0]], got[keys[1]]
	switch {
	case owner != nil && target != nil:
		var o, t layout.EntityItem
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
		k := layout.HiddenRelationKey(cid, other, r.ID)
		moved := layout.Marshal(it)
		moved["pk"], moved["sk"] = layout.AttrS(k.PK), layout.AttrS(k.SK)
		b.need(layout.CampaignPK(cid), layout.TrashedSK(layout.EntityPrefix, other), apperr.ErrConflict)
		b.put(s.table.Put(moved))
	case owner == nil && target == nil:
		return nil // eid itself is trashed again: its cascade hides
	}
	err = b.run(ctx)
	if errors.Is(err, apperr.ErrConflict) {
		var left struct {
			PK string `dynamo:"pk"`
		}
		if s.getItem(ctx, here.PK, here.SK, &left, "pk") != nil {
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
	return apperr.RetryConflicts(ctx, func() error {
		var links []layout.DayLinkItem
		err := s.table.Get("pk", layout.CalendarPK(cid, calID)).Project("pk", "sk", "entity_id", "id").Consistent(true).All(ctx, &links)
		if err != nil {
			return layout.Wrap(err)
		}
		var keys []layout.ItemKey
		for _, l := range links {
			if (strings.HasPrefix(l.SK, layout.DayLinkPrefix) || strings.HasPrefix(l.SK, layout.RecurLinkPrefix)) && l.EntityID != calEntityID {
				for _, sk := range childHomeSKs(layout.EventPrefix, l.ID) {
					keys = append(keys, layout.ItemKey{PK: layout.EntityPK(cid, l.EntityID), SK: sk})
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
		var remKeys []layout.ItemKey
		for _, raw := range items {
			var it layout.EventItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return err
			}
			if it.CalendarID != calID {
				continue
			}
			ev := it.Event()
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
			b.del(s.table.Delete("pk", ref.Ptr.PK).Range("sk", layout.SyncSK(ref.Kind, layout.FormatTime(ref.Updated), ref.Ptr.ID)))
			b.syncGone(ref, now)
			if raw, ok := rems[remKeys[i]]; ok {
				var l layout.DayLinkItem
				_ = dynamo.UnmarshalItem(raw, &l)
				ev.EntityPrivate = l.EntityPrivate
				s.linkEvent(ev, nil)(b)
			}
			hidden := make(dynamo.Item, len(raws[i])+1)
			for k, v := range raws[i] {
				hidden[k] = v
			}
			k := layout.HiddenEventKey(cid, calID, ev.EntityID, ev.ID)
			hidden["pk"], hidden["sk"], hidden["hidden_at"] = layout.AttrS(k.PK), layout.AttrS(k.SK), layout.AttrS(layout.FormatTime(now))
			b.put(s.table.Put(hidden))
		}
		return runTxs(ctx, txs)
	})
}

// hiddenEvent is an event kept by hideCalendarEvents.
type hiddenEvent struct {
	layout.EventItem
	HiddenAt string `dynamo:"hidden_at"`
}

// showCalendarEvents puts back the events hidden in calendar calID's partition: each in its
// entity's lists (updated now, its tombstone removed) and, when its entity is live, in the
// calendar's links, in its own transaction conditional on the entity as read. An event whose
// entity is in the trash goes back unlinked (the entity's restore links it); one whose
// entity is purged goes.
func (s *Store) showCalendarEvents(ctx context.Context, cid, calID int64) error {
	var hidden []hiddenEvent
	err := s.table.Get("pk", layout.CalendarPK(cid, calID)).Range("sk", dynamo.BeginsWith, layout.HiddenPrefix+layout.EventPrefix+"#").Consistent(true).All(ctx, &hidden)
	if err != nil || len(hidden) == 0 {
		return layout.Wrap(err)
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
	ev := h.Event()
	here := layout.HiddenEventKey(cid, calID, ev.EntityID, ev.ID)
	home := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, ev.EntityID)}
	trashed := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(layout.EntityPrefix, ev.EntityID)}
	got, err := s.getItems(ctx, home, trashed)
	if err != nil {
		return err
	}
	b := s.newTx()
	b.del(s.table.Delete("pk", here.PK).Range("sk", here.SK).If("attribute_exists(pk)"))
	if got[home] != nil || got[trashed] != nil {
		old := ev
		s.stampUpdate(&old.Meta, &ev.Meta)
		b.place(layout.Marshal(layout.ToEventItem(&ev)), nil, eventSlots(&ev), 0)
		b.syncMove(nil, eventRef(&ev))
		b.unGone(eventRef(&old), layout.ParseTime(h.HiddenAt))
		if got[home] != nil {
			var e layout.EntityItem
			_ = dynamo.UnmarshalItem(got[home], &e)
			b.check(s.table.Check("pk", home.PK).Range("sk", home.SK).If("attribute_exists(pk) AND 'links_private' = ?", e.LinksPrivate))
			ev.EntityPrivate = e.LinksPrivate
			s.linkEvent(nil, &ev)(b)
		} else {
			b.need(trashed.PK, trashed.SK, apperr.ErrConflict)
		}
	}
	err = b.run(ctx)
	if errors.Is(err, apperr.ErrConflict) {
		var left struct {
			PK string `dynamo:"pk"`
		}
		if s.getItem(ctx, here.PK, here.SK, &left, "pk") != nil {
			return nil // shown by a concurrent cascade
		}
	}
	return err
}

// adoptChildren puts back under record pid of nested kind k the children its trash made roots:
// each link it marked (orphaned_by) whose child is still the root at the version the trash
// left it (no write since) is re-parented, with its parent chain checked as every move's is (no
// cycle, no depth beyond domain.MaxLocationDepth); any other marked link goes.
func (s *Store) adoptChildren(ctx context.Context, k layout.KindSpec, cid, pid int64) error {
	var links []layout.ChildLink
	err := s.table.Get("pk", layout.ChildPK(cid, k.Prefix, pid)).Range("sk", dynamo.BeginsWith, layout.ChildLinkPrefix).Consistent(true).All(ctx, &links)
	if err != nil {
		return layout.Wrap(err)
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
func (s *Store) adoptChild(ctx context.Context, k layout.KindSpec, cid, pid int64, link layout.ChildLink) error {
	drop := func() error {
		return layout.Wrap(s.table.Delete("pk", link.PK).Range("sk", link.SK).If("'orphaned_by' = ?", link.OrphanedBy).Run(ctx))
	}
	home := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Prefix, link.ID)}
	items, err := s.getItems(ctx, home)
	if err != nil {
		return err
	}
	raw, ok := items[home]
	if !ok {
		return ignoreCondition(drop())
	}
	var rec struct {
		layout.MetaAttrs
		layout.OwnerAttrs
	}
	if err := dynamo.UnmarshalItem(raw, &rec); err != nil {
		return err
	}
	if rec.Version != link.ChildVersion || parentOf(raw, k) != nil {
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
	prevM, o := rec.Meta(), rec.Owner()
	nextM := prevM
	s.stampUpdate(&prevM, &nextM)
	next := make(dynamo.Item, len(raw))
	for name, v := range raw {
		next[name] = v
	}
	for name, v := range layout.Marshal(layout.ToMetaAttrs(home.PK, home.SK, nextM)) {
		next[name] = v
	}
	next[k.ParentAttr] = &types.AttributeValueMemberN{Value: formatInt(pid)}
	next[layout.ParentHidden] = &types.AttributeValueMemberBOOL{Value: private}
	b := s.newTx()
	checks(b)
	b.place(next, k.Slots(&prevM, &o), k.Slots(&nextM, &o), prevM.Version)
	b.syncMove(ownerRef(k.Prefix, &prevM, &o), ownerRef(k.Prefix, &nextM, &o))
	b.mirror(layout.Marshal(layout.EntityItemOf(k, &nextM, &o)), layout.EntitySlots(&prevM, &o), layout.EntitySlots(&nextM, &o))
	b.syncMove(layout.EntityRef(&prevM, &o), layout.EntityRef(&nextM, &o))
	for _, l := range layout.LinkKeys(k, cid, pid, link.ID) { // the link, unmarked, and its related=1 copy
		b.put(s.table.Put(layout.ChildLink{PK: l.PK, SK: l.SK, ID: link.ID, IsPrivate: o.IsPrivate}))
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
	keys := make([]layout.ItemKey, len(ids))
	for i, id := range ids {
		keys[i] = layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.TrashedSK(layout.EntityPrefix, id)}
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	now := s.now().Unix()
	out := map[int64]*domain.Entity{}
	for _, raw := range got {
		var t layout.TrashedEntity
		if err := dynamo.UnmarshalItem(raw, &t); err != nil {
			return nil, err
		}
		if t.TTL > now {
			out[t.ID] = t.Trashed()
		}
	}
	return out, nil
}

// ListTrash reads one page of campaign cid's trashed entities not yet expired, by entity id:
// the whole TRASHED#ENTITY# range is read (bounded by TrashHistory of deletions), filtered on
// ttl, counted and windowed in one pass.
func (s *Store) ListTrash(ctx context.Context, cid int64, p domain.PageRequest) (domain.Page[domain.Entity], error) {
	l := listSpec{ranges: []layout.ListRange{{PK: layout.CampaignPK(cid), Prefix: layout.TrashedSK(layout.EntityPrefix, 0)[:len(layout.TrashedPrefix)+len(layout.EntityPrefix)+1]}}}
	l.where("'ttl' > ?", s.now().Unix())
	return listPage(ctx, s, l, p, func(t layout.TrashedEntity) domain.Entity { return *t.Trashed() })
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
	var t layout.TrashedEntity
	err := s.getItem(ctx, layout.CampaignPK(cid), layout.TrashedSK(layout.EntityPrefix, eid), &t)
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
	k, ok := layout.OwnerKindOf(t.Type)
	if !ok {
		return domain.ErrNotTrashed
	}
	var raw dynamo.Item
	if err := s.getItem(ctx, layout.CampaignPK(cid), layout.TrashedSK(k.Prefix, t.ChildID), &raw); err != nil {
		if errors.Is(err, apperr.ErrNotFound) {
			return domain.ErrNotTrashed
		}
		return err
	}
	var th trashedHome
	if err := dynamo.UnmarshalItem(raw, &th); err != nil {
		return err
	}
	m, o := th.Meta(), th.Owner()
	gone := m // the record as its tombstones know it
	m.Version, m.UpdatedAt, m.UpdatedBy = m.Version+1, now, uid
	item := make(dynamo.Item, len(raw))
	for name, v := range raw {
		item[name] = v
	}
	for _, name := range []string{"deleted_at", "deleted_by", "ttl"} {
		delete(item, name)
	}
	item["sk"] = layout.AttrS(layout.RecordSK(k.Prefix, m.ID))
	item["version"] = &types.AttributeValueMemberN{Value: formatInt(m.Version)}
	item["updated_at"] = layout.AttrS(layout.FormatTime(m.UpdatedAt))
	item["updated_by"] = &types.AttributeValueMemberN{Value: formatInt(uid)}
	var checks []func(*txBuilder)
	if k == layout.MapKind {
		c, err := s.restoreMapLocation(ctx, cid, item)
		if err != nil {
			return err
		}
		checks = append(checks, c)
	}
	if parent := parentOf(item, k); parent != nil {
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
	at := layout.ParseTime(t.DeletedAt)
	marker := layout.PendingMarker{PK: layout.PendingPK(cid), SK: layout.PendingSK(now, cid, layout.CascadeKind, eid), CID: cid, Kind: layout.CascadeKind, ID: eid}
	b := s.newTx()
	if b.needs == nil {
		b.needs = map[int]error{}
	}
	b.needs[b.n] = domain.ErrNotTrashed // the trash as read, unexpired: a purge or another restore got there first
	b.del(s.table.Delete("pk", layout.CampaignPK(cid)).Range("sk", layout.TrashedSK(layout.EntityPrefix, eid)).
		If("'deleted_at' = ? AND 'ttl' > ?", t.DeletedAt, now.Unix()))
	// The trashed home as read: its referenced records' cascades revise it (refs.go).
	b.del(s.table.Delete("pk", layout.CampaignPK(cid)).Range("sk", layout.TrashedSK(k.Prefix, m.ID)).If("'version' = ?", m.Version-1))
	b.place(item, nil, k.Slots(&m, &o), 0)
	b.place(layout.Marshal(layout.EntityItemOf(k, &m, &o)), nil, layout.EntitySlots(&m, &o), 0)
	b.syncMove(nil, ownerRef(k.Prefix, &m, &o))
	b.syncMove(nil, layout.EntityRef(&m, &o))
	b.unGone(ownerRef(k.Prefix, &gone, &o), at)
	b.unGone(layout.EntityRef(&gone, &o), at)
	b.setName(cid, eid, k.EntityType, m.ID, o.IsPrivate, o.Name)
	q := layout.PurgeKey(cid, at.Add(TrashHistory), eid)
	b.del(s.table.Delete("pk", q.PK).Range("sk", q.SK))
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
func (s *Store) restoreParent(ctx context.Context, k layout.KindSpec, cid, id, parent int64, private bool, item dynamo.Item) (func(*txBuilder), error) {
	chain, err := s.ancestry(ctx, k, cid, parent, domain.MaxLocationDepth)
	if err != nil {
		return nil, err
	}
	if len(chain) == 0 || len(chain) >= domain.MaxLocationDepth {
		delete(item, k.ParentAttr)
		return nil, nil
	}
	checks, parentPrivate, err := s.parentChecks(ctx, k, cid, parent, chain, domain.MaxLocationDepth)
	if err != nil {
		return nil, err
	}
	item[layout.ParentHidden] = &types.AttributeValueMemberBOOL{Value: parentPrivate}
	return func(b *txBuilder) {
		checks(b)
		s.linkParent(k, cid, id, nil, &parent, false, private)(b)
	}, nil
}

// restoreMapLocation makes a restored map's write depend on its location as read now: a live
// one is held with its privacy (which places the public copy), a gone one is cleared.
func (s *Store) restoreMapLocation(ctx context.Context, cid int64, item dynamo.Item) (func(*txBuilder), error) {
	var it layout.MapItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil || it.LocationID == nil {
		return nil, err
	}
	chain, err := s.ancestry(ctx, layout.LocationKind, cid, *it.LocationID, 1)
	if err != nil {
		return nil, err
	}
	if len(chain) == 0 {
		delete(item, "location_id")
		return nil, nil
	}
	item[layout.LocationHidden] = &types.AttributeValueMemberBOOL{Value: chain[0].IsPrivate}
	m := domain.Map{Meta: domain.Meta{CampaignID: cid}, LocationID: it.LocationID, LocationPrivate: chain[0].IsPrivate}
	check := locationCheck(&m)
	return func(b *txBuilder) { check(b); b.linkLocation(cid, it.ID, nil, it.LocationID) }, nil
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }

// reconcileTrash runs the hiding cascade of every trashed entity of the table (a filtered Scan:
// the migration's, never a request's).
func (s *Store) reconcileTrash(ctx context.Context) error {
	var trashed []layout.TrashedEntity
	err := s.table.Scan().Filter("begins_with('sk', ?)", layout.TrashedSK(layout.EntityPrefix, 0)[:len(layout.TrashedPrefix)+len(layout.EntityPrefix)+1]).
		Consistent(true).All(ctx, &trashed)
	if err != nil {
		return layout.Wrap(err)
	}
	for i := range trashed {
		if err := s.hideRefs(ctx, &trashed[i].EntityItem, nil); err != nil {
			return err
		}
	}
	return nil
}

// restoredTags keeps, of a restored record's tags, those whose tag still lives (a tag deleted
// while the record was in the trash did not reach it: its links were gone), in o and in its
// home item, and returns the transaction part that puts their member items back, each checked.
func (s *Store) restoredTags(ctx context.Context, k layout.KindSpec, m *domain.Meta, o *domain.Owner, item dynamo.Item) (func(*txBuilder), error) {
	if len(o.Tags) == 0 {
		return nil, nil
	}
	keys := make([]layout.ItemKey, len(o.Tags))
	for i, t := range o.Tags {
		keys[i] = layout.ItemKey{PK: layout.CampaignPK(m.CampaignID), SK: layout.RecordSK(layout.TagPrefix, t)}
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

// kindCascade is what a kind's own mechanism adds to the trash (hide), restore (show) and purge
// of its records, beside what every owner gets (its entity's links, relations and markers
// hidden; a nested kind's children made roots, adopted back, and its partition deleted).
// Declared next to the mechanism (declareCascade), so that trash and purge name no kind.
type kindCascade struct {
	hide, show func(ctx context.Context, s *Store, e *layout.EntityItem) error
	// purge runs before a nested kind's partition is deleted (its links live there).
	purge func(ctx context.Context, s *Store, t layout.Tombstone) error
	// purgesEntity: purge deletes the record's entity partition itself (in its own order),
	// instead of the purge's concurrent delete of it.
	purgesEntity bool
}

var kindCascades = map[string]kindCascade{}

// declareCascade registers kind prefix's cascade (at init, by the file of its mechanism).
func declareCascade(prefix string, c kindCascade) { kindCascades[prefix] = c }
