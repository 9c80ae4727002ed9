package store

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// Purge hooks: a family whose own items describe a record of another kind (a calendar's share
// links) declares what its purge removes of them, run in the purge's cascade with the kernel's
// own (a failure leaves the cascade pending for the sweeper, which runs it again: the hook must
// be idempotent).
var purgeHooks = map[string][]func(ctx context.Context, s *Store, cid, id int64) error{}

// DeclarePurge runs purge when a record of kind k is purged (at init).
func DeclarePurge(k Kind, purge func(ctx context.Context, s *Store, cid, id int64) error) {
	purgeHooks[k.Prefix] = append(purgeHooks[k.Prefix], purge)
}

// runPurgeHooks runs the purge hooks of kind for record id, concurrently.
func (s *Store) runPurgeHooks(ctx context.Context, kind string, cid, id int64) error {
	hooks := purgeHooks[kind]
	if len(hooks) == 0 {
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, h := range hooks {
		g.Go(func() error { return h(gctx, s, cid, id) })
	}
	return g.Wait()
}
