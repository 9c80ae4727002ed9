package layout

import (
	"context"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Runtime is what the operations code (store/ops) reuses of the store: its table and clock,
// and the steps the migration and the audit share with the store's writes, so that the two
// cannot drift (a pending delete is finished, a trash reconciled, links and images checked
// exactly as the writes do). Its steps take and give the layout's own types, which only code
// under shared/store can name: a family has nothing to hand them.
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
