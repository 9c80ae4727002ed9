package locations

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is the storage the locations family uses (locstore serves it).
type Store interface {
	httpapi.GoneReader
	embeds.Store
	httpapi.EntityReader
	GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error)
	ListLocations(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Location], error)
	CreateLocation(ctx context.Context, l *domain.Location) error
	UpdateLocation(ctx context.Context, prev, next *domain.Location) error
	DeleteLocation(ctx context.Context, l *domain.Location) error
	ResumeLocationDelete(ctx context.Context, cid, id int64) (bool, error)
	LocationAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error)
	GetMapPointAndLocation(ctx context.Context, cid, lid, id int64) (*domain.Location, *domain.MapPoint, error)
	ListMapPoints(ctx context.Context, cid, lid int64, f domain.Filter, p domain.PageRequest) (domain.Page[domain.MapPoint], error)
	CreateMapPoint(ctx context.Context, p *domain.MapPoint) error
	UpdateMapPoint(ctx context.Context, prev, next *domain.MapPoint) error
	DeleteMapPoint(ctx context.Context, p *domain.MapPoint) error
}
