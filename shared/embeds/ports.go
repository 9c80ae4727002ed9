package embeds

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is what ?related=1 reads (the kernel and each family's storage serve it).
type Store interface {
	httpapi.EntityBatchReader
	LocationLinks(ctx context.Context, cid int64, ids []int64) (map[int64]domain.AncestorLink, error)
	AttributesOf(ctx context.Context, cid int64, eids []int64) (map[int64][]domain.Attribute, error)
	RelatedOf(ctx context.Context, cid int64, eids, lids []int64) (timeline.Related, error)
}
