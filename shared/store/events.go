package store

import (
	"context"
	"errors"
	"sync"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

func events(items []layout.EventItem) []timeline.Event {
	out := make([]timeline.Event, len(items))
	for i, it := range items {
		out[i] = it.Event()
	}
	return out
}

// GetEventAndEntity reads an event and its entity in one round trip; ErrNotFound unless both
// exist. The event carries where its entity's links are placed (EntityPrivate), for its write.
func (s *Store) GetEventAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *timeline.Event, error) {
	e, ev, err := getWithEntity(ctx, s, cid, eid, layout.EventPrefix, id, layout.EventItem.Event)
	if err == nil {
		ev.EntityPrivate = e.LinksPrivate
	}
	return e, ev, err
}

// eventList is an entity's events the caller may see: its visibility scope, and is_private for
// admins only.
func eventList(cid, eid int64, a domain.Access, f domain.Filter) listSpec {
	l := listSpec{ranges: childRanges(layout.EventPrefix, layout.EntityPK(cid, eid), a)}
	l.filter(f)
	return l
}

// ListEvents reads one page of an entity's events that the caller may see.
func (s *Store) ListEvents(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.Event], error) {
	return listPage(ctx, s, eventList(cid, eid, a, f), p, layout.EventItem.Event)
}

// LifeEvents reads the first MaxLifeEvents birth, founding and death events (by id) of an
// entity that the caller may see.
func (s *Store) LifeEvents(ctx context.Context, cid, eid int64, a domain.Access) ([]timeline.Event, error) {
	l := eventList(cid, eid, a, domain.Filter{})
	l.where("'type_id' IN (?, ?, ?)", timeline.EventTypeBirth, timeline.EventTypeFounded, timeline.EventTypeDeath)
	page, err := listPage(ctx, s, l, domain.PageRequest{Page: 1, Limit: MaxLifeEvents}, layout.EventItem.Event)
	return page.Items, err
}

// MaxLifeEvents bounds the birth, founding and death events ages are computed from (the first
// of each per calendar, by id): one bounded page, whatever the entity's events; an entity with
// more life events than this has ages on the calendars of its first ones (DESIGN 5, ages).
const MaxLifeEvents = 100

// checkCalendar makes a write conditional on the event's calendar still existing: a calendar
// gone (or being deleted) is the body's calendar_id that no longer names one, a 422.
func (s *Store) checkCalendar(ev *timeline.Event) func(*txBuilder) {
	return s.exists(layout.CampaignPK(ev.CampaignID), layout.RecordSK(layout.CalendarPrefix, ev.CalendarID),
		apperr.Invalid("calendar_id", "The selected calendar id is invalid."))
}

// CreateEvent stores a new event with its calendar links, on condition that its entity and
// calendar still exist (ErrNotFound otherwise) and that the entity's links are still placed as
// read (ev.EntityPrivate): a privacy change in between re-reads the entity and retries.
func (s *Store) CreateEvent(ctx context.Context, ev *timeline.Event) error {
	relinked := false
	return apperr.Retry(ctx, func(error) bool { return relinked }, func() error {
		relinked = false
		err := s.createChild(ctx, &ev.Meta, "event", func() any { return layout.ToEventItem(ev) }, func() []layout.Slot { return eventSlots(ev) },
			s.checkEntityLinks(ev), s.checkCalendar(ev), s.linkEvent(nil, ev), synced(nil, func() *layout.SyncRef { return eventRef(ev) }))
		if !errors.Is(err, apperr.ErrNotFound) {
			return err
		}
		var e layout.EntityItem
		if rerr := s.getItem(ctx, layout.CampaignPK(ev.CampaignID), layout.RecordSK(layout.EntityPrefix, ev.EntityID), &e, "pk", "sk", "links_private"); rerr != nil || e.LinksPrivate == ev.EntityPrivate {
			return err // gone, or unchanged: the failure was not its links' privacy
		}
		ev.EntityPrivate, relinked = e.LinksPrivate, true
		return err
	})
}

// UpdateEvent writes next over prev if nobody wrote since prev was read, on condition that its
// entity and its calendar (the new one after a move) exist; its links move with it.
func (s *Store) UpdateEvent(ctx context.Context, prev, next *timeline.Event) error {
	return s.updateChild(ctx, &prev.Meta, &next.Meta, func() any { return layout.ToEventItem(next) },
		func() []layout.Slot { return eventSlots(prev) }, func() []layout.Slot { return eventSlots(next) },
		s.exists(layout.CampaignPK(next.CampaignID), layout.RecordSK(layout.EntityPrefix, next.EntityID), apperr.ErrNotFound), s.checkCalendar(next),
		s.linkEvent(prev, next), synced(func() *layout.SyncRef { return eventRef(prev) }, func() *layout.SyncRef { return eventRef(next) }))
}

// DeleteEvent deletes an event (its copies, links and counts) if nobody wrote since it was read.
func (s *Store) DeleteEvent(ctx context.Context, ev *timeline.Event) error {
	return s.deleteChild(ctx, &ev.Meta, eventSlots(ev), s.linkEvent(ev, nil), synced(func() *layout.SyncRef { return eventRef(ev) }, nil))
}

func eventSlots(ev *timeline.Event) []layout.Slot {
	return append(layout.ChildSlots(layout.EventPrefix, layout.EntityPK(ev.CampaignID, ev.EntityID), ev.ID, ev.CreatedBy, ev.Visibility, ev.IsPrivate),
		layout.RelatedSlot(ev.CampaignID, ev.EntityID, layout.EventPrefix, ev.ID))
}

// CreateImportedEvents stores the reminders an import read (evs, all on one calendar and its
// entity, just created): their ids in one round trip, then one transaction each (the event,
// its copies, calendar links and sync pointer, on condition that the entity and the calendar
// still exist), at most writeConcurrency at once: 1 + len(evs) round trips, bounded by the
// import's limit on events. A transaction's failure is the error; the events written before it
// stay (each is whole), and the caller reports which were not.
func (s *Store) CreateImportedEvents(ctx context.Context, evs []*timeline.Event) (written int, err error) {
	if len(evs) == 0 {
		return 0, nil
	}
	var raw dynamo.Item
	if err := s.table.Update("pk", layout.CampaignPK(evs[0].CampaignID)).Range("sk", layout.SeqSK).Add("event", len(evs)).Value(ctx, &raw); err != nil {
		return 0, layout.Wrap(err)
	}
	var last int64
	if err := dynamo.Unmarshal(raw["event"], &last); err != nil {
		return 0, err
	}
	if last-int64(len(evs))+1 <= 0 || last > domain.MaxID {
		return 0, errors.New("store: id sequence event exhausted")
	}
	txs := make([]*txBuilder, len(evs))
	for i, ev := range evs {
		s.stampNew(&ev.Meta, last-int64(len(evs))+1+int64(i))
		b := s.newTx()
		for _, c := range []func(*txBuilder){s.checkEntityLinks(ev), s.checkCalendar(ev), s.linkEvent(nil, ev),
			synced(nil, func() *layout.SyncRef { return eventRef(ev) })} {
			c(b)
		}
		b.place(layout.Marshal(layout.ToEventItem(ev)), nil, eventSlots(ev), 0)
		txs[i] = b
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writeConcurrency)
	for _, b := range txs {
		g.Go(func() error {
			if err := conflictIsNotFound(b.run(gctx)); err != nil {
				return err
			}
			mu.Lock()
			written++
			mu.Unlock()
			return nil
		})
	}
	return written, g.Wait()
}

func init() {
	DeclareRelated(EventKind, func(item dynamo.Item, owner int64, out *timeline.Related) error {
		var it layout.EventItem
		if err := unmarshalItem(item, &it); err != nil {
			return err
		}
		out.Events[owner] = append(out.Events[owner], it.Event())
		return nil
	})
}
