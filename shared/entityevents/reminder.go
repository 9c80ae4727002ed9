package entityevents

import (
	"cmp"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventwire"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// onCalendar lists the reminders on calendar {id} that the caller may see (the calendar, the
// event and its entity all visible), ordered by id, paginated like every list. The calendar's
// events are read through the calendar index with their entities in one batch, as the day view
// reads them: the cost grows with the calendar's events, not with the campaign.
func (h handlers) onCalendar(r *httpapi.Request) (httpapi.Reply, error) {
	id, err := r.PathID("id")
	if err != nil {
		return httpapi.Reply{}, err
	}
	f, err := r.Filter(domain.FilterChildren)
	if err != nil {
		return httpapi.Reply{}, err
	}
	var cal *timeline.Calendar
	var evs []timeline.Event
	var ents map[int64]*domain.Entity
	var g errgroup.Group
	g.Go(func() (err error) { cal, err = h.st.GetCalendar(r.Context(), r.Access.CampaignID, id); return err })
	g.Go(func() (err error) {
		evs, ents, err = h.st.EventsOnCalendar(r.Context(), r.Access.CampaignID, id)
		return err
	})
	if err := g.Wait(); err != nil {
		return httpapi.Reply{}, err
	}
	if !r.Access.CanSee(cal.IsPrivate) {
		return httpapi.Reply{}, apperr.ErrNotFound
	}
	visible := evs[:0]
	for _, ev := range evs {
		if r.Access.SeeEntity(ents[ev.EntityID]) == nil && ev.VisibleTo(r.Access) && f.Match(eventFiltered(&ev)) {
			visible = append(visible, ev)
		}
	}
	slices.SortFunc(visible, func(a, b timeline.Event) int { return cmp.Compare(a.ID, b.ID) })
	page := r.Page()
	res := domain.PageOf(visible, page, func(ev *timeline.Event) int64 { return ev.ID })
	return httpapi.Page(res, page, eventwire.RenderReminder), nil
}

// eventFiltered is what Kanka's filters compare of an event.
func eventFiltered(ev *timeline.Event) domain.Filtered {
	return domain.Filtered{Name: ev.Name, IsPrivate: ev.IsPrivate, CreatedBy: ev.CreatedBy, UpdatedBy: ev.UpdatedBy, UpdatedAt: ev.UpdatedAt}
}
