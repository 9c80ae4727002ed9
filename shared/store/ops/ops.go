// Package ops is the table's operations code: the migration to the current key layout
// (Migrate), the audit of the layout's invariants (Audit) and the fetch of the images of
// records written before images were stored (MigrateLegacyImages). It knows the key layout
// (store/internal/layout) as the store does, and reuses the store's own steps where the two
// must agree (store.Runtime). Only the lorekeep command and the tests link it: no Lambda
// does (the deploy test reads every function's imports).
package ops

import (
	"context"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"

	// The whole kind table: the migration and the
	// audit must know every kind's items, whatever else the binary links.
	_ "github.com/lorekeep/lorekeep/shared/kinds"
)

// storeView is the store as the operations code sees it.
type storeView struct {
	layout.Runtime
	st    *store.Store
	table dynamo.Table
	now   func() time.Time
}

func view(st *store.Store) storeView {
	rt := st.Runtime()
	return storeView{Runtime: rt, st: st, table: rt.Table(), now: rt.Now}
}

// Migrate rewrites the table to the current layout (storeView.migrate says how): resumable
// and idempotent, a line per scanned page on progress.
func Migrate(ctx context.Context, st *store.Store, progress func(string)) (MigrateResult, error) {
	return view(st).migrate(ctx, progress)
}

// Audit lists every broken invariant of campaign cid's items (storeView.audit lists them):
// none is the answer of a consistent table.
func Audit(ctx context.Context, st *store.Store, cid int64) ([]string, error) {
	return view(st).audit(ctx, cid)
}
