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
// all of them are read in one batch, and not at all when nothing is mentioned.
func (r *Request) ParseEntries(st EntityBatchReader, entries []string) ([]string, error) {
	entities, err := st.GetEntities(r.Context(), r.Access.CampaignID, domain.MentionedIDs(entries...))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = domain.RenderMentions(e, entities, r.Access)
	}
	return out, nil
}

// Parsed is Kanka's entry_parsed of a record that owns an entity: null when the entry is empty.
func Parsed(parsed string) *string {
	if parsed == "" {
		return nil
	}
	return &parsed
}
