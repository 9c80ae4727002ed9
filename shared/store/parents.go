package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"
)

// LocationsPrivacy reads whether each of the campaign's locations ids is private, in one
// BatchGetItem of projected items per 100 ids: what a caller who is not an admin needs to know
// about the parents on a page. Missing locations are absent from the map.
func (s *Store) LocationsPrivacy(ctx context.Context, cid int64, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	seen := map[int64]bool{}
	var keys []dynamo.Keyed
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			keys = append(keys, dynamo.Keys{campaignPK(cid), recordSK(locationPrefix, id)})
		}
	}
	if len(keys) == 0 {
		return out, nil
	}
	var items []struct {
		ID        int64 `dynamo:"id"`
		IsPrivate bool  `dynamo:"is_private"`
	}
	err := s.table.Batch("pk", "sk").Get(keys...).Project("id", "is_private").Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, wrap(err)
	}
	for _, it := range items {
		out[it.ID] = it.IsPrivate
	}
	return out, nil
}
