package store

import (
	"context"

	"github.com/guregu/dynamo/v2"
)

// LocationsPrivacy says whether each of the campaign's locations ids is private: what a caller
// who is not an admin needs to know about the parents on a page. It reads the location
// counter's set of private ids (read ahead with the campaign access on location routes, so
// usually no round trip of its own).
func (s *Store) LocationsPrivacy(ctx context.Context, cid int64, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	k := itemKey{campaignPK(cid), counterSK(locationPrefix)}
	items, err := s.peekItems(ctx, k)
	if err != nil {
		return nil, err
	}
	var private []int64
	_ = dynamo.Unmarshal(items[k][privateIDs], &private)
	set := map[int64]bool{}
	for _, id := range private {
		set[id] = true
	}
	for _, id := range ids {
		out[id] = set[id]
	}
	return out, nil
}
