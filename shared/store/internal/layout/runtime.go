package layout

import (
	"context"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Gate is the argument of store.(*Store).Runtime: only packages that may import this one (the
// store and its operations code, by Go's internal rule) can make one, so no family can reach
// the steps below, which take and give keys.
type Gate struct{ _ struct{} }

// Runtime is what the operations code (store/ops) reuses of the store: its table and clock,
// and the steps the migration and the audit share with the store's writes, so that the two
// cannot drift (a pending delete is finished, a trash reconciled, links and images checked
// exactly as the writes do).
type Runtime interface {
	Table() dynamo.Table
	Now() time.Time
	GetItem(ctx context.Context, pk, sk string, out any, project ...string) error
	GetItems(ctx context.Context, keys ...ItemKey) (map[ItemKey]dynamo.Item, error)
	BatchDelete(ctx context.Context, keys []dynamo.Keyed) error
	FinishDelete(ctx context.Context, t Tombstone) error
	ReconcileTrash(ctx context.Context) error
	ExistingTargets(ctx context.Context, items []MentionItem) ([]MentionItem, error)
	LocationMapsOf(ctx context.Context, items []dynamo.Item) (map[ItemKey]bool, error)
	// EntityImage makes path the image of entity eid's record as SetEntityImage does, on
	// condition that the record still holds the image_url legacy.
	EntityImage(ctx context.Context, cid, eid, by int64, path, legacy string) (*domain.Entity, error)
}
