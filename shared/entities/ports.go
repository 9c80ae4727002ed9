package entities

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is the storage the entities endpoint uses (the kernel serves it).
type Store interface {
	httpapi.GoneReader
	httpapi.EntityReader
	httpapi.EntityBatchReader
	ListEntities(ctx context.Context, cid int64, f domain.EntityFilter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Entity], error)
	Search(ctx context.Context, cid int64, term string, admin bool, p domain.PageRequest) (domain.Page[domain.Entity], error)
	Mentions(ctx context.Context, e *domain.Entity, a domain.Access, incoming bool) ([]domain.MentionRow, error)
	// The trash (recovery.go).
	ListTrash(ctx context.Context, cid int64, p domain.PageRequest) (domain.Page[domain.Entity], error)
	GetTrashed(ctx context.Context, cid int64, ids []int64) (map[int64]*domain.Entity, error)
	RestoreEntity(ctx context.Context, cid, eid, uid int64) error
}
