// Package eventstore is the entity events family's storage: events (Kanka's reminders) on the
// kernel (package store), which keeps them as children of their entity placed by visibility,
// and admins-only when private: home EVENT#id (SELF#EVENT#id for a `self` event) in the
// entity's partition, the audiences' copies, the creator's own range and the related=1 copy
// beside it. Each event's calendar links (its day link and reminder links in its calendar's
// partition) are the kernel's, written in the event's own transaction and placed by its
// entity's links privacy.
package eventstore

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"
	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store"
	"golang.org/x/sync/errgroup"
)

var events = store.VisibleChildKind[timeline.Event, store.EventItem]{
	Kind: store.EventKind, Sequence: "event", Item: store.EventItemOf, Record: store.EventItem.Event, Created: store.EntityLinksHeld,
	Of: func(ev *timeline.Event) store.VisibleChild {
		return store.VisibleChild{Meta: &ev.Meta, ParentID: ev.EntityID, Visibility: ev.Visibility, IsPrivate: ev.IsPrivate}
	},
}

// Events is the family's storage over the kernel and the calendars family's, whose reads the
// family uses (an event's calendar, the calendar links).
type Events struct{ *calstore.Calendars }

// New wraps the kernel.
func New(st *store.Store) *Events { return &Events{calstore.New(st)} }

// GetEventAndEntity reads an event and its entity in one round trip; ErrNotFound unless both
// exist. The event carries where its entity's links are placed (EntityPrivate), for its write.
func (s *Events) GetEventAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *timeline.Event, error) {
	e, ev, err := events.GetWithEntity(ctx, s.Store, cid, eid, id)
	if err == nil {
		ev.EntityPrivate = e.LinksPrivate
	}
	return e, ev, err
}

// ListEvents reads one page of an entity's events that the caller may see: its visibility
// scope, and is_private for admins only.
func (s *Events) ListEvents(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.Event], error) {
	return events.List(ctx, s.Store, cid, eid, a, f, p)
}

// MaxLifeEvents bounds the birth, founding and death events ages are computed from (the first
// of each per calendar, by id): one bounded page, whatever the entity's events; an entity with
// more life events than this has ages on the calendars of its first ones (DESIGN 5, ages).
const MaxLifeEvents = 100

// LifeEvents reads the first MaxLifeEvents birth, founding and death events (by id) of an
// entity that the caller may see.
func (s *Events) LifeEvents(ctx context.Context, cid, eid int64, a domain.Access) ([]timeline.Event, error) {
	page, err := events.List(ctx, s.Store, cid, eid, a, domain.Filter{}, domain.PageRequest{Page: 1, Limit: MaxLifeEvents},
		store.Where{Cond: "'type_id' IN (?, ?, ?)", Args: []any{timeline.EventTypeBirth, timeline.EventTypeFounded, timeline.EventTypeDeath}})
	return page.Items, err
}

// calendarHeld makes a write conditional on the event's calendar still existing: a calendar
// gone (or being deleted) is the body's calendar_id that no longer names one, a 422.
func calendarHeld(ev *timeline.Event) store.TxStep {
	return store.Step(func(t store.Tx) {
		t.Need(store.RecordKey(ev.CampaignID, store.CalendarKind.Prefix, ev.CalendarID), apperr.Invalid("calendar_id", "The selected calendar id is invalid."))
	})
}

// CreateEvent stores a new event with its calendar links, on condition that its entity and
// calendar still exist (ErrNotFound otherwise) and that the entity's links are still placed as
// read (ev.EntityPrivate): a privacy change in between re-reads the entity and retries.
func (s *Events) CreateEvent(ctx context.Context, ev *timeline.Event) error {
	relinked := false
	return apperr.Retry(ctx, func(error) bool { return relinked }, func() error {
		relinked = false
		err := events.Create(ctx, s.Store, ev, calendarHeld(ev), store.EventLinks(nil, ev))
		if !errors.Is(err, apperr.ErrNotFound) {
			return err
		}
		private, rerr := s.LinksPrivate(ctx, ev.CampaignID, ev.EntityID)
		if rerr != nil || private == ev.EntityPrivate {
			return err // gone, or unchanged: the failure was not its links' privacy
		}
		ev.EntityPrivate, relinked = private, true
		return err
	})
}

// UpdateEvent writes next over prev if nobody wrote since prev was read, on condition that its
// entity and its calendar (the new one after a move) exist; its links move with it.
func (s *Events) UpdateEvent(ctx context.Context, prev, next *timeline.Event) error {
	return events.Update(ctx, s.Store, prev, next, calendarHeld(next), store.EventLinks(prev, next))
}

// DeleteEvent deletes an event (its copies, links and counts) if nobody wrote since it was read.
func (s *Events) DeleteEvent(ctx context.Context, ev *timeline.Event) error {
	return events.Delete(ctx, s.Store, ev, store.EventLinks(ev, nil))
}

// CreateImportedEvents stores the reminders an import read (evs, all on one calendar and its
// entity, just created): their ids in one round trip, then one transaction each (the event,
// its copies, calendar links and sync pointer, on condition that the entity and the calendar
// still exist), at most a few at once: 1 + len(evs) round trips, bounded by the import's limit
// on events. A transaction's failure is the error; the events written before it stay (each is
// whole), and the caller reports which were not.
func (s *Events) CreateImportedEvents(ctx context.Context, evs []*timeline.Event) (written int, err error) {
	return events.CreateMany(ctx, s.Store, evs, func(ev *timeline.Event) []store.TxStep {
		return []store.TxStep{calendarHeld(ev), store.EventLinks(nil, ev)}
	})
}

// DayEvents reads the events on calendar calID that a day view of [first, last] may show: every
// RECUR# link and the DAY# links of the one-off events starting from lookBack (the first day
// less DayLookBack days) to last, in two concurrent Queries of the kernel's calendar links.
// The caller filters them by what the reader may see (entity_private is on each).
func (s *Events) DayEvents(ctx context.Context, cid, calID int64, lookBack, last calengine.Date) ([]timeline.Event, error) {
	var recur, days []store.DayLinkItem
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		p, prefix := store.RecurLinks(cid, calID)
		recur, err = store.QueryPrefix[store.DayLinkItem](gctx, s.Store, p, prefix)
		return err
	})
	g.Go(func() (err error) {
		p, lo, hi := store.DayLinks(cid, calID, lookBack, last)
		days, err = store.QueryBetween[store.DayLinkItem](gctx, s.Store, p.PK(), lo, hi)
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]timeline.Event, 0, len(recur)+len(days))
	for _, it := range append(recur, days...) {
		out = append(out, it.Event())
	}
	return out, nil
}

// ListReminders reads one page of the reminders on calendar calID that the reader may see
// (the event's privacy and visibility, and its entity's, are the reminder links' placement):
// a list page like every other, by a cursor of event ids, with an exact total. A filter reads
// the reader's ranges of this calendar whole (bounded by the calendar's reminders).
func (s *Events) ListReminders(ctx context.Context, cid, calID int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.Event], error) {
	return store.ListVisible(ctx, s.Store, store.ReminderKind, store.PartitionOf(cid, store.CalendarKind.Prefix, calID), a, f, p, store.EventItem.Event)
}

// The reads ahead of the family's routes.
var (
	ReadEvent     = store.ChildRead(store.EventKind) // and its entity
	ReadEventList = store.ChildListRead(store.EventKind)
)

func init() {
	store.DeclareRelated(store.EventKind, func(item dynamo.Item, owner int64, out *timeline.Related) error {
		var it store.EventItem
		if err := store.UnmarshalItem(item, &it); err != nil {
			return err
		}
		out.Events[owner] = append(out.Events[owner], it.Event())
		return nil
	})
}
