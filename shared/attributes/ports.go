package attributes

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is the storage the attributes family uses (attrstore serves it).
type Store interface {
	httpapi.GoneReader
	GetAttributes(ctx context.Context, cid, eid int64) (*domain.Entity, domain.AttributeSet, error)
	NewAttributeIDs(ctx context.Context, cid int64, n int) (int64, error)
	SaveAttributes(ctx context.Context, cid, eid int64, prev domain.AttributeSet, all []domain.Attribute) error
}
