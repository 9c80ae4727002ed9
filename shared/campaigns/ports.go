package campaigns

import (
	"context"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is the storage the campaign routes use (campstore serves it).
type Store interface {
	httpapi.EntityBatchReader
	GetUser(ctx context.Context, uid int64) (domain.User, error)
	ListUserCampaigns(ctx context.Context, uid int64, since *time.Time, p domain.PageRequest) (domain.Page[domain.Campaign], error)
	ListMembers(ctx context.Context, cid int64, since *time.Time, p domain.PageRequest) (domain.Page[domain.Membership], error)
	GetMember(ctx context.Context, cid, uid int64) (*domain.Membership, error)
	FirstMembers(ctx context.Context, cid int64, n int) ([]domain.Membership, error)
	MemberCount(ctx context.Context, cid int64) (int, error)
}
