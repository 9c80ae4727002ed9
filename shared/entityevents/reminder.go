package entityevents

import (
	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventwire"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// onCalendar lists the reminders on calendar {id} that the caller may see (the calendar, the
// event and its entity all visible), ordered by id, paginated like every list: a cursor of the
// last event id, an exact total. The calendar and the counts are read with the access, then
// the reader's ranges of the calendar's reminder links (placed by the event's and its
// entity's privacy and visibility): two round trips, limit+1 items per range. A filter reads
// the reader's ranges of this calendar whole.
func (h handlers) onCalendar(r *httpapi.Request) (httpapi.Reply, error) {
	id, err := r.PathID("id")
	if err != nil {
		return httpapi.Reply{}, err
	}
	f, err := r.Filter(domain.FilterChildren)
	if err != nil {
		return httpapi.Reply{}, err
	}
	cal, err := h.st.GetCalendar(r.Context(), r.Access.CampaignID, id)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if !r.Access.CanSee(cal.IsPrivate) {
		return httpapi.Reply{}, apperr.ErrNotFound
	}
	page := r.Page()
	res, err := h.st.ListReminders(r.Context(), r.Access.CampaignID, id, r.Access, f, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Page(res, page, eventwire.RenderReminder), nil
}
