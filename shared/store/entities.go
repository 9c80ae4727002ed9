package store

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// GetEntity reads one entity of the campaign; ErrNotFound when there is none.
func (s *Store) GetEntity(ctx context.Context, cid, eid int64) (*domain.Entity, error) {
	e, err := getRecord(ctx, s, layout.CampaignPK(cid), layout.RecordSK(layout.EntityPrefix, eid), layout.EntityItem.Entity)
	if err != nil {
		return nil, err
	}
	return *e, nil
}

// GetEntities reads the campaign's entities with the given ids in batches (one round trip for
// up to 100); missing ones are absent from the map.
func (s *Store) GetEntities(ctx context.Context, cid int64, ids []int64) (map[int64]*domain.Entity, error) {
	return getRecords(ctx, s, cid, layout.EntityPrefix, ids, false, func(it layout.EntityItem) (int64, *domain.Entity) { return it.ID, it.Entity() })
}
