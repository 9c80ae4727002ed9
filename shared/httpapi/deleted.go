package httpapi

import (
	"context"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// GoneReader reads the tombstones of a list (store.ListGone): the page, and the bound used.
type GoneReader interface {
	ListGone(ctx context.Context, cid int64, q domain.GoneQuery, a domain.Access, p domain.PageRequest) (domain.Page[domain.Gone], time.Time, error)
}

// RemovedReader reads what of a list left the reader's view (store.ListRemoved): deletions and
// re-placements out of it, by id, and the bound used. A GoneReader without it answers
// `?removed=1` with its deletions alone.
type RemovedReader interface {
	ListRemoved(ctx context.Context, cid int64, q domain.GoneQuery, a domain.Access) ([]domain.Removal, time.Time, error)
}

// removedRead is a `?removed=1` read's removals, windowed onto its page as it is written
// (Reply.write): those after the cursor's id (after), up to the page's last row.
type removedRead struct {
	items []domain.Removal
	after int64
	since string
}

// removedJSON is one row of a page's `removed`.
type removedJSON struct {
	ID        int64  `json:"id"`
	EntityID  *int64 `json:"entity_id,omitempty"`
	Kind      string `json:"kind"`
	RemovedAt string `json:"removed_at"`
}

// goneJSON is one row of `?deleted=1`.
type goneJSON struct {
	ID        int64  `json:"id"`
	EntityID  *int64 `json:"entity_id,omitempty"`
	DeletedAt string `json:"deleted_at"`
}

// Deletions answers `?deleted=1` on a list (DESIGN 2, "Deletions in sync"): instead of records,
// the list's records the caller could see that were deleted after lastSync (at most
// domain.GoneHistory ago), as rows {id, entity_id (locations, calendars), deleted_at}, paged
// like every list, with meta.deleted_since the bound used. parent is the entity of notes and
// events, the location of map points (0 for campaign lists); the caller has checked that it
// may see it. ok is false when the query does not ask for deletions.
//
// With `?lastSync=T&removed=1` instead, the list answers its rows as usual and, beside them
// (removed), what left the caller's view since T: read here, and written with the page.
func (r *Request) Deletions(st GoneReader, list string, parent int64) (reply Reply, ok bool, err error) {
	rd := domain.NewReader(r.Query())
	v, rm := rd.Bool("deleted"), rd.Bool("removed")
	if err := rd.Err(); err != nil {
		return Reply{}, true, err
	}
	if rm.Present() && rm.Value && !(v.Present() && v.Value) {
		if err := r.readRemoved(st, list, parent); err != nil {
			return Reply{}, true, err
		}
		return Reply{}, false, nil
	}
	if !v.Present() || !v.Value {
		return Reply{}, false, nil
	}
	f, err := r.Filter(domain.FilterSync)
	if err != nil {
		return Reply{}, true, err
	}
	q := domain.GoneQuery{List: list, Parent: parent}
	if f.UpdatedAfter != nil {
		q.Since = *f.UpdatedAfter
	}
	r.untrimmed() // tombstones, not the route's records
	page, err := r.Page()
	if err != nil {
		return Reply{}, true, err
	}
	res, bound, err := st.ListGone(r.Context(), r.Access.CampaignID, q, r.Access, page)
	if err != nil {
		return Reply{}, true, err
	}
	rows := make([]goneJSON, len(res.Items))
	for i, g := range res.Items {
		rows[i] = goneJSON{ID: g.ID, DeletedAt: domain.FormatTime(g.DeletedAt)}
		if g.EntityID != 0 {
			rows[i].EntityID = &g.EntityID
		}
	}
	reply = Many(rows, res.Total, res.Next, res.Cursors, page)
	since := domain.FormatTime(bound)
	reply.list.since = &since
	return reply, true, nil
}

// readRemoved reads a `?removed=1` list's removals into r, for its page (the family then reads
// its rows). lastSync is needed, and must be within domain.GoneHistory (older is a
// 410: the tombstones that would tell are gone, so the client reads the list in full again);
// a page after the first is read by the cursor its links carry, which bounds its removals.
func (r *Request) readRemoved(st GoneReader, list string, parent int64) error {
	f, err := r.Filter(domain.FilterSync)
	if err != nil {
		return err
	}
	if f.UpdatedAfter == nil {
		return apperr.Invalid("removed", "The removed parameter needs a lastSync.")
	}
	if f.UpdatedAfter.Before(r.now.Add(-domain.GoneHistory)) {
		return apperr.Resync("lastSync", "The lastSync is older than the 30 days of deletions kept: sync this list in full, without lastSync.")
	}
	page, err := r.Page()
	if err != nil {
		return err
	}
	after, cursor := domain.DecodeCursor(page.Cursor)
	if page.Page > 1 && !cursor {
		return apperr.Invalid("page", "With removed, a page after the first is read by the cursor of links.next.")
	}
	q := domain.GoneQuery{List: list, Parent: parent, Since: *f.UpdatedAfter}
	var items []domain.Removal
	var bound time.Time
	if rr, ok := st.(RemovedReader); ok {
		items, bound, err = rr.ListRemoved(r.Context(), r.Access.CampaignID, q, r.Access)
	} else {
		var res domain.Page[domain.Gone]
		res, bound, err = st.ListGone(r.Context(), r.Access.CampaignID, q, r.Access, domain.PageRequest{Page: 1, Limit: domain.MaxGoneRead + 1})
		for _, g := range res.Items {
			items = append(items, domain.Removal{ID: g.ID, EntityID: g.EntityID, At: g.DeletedAt})
		}
	}
	if err != nil {
		return err
	}
	r.removed = &removedRead{items: items, after: after, since: domain.FormatTime(bound)}
	return nil
}
