package store

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// Calendar links (layout 3). Every entity event has, in its calendar's partition and written
// in the event's own transaction:
//   - a day link: DAY#<date>#id for a one-off event of at most timeline.DayLinkMaxLength days
//     (found by its start date), RECUR#id otherwise (read whole by every day view). It carries
//     what the day view shows and checks, and entity_private.
//   - reminder links: the event whole (reminder shape) under REM, placed in the audience ranges
//     an event is placed in (childSlots) as if it were private when its entity's links are
//     (links_private), and counted by COUNT#REM: the reminders list is an ordinary list page.
//
// A link's placement follows its entity's privacy. The entity item keeps links_private, the
// privacy its links are placed by: equal to is_private except while a privacy change re-places
// them (updateOwnerPrivacy). An event write places its links by the links_private it read, on
// condition that it still holds (a create checks the entity; an update or delete the event's
// REM home link, which carries entity_private).

// dayLinkItem is an event as the day view needs it.
type dayLinkItem struct {
	PK             string `dynamo:"pk"`
	SK             string `dynamo:"sk"`
	ID             int64  `dynamo:"id"`
	EntityID       int64  `dynamo:"entity_id"`
	CampaignID     int64  `dynamo:"campaign_id"`
	CalendarID     int64  `dynamo:"calendar_id"`
	Name           string `dynamo:"name"`
	Year           int64  `dynamo:"year"`
	Month          int    `dynamo:"month"`
	Day            int    `dynamo:"day"`
	Length         int    `dynamo:"length"`
	Periodicity    string `dynamo:"recurring_periodicity,omitempty"`
	RecurringUntil *int64 `dynamo:"recurring_until,omitempty"`
	Recurrence     string `dynamo:"recurrence,omitempty"`
	Hour           *int   `dynamo:"hour,omitempty"`
	Minute         *int   `dynamo:"minute,omitempty"`
	Colour         string `dynamo:"colour,omitempty"`
	IsPrivate      bool   `dynamo:"is_private"`
	Visibility     string `dynamo:"visibility"`
	CreatedBy      int64  `dynamo:"created_by"`
	Version        int64  `dynamo:"version"`
	EntityPrivate  bool   `dynamo:"entity_private"`
}

func toDayLink(ev *timeline.Event) dayLinkItem {
	k := eventDayKey(ev)
	ei := toEventItem(ev)
	return dayLinkItem{Recurrence: ei.Recurrence, Hour: ei.Hour, Minute: ei.Minute, PK: k.pk, SK: k.sk, ID: ev.ID, EntityID: ev.EntityID, CampaignID: ev.CampaignID,
		CalendarID: ev.CalendarID, Name: ev.Name, Year: ev.Date.Year, Month: ev.Date.Month, Day: ev.Date.Day,
		Length: ev.Length, Periodicity: ev.Recurrence.Periodicity(), RecurringUntil: ev.RecurringUntil,
		Colour: ev.Colour, IsPrivate: ev.IsPrivate, Visibility: string(ev.Visibility), CreatedBy: ev.CreatedBy,
		Version: ev.Version, EntityPrivate: ev.EntityPrivate}
}

func eventDayKey(ev *timeline.Event) itemKey {
	return dayLinkKey(ev.CampaignID, ev.CalendarID, ev.ID, !ev.FoundByDate(), ev.Date.Year, ev.Date.Month, ev.Date.Day)
}

// event is the link as a day view's event (no comment, type or write history).
func (it dayLinkItem) event() timeline.Event {
	ei := eventItem{metaAttrs: metaAttrs{ID: it.ID, CampaignID: it.CampaignID, CreatedBy: it.CreatedBy, Version: it.Version},
		EntityID: it.EntityID, CalendarID: it.CalendarID, Name: it.Name, Year: it.Year, Month: it.Month, Day: it.Day,
		Length: it.Length, Periodicity: it.Periodicity, RecurringUntil: it.RecurringUntil, Colour: it.Colour,
		IsPrivate: it.IsPrivate, Visibility: it.Visibility, Recurrence: it.Recurrence, Hour: it.Hour, Minute: it.Minute}
	ev := ei.event()
	ev.EntityPrivate = it.EntityPrivate
	return ev
}

// reminderSlots place an event's reminder links in its calendar's partition. None is a record
// home: their writes are conditional only where linkEvent says.
func reminderSlots(ev *timeline.Event) []slot {
	sls := childSlots(reminderKind, calendarPK(ev.CampaignID, ev.CalendarID), ev.ID, ev.CreatedBy, ev.Visibility, ev.IsPrivate || ev.EntityPrivate)
	for i := range sls {
		sls[i].home = false
	}
	return sls
}

// reminderHome is the one reminder link every event has (REM#id, or SELF#REM#id for a `self`
// event): it carries entity_private, on which updates and deletes are conditional.
func reminderHome(ev *timeline.Event) itemKey {
	sls := childSlots(reminderKind, calendarPK(ev.CampaignID, ev.CalendarID), ev.ID, ev.CreatedBy, ev.Visibility, true)
	return itemKey{sls[0].pk, sls[0].sk}
}

// reminderItem is the event whole, for its reminder links.
func reminderItem(ev *timeline.Event) dynamo.Item {
	it := marshal(toEventItem(ev))
	it["entity_private"] = &types.AttributeValueMemberBOOL{Value: ev.EntityPrivate}
	return it
}

// linkEvent moves an event's calendar links from prev to next (either nil): its day link and
// its reminder links, with their counts. The REM home link prev had must still carry the
// version and entity privacy prev was read with: a privacy change re-placing the links, or a
// concurrent write, makes the write retry on fresh data.
func (s *Store) linkEvent(prev, next *timeline.Event) func(*txBuilder) {
	return func(b *txBuilder) {
		var prevSlots, nextSlots []slot
		if prev != nil {
			prevSlots = reminderSlots(prev)
		}
		if next != nil {
			nextSlots = reminderSlots(next)
		}
		cond := map[itemKey]bool{}
		if prev != nil {
			cond[reminderHome(prev)] = true
		}
		has := func(sls []slot, k itemKey) bool {
			for _, sl := range sls {
				if sl.pk == k.pk && sl.sk == k.sk {
					return true
				}
			}
			return false
		}
		ifPrev := func(k itemKey) (string, []any) {
			if !cond[k] {
				return "", nil
			}
			return "'version' = ? AND 'entity_private' = ?", []any{prev.Version, prev.EntityPrivate}
		}
		if next != nil {
			item := reminderItem(next)
			for _, sl := range nextSlots {
				put := s.table.Put(copyItem(item, sl))
				if c, args := ifPrev(itemKey{sl.pk, sl.sk}); c != "" {
					put = put.If(c, args...)
					delete(cond, itemKey{sl.pk, sl.sk})
				}
				b.put(put)
				if !has(prevSlots, itemKey{sl.pk, sl.sk}) {
					b.count(sl, 1)
				}
			}
		}
		for _, sl := range prevSlots {
			if has(nextSlots, itemKey{sl.pk, sl.sk}) {
				continue
			}
			d := s.table.Delete("pk", sl.pk).Range("sk", sl.sk)
			if c, args := ifPrev(itemKey{sl.pk, sl.sk}); c != "" {
				d = d.If(c, args...)
			}
			b.del(d)
			b.count(sl, -1)
		}
		var prevDay, nextDay itemKey
		if prev != nil {
			prevDay = eventDayKey(prev)
		}
		if next != nil {
			nextDay = eventDayKey(next)
			b.put(s.table.Put(toDayLink(next)))
		}
		if prev != nil && prevDay != nextDay {
			b.del(s.table.Delete("pk", prevDay.pk).Range("sk", prevDay.sk))
		}
	}
}

// checkEntityLinks makes a new event's write conditional on its entity existing with the link
// privacy it was read with (ErrNotFound otherwise: CreateEvent re-reads and retries).
func (s *Store) checkEntityLinks(ev *timeline.Event) func(*txBuilder) {
	return func(b *txBuilder) {
		b.check(s.table.Check("pk", campaignPK(ev.CampaignID)).Range("sk", recordSK(entityPrefix, ev.EntityID)).
			If("attribute_exists(pk) AND 'links_private' = ?", ev.EntityPrivate))
	}
}

// DayEvents reads the events on calendar calID that a day view of [first, last] may show: every
// RECUR# link and the DAY# links of the one-off events starting from lookBack (the first day
// less DayLookBack days) to last, in two concurrent Queries. The caller filters them by what
// the reader may see (entity_private is on each).
func (s *Store) DayEvents(ctx context.Context, cid, calID int64, lookBack, last calengine.Date) ([]timeline.Event, error) {
	pk := calendarPK(cid, calID)
	var recur, days []dayLinkItem
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		recur, err = queryAll[dayLinkItem](gctx, s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, recurLinkPrefix).Consistent(true))
		return wrap(err)
	})
	g.Go(func() (err error) {
		lo, hi := dayKey(lookBack.Year, lookBack.Month, lookBack.Day), dayKey(last.Year, last.Month, last.Day)+"~"
		days, err = queryAll[dayLinkItem](gctx, s.table.Get("pk", pk).Range("sk", dynamo.Between, lo, hi).Consistent(true))
		return wrap(err)
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]timeline.Event, 0, len(recur)+len(days))
	for _, it := range append(recur, days...) {
		out = append(out, it.event())
	}
	return out, nil
}

// reminderList is the reminders of a calendar a reader sees: its audience range and its own
// range of the calendar's REM links, disjoint, counted by COUNT#REM.
func reminderList(cid, calID int64, a domain.Access, f domain.Filter) listSpec {
	l := listSpec{ranges: childRanges(reminderKind, calendarPK(cid, calID), a)}
	l.filter(f)
	return l
}

// ListReminders reads one page of the reminders on calendar calID that the reader may see
// (the event's privacy and visibility, and its entity's, are its placement): a list page like
// every other, by a cursor of event ids, with an exact total. A filter reads the reader's
// ranges of this calendar whole (bounded by the calendar's reminders).
func (s *Store) ListReminders(ctx context.Context, cid, calID int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.Event], error) {
	return listPage(ctx, s, reminderList(cid, calID, a, f), p, eventItem.event)
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
func (s *Store) setLinksPrivate(ctx context.Context, cid, eid int64, private bool, m *pendingMarker, recPK, recSK string, v int64) error {
	b := s.newTx()
	u := s.table.Update("pk", campaignPK(cid)).Range("sk", recordSK(entityPrefix, eid)).Set("links_private", private)
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
func (s *Store) entityEventLinks(ctx context.Context, cid, eid int64) ([]timeline.Event, map[itemKey]dynamo.Item, error) {
	var homes, selfHomes []eventItem
	pk := entityPK(cid, eid)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return wrap(s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, eventPrefix+"#").Consistent(true).All(gctx, &homes))
	})
	g.Go(func() error {
		return wrap(s.table.Get("pk", pk).Range("sk", dynamo.BeginsWith, selfHome+eventPrefix+"#").Consistent(true).All(gctx, &selfHomes))
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	evs := events(append(homes, selfHomes...))
	keys := make([]itemKey, len(evs))
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
	for attempt := 0; ; attempt++ {
		evs, links, err := s.entityEventLinks(ctx, cid, eid)
		if err != nil {
			return err
		}
		var txs []*txBuilder
		for i := range evs {
			ev := &evs[i]
			raw, ok := links[reminderHome(ev)]
			var was dayLinkItem
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
		err = runTxs(ctx, txs)
		if err == nil || !errors.Is(err, apperr.ErrConflict) || attempt >= apperr.WriteAttempts {
			return err
		}
	}
}

// reconcileLinks brings entity eid's links in line with its current privacy, then removes the
// marker (if any): the end of every re-placing, and what the sweeper runs for one left behind.
func (s *Store) reconcileLinks(ctx context.Context, cid, eid int64, markerSK string) error {
	var e entityItem
	err := s.getItem(ctx, campaignPK(cid), recordSK(entityPrefix, eid), &e, "pk", "sk", "is_private", "links_private", "type", "child_id")
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
	return wrap(s.table.Delete("pk", pendingPK(cid)).Range("sk", markerSK).Run(ctx))
}

// updateOwnerPrivacy is updateOwner for a change of is_private: the record's transaction
// (write) and the re-placing of its entity's links, hiding before the record turns private and
// showing after it turns public. A failure once something is written leaves the marker for
// the sweeper; the links are then under-exposed, never over-exposed.
func (s *Store) updateOwnerPrivacy(ctx context.Context, k kindSpec, prevM *domain.Meta, prev, next *domain.Owner, write func() error) error {
	cid, eid := prevM.CampaignID, prev.EntityID
	// write keeps the request's context: the Idempotency-Key's record goes with the record's
	// transaction, never with the steps around it.
	ctx = domain.WithKeyedWrite(ctx, nil)
	m := pendingMarker{PK: pendingPK(cid), SK: relinkMarkerSK(s.now(), cid, eid), CID: cid, Kind: relinkKind, ID: eid}
	home := ownerSlots(k.prefix, cid, prevM.ID, prev.IsPrivate)[0]
	if err := s.setLinksPrivate(ctx, cid, eid, true, &m, home.pk, home.sk, prevM.Version); err != nil {
		return err // nothing written
	}
	var err error
	if next.IsPrivate {
		if err = s.relinkEvents(ctx, cid, eid, true); err == nil {
			err = s.relinkRefs(ctx, cid, eid, k.entityType, prevM.ID, true)
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
	// The markers linked to it go first (Kanka's cascade): their pointers are in the partition.
	if err := s.deleteEntityMarkers(ctx, cid, eid); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		var all []dynamo.Item
		if err := s.table.Get("pk", entityPK(cid, eid)).Consistent(true).All(ctx, &all); err != nil {
			return wrap(err)
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
			k := keyOfItem(raw)
			var id int64
			_ = dynamo.Unmarshal(raw["id"], &id)
			if strings.TrimPrefix(k.sk, selfHome) != recordSK(eventPrefix, id) {
				rest = append(rest, dynamo.Keys{k.pk, k.sk})
				if strings.TrimPrefix(k.sk, selfHome) == recordSK(notePrefix, id) { // its related copy, its mentions' reverse items
					r := relatedSlot(cid, eid, notePrefix, id)
					rest = append(rest, dynamo.Keys{r.pk, r.sk})
					var entry string
					_ = dynamo.Unmarshal(raw["entry"], &entry)
					for _, t := range targetsOf(entry, eid) {
						m := mentionKey(cid, t, eid, id)
						rest = append(rest, dynamo.Keys{m.pk, m.sk})
					}
				}
				continue
			}
			var it eventItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return err
			}
			evs = append(evs, it.event())
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
			ev := &evs[i]
			if len(txs) == 0 || txs[len(txs)-1].size()+13 > maxTx {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			b.remove(eventSlots(ev), ev.Version)
			if raw, ok := links[keys[i]]; ok {
				var was dayLinkItem
				_ = dynamo.UnmarshalItem(raw, &was)
				ev.EntityPrivate = was.EntityPrivate
				s.linkEvent(ev, nil)(b)
			}
		}
		err = runTxs(ctx, txs)
		if err == nil {
			return s.batchDelete(ctx, rest) // event copies included: idempotent deletes
		}
		if !errors.Is(err, apperr.ErrConflict) || attempt >= apperr.WriteAttempts {
			return err
		}
	}
}
