package httpapi

import (
	"context"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// GoneReader reads the tombstones of a list (store.ListGone): the page, and the bound used.
type GoneReader interface {
	ListGone(ctx context.Context, cid int64, q domain.GoneQuery, a domain.Access, p domain.PageRequest) (domain.Page[domain.Gone], time.Time, error)
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
func (r *Request) Deletions(st GoneReader, list string, parent int64) (reply Reply, ok bool, err error) {
	rd := domain.NewReader(r.Query())
	v := rd.Bool("deleted")
	if err := rd.Err(); err != nil {
		return Reply{}, true, err
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
