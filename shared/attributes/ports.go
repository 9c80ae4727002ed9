package attributes

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Store is the storage the attributes family uses (package store serves it).
type Store interface {
	GetAttributes(ctx context.Context, cid, eid int64) (*domain.Entity, []domain.Attribute, int64, error)
	NewAttributeIDs(ctx context.Context, cid int64, n int) (int64, error)
	SaveAttributes(ctx context.Context, cid, eid, version int64, all []domain.Attribute) error
}
