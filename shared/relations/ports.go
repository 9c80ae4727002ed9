package relations

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is the storage the relations family uses (relstore serves it).
type Store interface {
	httpapi.EntityReader
	httpapi.EntityBatchReader
	httpapi.GoneReader
	GetRelationAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *domain.Relation, error)
	ListRelations(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Relation], error)
	ListCampaignRelations(ctx context.Context, cid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Relation], error)
	CreateRelation(ctx context.Context, r *domain.Relation) error
	UpdateRelation(ctx context.Context, prev, next *domain.Relation) error
	DeleteRelation(ctx context.Context, r *domain.Relation) error
}
