package store

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Calendar links (layout 3). Every entity event has, in its calendar's partition and written
// in the event's own transaction:
//   - a day link: DAY#<date>#id for a one-off event of at most timeline.DayLinkMaxLength days
//     (found by its start date), RECUR#id otherwise (read whole by every day view). It carries
//     what the day view shows and checks, and entity_private.
//   - reminder links: the event whole (reminder shape) under REM, placed in the audience ranges
//     an event is placed in (layout.ChildSlots) as if it were private when its entity's links are
//     (links_private), and counted by COUNT#REM: the reminders list is an ordinary list page.
//
// A link's placement follows its entity's privacy. The entity item keeps links_private, the
// privacy its links are placed by: equal to is_private except while a privacy change re-places
// them (updateOwnerPrivacy). An event write places its links by the links_private it read, on
// condition that it still holds (a create checks the entity; an update or delete the event's
// REM home link, which carries entity_private).

// reminderHome is the one reminder link every event has (REM#id, or SELF#REM#id for a `self`
// event): it carries entity_private, on which updates and deletes are conditional.
func reminderHome(ev *timeline.Event) layout.ItemKey {
	sls := layout.ChildSlots(layout.ReminderKind, layout.CalendarPK(ev.CampaignID, ev.CalendarID), ev.ID, ev.CreatedBy, ev.Visibility, true)
	return layout.ItemKey{PK: sls[0].PK, SK: sls[0].SK}
}

// linkEvent moves an event's calendar links from prev to next (either nil): its day link and
// its reminder links, with their counts. The REM home link prev had must still carry the
// version and entity privacy prev was read with: a privacy change re-placing the links, or a
// concurrent write, makes the write retry on fresh data.
func (s *Store) linkEvent(prev, next *timeline.Event) func(*txBuilder) {
	return func(b *txBuilder) {
		var prevSlots, nextSlots []layout.Slot
		if prev != nil {
			prevSlots = layout.ReminderSlots(prev)
		}
		if next != nil {
			nextSlots = layout.ReminderSlots(next)
		}
		cond := map[layout.ItemKey]bool{}
		if prev != nil {
			cond[reminderHome(prev)] = true
		}
		has := func(sls []layout.Slot, k layout.ItemKey) bool {
			for _, sl := range sls {
				if sl.PK == k.PK && sl.SK == k.SK {
					return true
				}
			}
			return false
		}
		ifPrev := func(k layout.ItemKey) (string, []any) {
			if !cond[k] {
				return "", nil
			}
			return "'version' = ? AND 'entity_private' = ?", []any{prev.Version, prev.EntityPrivate}
		}
		if next != nil {
			item := layout.ReminderItem(next)
			for _, sl := range nextSlots {
				put := s.table.Put(layout.CopyItem(item, sl))
				if c, args := ifPrev(layout.ItemKey{PK: sl.PK, SK: sl.SK}); c != "" {
					put = put.If(c, args...)
					delete(cond, layout.ItemKey{PK: sl.PK, SK: sl.SK})
				}
				b.put(put)
				if !has(prevSlots, layout.ItemKey{PK: sl.PK, SK: sl.SK}) {
					b.count(sl, 1)
				}
			}
		}
		for _, sl := range prevSlots {
			if has(nextSlots, layout.ItemKey{PK: sl.PK, SK: sl.SK}) {
				continue
			}
			d := s.table.Delete("pk", sl.PK).Range("sk", sl.SK)
			if c, args := ifPrev(layout.ItemKey{PK: sl.PK, SK: sl.SK}); c != "" {
				d = d.If(c, args...)
			}
			b.del(d)
			b.count(sl, -1)
		}
		var prevDay, nextDay layout.ItemKey
		if prev != nil {
			prevDay = layout.EventDayKey(prev)
		}
		if next != nil {
			nextDay = layout.EventDayKey(next)
			b.put(s.table.Put(layout.ToDayLink(next)))
		}
		if prev != nil && prevDay != nextDay {
			b.del(s.table.Delete("pk", prevDay.PK).Range("sk", prevDay.SK))
		}
	}
}

// checkEntityLinks makes a new event's write conditional on its entity existing with the link
// privacy it was read with (ErrNotFound otherwise: CreateEvent re-reads and retries).
func (s *Store) checkEntityLinks(ev *timeline.Event) func(*txBuilder) {
	return func(b *txBuilder) {
		b.check(s.table.Check("pk", layout.CampaignPK(ev.CampaignID)).Range("sk", layout.RecordSK(layout.EntityPrefix, ev.EntityID)).
			If("attribute_exists(pk) AND 'links_private' = ?", ev.EntityPrivate))
	}
}

// DayLinkItem is an event's day link in its calendar's partition (what a day view reads).
type DayLinkItem = layout.DayLinkItem

// ReminderKind is the row of an event's reminder links in its calendar's partition, placed
// by the event's visibility and privacy and its entity's links privacy.
var ReminderKind = layout.MustKind(layout.ReminderKind)

// RecurLinks is the sort key prefix of calendar calID's RECUR# links (every recurring or long
// event, read whole by every day view), in its partition.
func RecurLinks(cid, calID int64) (Partition, string) {
	return Partition{pk: layout.CalendarPK(cid, calID)}, layout.RecurLinkPrefix
}

// DayLinks are the bounds of the DAY# links of the one-off events of calendar calID starting
// from first to last (both included), in its partition.
func DayLinks(cid, calID int64, first, last calengine.Date) (p Partition, lo, hi string) {
	return Partition{pk: layout.CalendarPK(cid, calID)}, layout.DayKey(first.Year, first.Month, first.Day), layout.DayKey(last.Year, last.Month, last.Day) + "~"
}

// The entity's link re-placing (relink): when a location's or calendar's privacy changes, the
// links of its entity's events move. Order (see updateOwner):
//  1. a marker in the sweeper's shard, and links_private set to where the links go, in one
//     transaction conditional on the record's version: from here event writes place new
//     links as links_private says (a writer that read the old value fails its condition);
//  2. relinkEvents re-places every event's links (batched transactions, each conditional on
//     the REM home link's version and entity_private);
//  3. for a record made public, the record's own transaction comes first and step 1 after it
//     (its links stay private until then: hiding late never shows, showing late only hides);
//  4. reconcileLinks: links_private := is_private, links re-placed where they differ, and
//     the marker goes. A failure leaves the marker: the sweeper (SweepDeletes) reconciles the
//     links with the entity's current privacy.

// setLinksPrivate is step 1 (with the marker m, when not nil): links_private becomes private,
// on condition that the record (pk, sk) still has version v (0: no condition) and, when
// showing, that the entity is public.
func (s *Store) setLinksPrivate(ctx context.Context, cid, eid int64, private bool, m *layout.PendingMarker, recPK, recSK string, v int64) error {
	b := s.newTx()
	u := s.table.Update("pk", layout.CampaignPK(cid)).Range("sk", layout.RecordSK(layout.EntityPrefix, eid)).Set("links_private", private)
	if private {
		u = u.If("attribute_exists(pk)")
	} else {
		u = u.If("'is_private' = ?", false)
	}
	b.update(u)
	if v != 0 {
		b.check(s.table.Check("pk", recPK).Range("sk", recSK).If(ifVersion, v))
	}
	if m != nil {
		b.put(s.table.Put(*m))
	}
	return b.run(ctx)
}

// entityEventLinks reads every event of entity eid (its two home ranges, two concurrent
// Queries) and the REM home link of each (batched by 100), by key.
func (s *Store) entityEventLinks(ctx context.Context, cid, eid int64) ([]timeline.Event, map[layout.ItemKey]dynamo.Item, error) {
	var homes, selfHomes []layout.EventItem
	pk := layout.EntityPK(cid, eid)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return layout.Wrap(s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, layout.EventPrefix+"#").Consistent(true).All(gctx, &homes))
	})
	g.Go(func() error {
		return layout.Wrap(s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, layout.SelfHome+layout.EventPrefix+"#").Consistent(true).All(gctx, &selfHomes))
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	evs := events(append(homes, selfHomes...))
	keys := make([]layout.ItemKey, len(evs))
	for i := range evs {
		keys[i] = reminderHome(&evs[i])
	}
	links, err := s.getItems(ctx, keys...)
	return evs, links, err
}

// relinkEvents re-places the links of every event of entity eid as private says (step 2):
// the events are read from the entity's partition (one Query) and their REM home links in
// batches; each event whose links are placed otherwise is rewritten, at most 100 items a
// transaction, 8 at once. A lost race re-reads.
func (s *Store) relinkEvents(ctx context.Context, cid, eid int64, private bool) error {
	return apperr.RetryConflicts(ctx, func() error {
		evs, links, err := s.entityEventLinks(ctx, cid, eid)
		if err != nil {
			return err
		}
		var txs []*txBuilder
		for i := range evs {
			ev := &evs[i]
			raw, ok := links[reminderHome(ev)]
			var was layout.DayLinkItem
			if ok {
				_ = dynamo.UnmarshalItem(raw, &was)
			}
			if ok && was.EntityPrivate == private && was.Version == ev.Version {
				continue
			}
			if len(txs) == 0 || txs[len(txs)-1].size()+13 > maxTx {
				txs = append(txs, s.newTx())
			}
			next := *ev
			next.EntityPrivate = private
			if ok {
				prev := *ev
				prev.EntityPrivate, prev.Version = was.EntityPrivate, was.Version
				s.linkEvent(&prev, &next)(txs[len(txs)-1])
			} else { // written before its links (a table being migrated): link it
				s.linkEvent(nil, &next)(txs[len(txs)-1])
			}
		}
		return runTxs(ctx, txs)
	})
}

// reconcileLinks brings entity eid's links in line with its current privacy, then removes the
// marker (if any): the end of every re-placing, and what the sweeper runs for one left behind.
func (s *Store) reconcileLinks(ctx context.Context, cid, eid int64, markerSK string) error {
	var e layout.EntityItem
	err := s.getItem(ctx, layout.CampaignPK(cid), layout.RecordSK(layout.EntityPrefix, eid), &e, "pk", "sk", "is_private", "links_private", "type", "child_id")
	switch {
	case errors.Is(err, apperr.ErrNotFound): // deleted: its delete removes the events and links
	case err != nil:
		return err
	default:
		if e.LinksPrivate != e.IsPrivate {
			err := s.setLinksPrivate(ctx, cid, eid, e.IsPrivate, nil, "", "", 0)
			if err != nil && !errors.Is(err, apperr.ErrConflict) { // a conflict: its privacy changed again
				return err
			}
		}
		if err := s.relinkEvents(ctx, cid, eid, e.IsPrivate); err != nil {
			return err
		}
		if err := s.relinkRefs(ctx, cid, eid, e.Type, e.ChildID, e.IsPrivate); err != nil {
			return err
		}
	}
	if markerSK == "" {
		return nil
	}
	return layout.Wrap(s.table.Delete("pk", layout.PendingPK(cid)).Range("sk", markerSK).Run(ctx))
}

// updateOwnerPrivacy is updateOwner for a change of is_private: the record's transaction
// (write) and the re-placing of its entity's links, hiding before the record turns private and
// showing after it turns public. A failure once something is written leaves the marker for
// the sweeper; the links are then under-exposed, never over-exposed.
func (s *Store) updateOwnerPrivacy(ctx context.Context, k layout.KindSpec, prevM *domain.Meta, prev, next *domain.Owner, write func() error) error {
	cid, eid := prevM.CampaignID, prev.EntityID
	// write keeps the request's context: the Idempotency-Key's record goes with the record's
	// transaction, never with the steps around it.
	ctx = domain.WithKeyedWrite(ctx, nil)
	m := layout.PendingMarker{PK: layout.PendingPK(cid), SK: layout.RelinkMarkerSK(s.now(), cid, eid), CID: cid, Kind: layout.RelinkKind, ID: eid}
	home := layout.OwnerSlots(k.Prefix, cid, prevM.ID, prev.IsPrivate)[0]
	if err := s.setLinksPrivate(ctx, cid, eid, true, &m, home.PK, home.SK, prevM.Version); err != nil {
		return err // nothing written
	}
	var err error
	if next.IsPrivate {
		if err = s.relinkEvents(ctx, cid, eid, true); err == nil {
			err = s.relinkRefs(ctx, cid, eid, k.EntityType, prevM.ID, true)
		}
		if err == nil {
			err = write()
		}
	} else {
		err = write()
	}
	// Whatever happened, the links end as the entity now is (and the marker goes); a failure
	// here is the sweeper's.
	if rerr := s.reconcileLinks(ctx, cid, eid, m.SK); rerr != nil {
		slog.WarnContext(ctx, "links of a privacy change pending: the sweeper re-places them",
			"campaign_id", cid, "entity_id", eid, "err", rerr.Error())
	}
	return err
}

// deleteEntityPartition removes entity eid's partition: first every event with its calendar
// links and counts, wherever its calendar is, in batched transactions conditional on the
// version read (a lost race re-reads), then the rest (notes, copies, counters). One Query
// reads the partition.
func (s *Store) deleteEntityPartition(ctx context.Context, cid, eid int64) error {
	// The markers linked to it go first (Kanka's cascade): their pointers are in the partition,
	// as are the links of the references to it, which its referrers drop.
	if err := s.deleteEntityMarkers(ctx, cid, eid); err != nil {
		return err
	}
	if err := s.dropReferences(ctx, cid, eid); err != nil {
		return err
	}
	return apperr.RetryConflicts(ctx, func() error {
		var all []dynamo.Item
		if err := s.table.Get("pk", layout.EntityPK(cid, eid)).Consistent(true).All(ctx, &all); err != nil {
			return layout.Wrap(err)
		}
		// Its relations and the ones pointing at it (found in its partition) go first.
		rows := make([]partitionRow, len(all))
		for i, raw := range all {
			_ = dynamo.UnmarshalItem(raw, &rows[i])
		}
		if err := s.deleteEntityRelations(ctx, cid, eid, rows); err != nil {
			return err
		}
		var evs []timeline.Event
		var rest []dynamo.Keyed
		for _, raw := range all {
			k := layout.KeyOfItem(raw)
			var id int64
			_ = dynamo.Unmarshal(raw["id"], &id)
			if strings.TrimPrefix(k.SK, layout.SelfHome) != layout.RecordSK(layout.EventPrefix, id) {
				rest = append(rest, dynamo.Keys{k.PK, k.SK})
				if strings.TrimPrefix(k.SK, layout.SelfHome) == layout.RecordSK(layout.NotePrefix, id) { // its related copy, its mentions' reverse items
					r := layout.RelatedSlot(cid, eid, layout.NotePrefix, id)
					rest = append(rest, dynamo.Keys{r.PK, r.SK})
					var entry string
					_ = dynamo.Unmarshal(raw["entry"], &entry)
					for _, t := range layout.TargetsOf(entry, eid) {
						m := layout.MentionKey(cid, t, eid, id)
						rest = append(rest, dynamo.Keys{m.PK, m.SK})
					}
				}
				continue
			}
			var it layout.EventItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return err
			}
			evs = append(evs, it.Event())
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
			ev := &evs[i]
			if len(txs) == 0 || txs[len(txs)-1].size()+13 > maxTx {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			b.remove(eventSlots(ev), ev.Version)
			if raw, ok := links[keys[i]]; ok {
				var was layout.DayLinkItem
				_ = dynamo.UnmarshalItem(raw, &was)
				ev.EntityPrivate = was.EntityPrivate
				s.linkEvent(ev, nil)(b)
			}
		}
		if err := runTxs(ctx, txs); err != nil {
			return err
		}
		return s.batchDelete(ctx, rest) // event copies included: idempotent deletes
	})
}

// deleteCalendarEvents deletes the entity events of other entities that use calendar calID,
// found by their day links in its partition and read consistently (the calendar's own entity's
// events go with its entity): each with its copies and counts, in transactions of at most 100
// items run concurrently, conditional on the version read. Then the partition goes, with the
// links and their counters.
func (s *Store) deleteCalendarEvents(ctx context.Context, cid, calID, calEntityID int64) error {
	return apperr.RetryConflicts(ctx, func() error {
		var links []layout.DayLinkItem // every item of the calendar's partition, keys only
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
		items, err := s.getItems(ctx, keys...)
		if err != nil {
			return err
		}
		var txs []*txBuilder
		for _, raw := range items {
			var it layout.EventItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return err
			}
			if it.CalendarID != calID {
				continue
			}
			// An event writes at most 3 items, its related copy, 2 counters, its sync pointer
			// and its tombstone.
			if len(txs) == 0 || txs[len(txs)-1].size()+10 > maxTx {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			ev := it.Event()
			b.remove(eventSlots(&ev), it.Version)
			b.syncMove(eventRef(&ev), nil) // its entity lives on: its list learns of the delete
		}
		if err := runTxs(ctx, txs); err != nil {
			return err
		}
		all := make([]dynamo.Keyed, len(links)) // the links and their counters
		for i, l := range links {
			all[i] = dynamo.Keys{l.PK, l.SK}
		}
		return s.batchDelete(ctx, all)
	})
}

// EventItem is an event's item: the kernel's calendar links, trash and audit read it too.
type EventItem = layout.EventItem

// EventItemOf is event ev's item.
func EventItemOf(ev *timeline.Event) EventItem { return layout.ToEventItem(ev) }

// EventLinks is the step of an event write that moves its calendar links from prev to next
// (either nil), on condition that the REM home link prev had still carries prev's version and
// entity privacy.
func EventLinks(prev, next *timeline.Event) TxStep {
	return func(b *txBuilder) { b.s.linkEvent(prev, next)(b) }
}

// EntityLinksHeld is the step of an event's create that holds its entity as read: existing,
// its links placed by ev.EntityPrivate (a privacy change in between fails the write).
func EntityLinksHeld(ev *timeline.Event) TxStep {
	return func(b *txBuilder) { b.s.checkEntityLinks(ev)(b) }
}

// LinksPrivate reads where entity eid's links are placed (links_private), strongly consistent.
func (s *Store) LinksPrivate(ctx context.Context, cid, eid int64) (bool, error) {
	var e layout.EntityItem
	err := s.getItem(ctx, layout.CampaignPK(cid), layout.RecordSK(layout.EntityPrefix, eid), &e, "pk", "sk", "links_private")
	return e.LinksPrivate, err
}

// A calendar's trash hides the events of other entities that use it (put back by its restore);
// its purge deletes its own entity's events first (some are linked in its partition, whose
// counters their removal decrements), then the others' and the partition.
func init() {
	declareCascade(layout.CalendarPrefix, kindCascade{
		hide: func(ctx context.Context, s *Store, e *layout.EntityItem) error {
			return s.hideCalendarEvents(ctx, e.CampaignID, e.ChildID, e.ID)
		},
		show: func(ctx context.Context, s *Store, e *layout.EntityItem) error {
			return s.showCalendarEvents(ctx, e.CampaignID, e.ChildID)
		},
		purge: func(ctx context.Context, s *Store, t layout.Tombstone) error {
			if err := s.deleteEntityPartition(ctx, t.CID, t.EntityID); err != nil {
				return err
			}
			return s.deleteCalendarEvents(ctx, t.CID, t.ID, t.EntityID)
		},
		purgesEntity: true,
	})
}
