package httpapi

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// EntityBatchReader reads several entities of a campaign in one round trip (the store does).
type EntityBatchReader interface {
	GetEntities(ctx context.Context, cid int64, ids []int64) (map[int64]*domain.Entity, error)
}

// ParseEntries renders the entry_parsed of each entry for the caller. The entities mentioned by
// all of them are read in one batch (at most domain.MaxMentions per entry), and not at all when
// nothing is mentioned.
func (r *Request) ParseEntries(st EntityBatchReader, entries []string) ([]string, error) {
	var ids []int64
	for _, e := range entries {
		m := domain.MentionedIDs(e)
		ids = append(ids, m[:min(len(m), domain.MaxMentions)]...) // an entry stored before the bound
	}
	entities, err := st.GetEntities(r.Context(), r.Access.CampaignID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = domain.RenderMentions(e, entities, r.Access)
	}
	return out, nil
}

// ParseOwners fills the entry_parsed of rendered calendars and locations, null when the entry is
// empty (as Kanka answers), with the mentions of all of them resolved by one batched read.
func (r *Request) ParseOwners(st EntityBatchReader, owners ...*OwnerJSON) error {
	entries := make([]string, len(owners))
	for i, o := range owners {
		entries[i] = o.Entry
	}
	parsed, err := r.ParseEntries(st, entries)
	if err != nil {
		return err
	}
	for i, o := range owners {
		o.EntryParsed = nil
		if parsed[i] != "" {
			o.EntryParsed = &parsed[i]
		}
	}
	return nil
}

// OwnerPage is Page for records that own an entity: their entry_parsed is filled too.
func OwnerPage[T, J any](r *Request, st EntityBatchReader, res domain.Page[T], page domain.PageRequest, render func(*T) J, owner func(*J) *OwnerJSON) (Reply, error) {
	out := make([]J, len(res.Items))
	owners := make([]*OwnerJSON, len(res.Items))
	for i := range res.Items {
		out[i] = render(&res.Items[i])
		owners[i] = owner(&out[i])
	}
	if err := r.ParseOwners(st, owners...); err != nil {
		return Reply{}, err
	}
	return Many(out, res.Total, res.Next, res.Cursors, page), nil
}

// OwnerRender renders one calendar or location with its entry_parsed.
func OwnerRender[J any](r *Request, st EntityBatchReader, j J, owner func(*J) *OwnerJSON) (any, error) {
	if err := r.ParseOwners(st, owner(&j)); err != nil {
		return nil, err
	}
	return j, nil
}
