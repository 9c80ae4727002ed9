package related

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is what ?related=1 reads (package store serves it).
type Store interface {
	httpapi.EntityBatchReader
	VisibleNotesAndEvents(cid, eid int64, a domain.Access) []func(ctx context.Context) ([]domain.Note, []timeline.Event, error)
	// ChildLocationIDs: the public ones only when hidePrivate (their links carry their privacy).
	ChildLocationIDs(ctx context.Context, cid, lid int64, hidePrivate bool) ([]int64, error)
	LocationLinks(ctx context.Context, cid int64, ids []int64) (map[int64]domain.AncestorLink, error)
	AttributesOf(ctx context.Context, cid int64, eids []int64) (map[int64][]domain.Attribute, error)
	RelatedOf(ctx context.Context, cid int64, eids, lids []int64) (timeline.Related, error)
}
