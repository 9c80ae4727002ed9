package entityevents

import (
	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventwire"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// remindersOn lists the reminders on calendar {id} that the caller may see (the calendar, the
// event and its entity all visible), ordered by id, paginated like every list: a cursor of the
// last event id, an exact total. The calendar and the counts are read with the access, then
// the reader's ranges of the calendar's reminder links (placed by the event's and its
// entity's privacy and visibility): two round trips, limit+1 items per range. A filter reads
// the reader's ranges of this calendar whole.
func (h handlers) remindersOn() httpapi.List[timeline.Event, *timeline.Calendar, eventwire.Reminder] {
	return httpapi.List[timeline.Event, *timeline.Calendar, eventwire.Reminder]{
		Parent: func(r *httpapi.Request) (*timeline.Calendar, error) {
			id, err := r.PathID("id")
			if err != nil {
				return nil, err
			}
			cal, err := h.st.GetCalendar(r.Context(), r.Access.CampaignID, id)
			if err == nil && !r.Access.CanSee(cal.IsPrivate) {
				err = apperr.ErrNotFound
			}
			return cal, err
		},
		Filters: domain.FilterChildren,
		Read: func(r *httpapi.Request, cal *timeline.Calendar, f domain.Filter, page domain.PageRequest) (domain.Page[timeline.Event], error) {
			return h.st.ListReminders(r.Context(), r.Access.CampaignID, cal.ID, r.Access, f, page)
		},
		Render: eventwire.RenderReminder,
		Ahead:  httpapi.ReadAhead(store.ReadReminderList, "id", ""),
	}
}
