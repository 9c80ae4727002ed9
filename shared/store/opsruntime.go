package store

import (
	"context"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Runtime opens the store's steps to its operations code (store/ops; layout.Runtime says
// which).
func (s *Store) Runtime() layout.Runtime { return opsRuntime{s} }

type opsRuntime struct{ s *Store }

func (r opsRuntime) Table() dynamo.Table { return r.s.table }
func (r opsRuntime) Now() time.Time      { return r.s.now() }
func (r opsRuntime) GetItem(ctx context.Context, pk, sk string, out any, project ...string) error {
	return r.s.getItem(ctx, pk, sk, out, project...)
}
func (r opsRuntime) GetItems(ctx context.Context, keys ...layout.ItemKey) (map[layout.ItemKey]dynamo.Item, error) {
	return r.s.getItems(ctx, keys...)
}
func (r opsRuntime) BatchDelete(ctx context.Context, keys []dynamo.Keyed) error {
	return r.s.batchDelete(ctx, keys)
}
func (r opsRuntime) FinishDelete(ctx context.Context, t layout.Tombstone) error {
	return r.s.finishDelete(ctx, t)
}
func (r opsRuntime) ReconcileTrash(ctx context.Context) error { return r.s.reconcileTrash(ctx) }
func (r opsRuntime) ExistingTargets(ctx context.Context, items []layout.MentionItem) ([]layout.MentionItem, error) {
	return r.s.existingTargets(ctx, items)
}
func (r opsRuntime) LocationMapsOf(ctx context.Context, items []dynamo.Item) (map[layout.ItemKey]bool, error) {
	return r.s.locationMapsOf(ctx, items)
}
func (r opsRuntime) EntityImage(ctx context.Context, cid, eid, by int64, path, legacy string) (*domain.Entity, error) {
	return r.s.entityImage(ctx, cid, eid, by, path, legacy)
}
