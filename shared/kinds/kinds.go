// Package kinds links the kind table whole: every family's storage declarations (its kinds'
// rows, how related=1 decodes its rows, its cascades), which the kernel's mechanisms read. A
// cascade or a related=1 row of a kind a binary did not register would be skipped silently,
// so every binary that opens the store imports this package, whatever families it serves
// (the deploy tests check both: that each function links it, and that it links every package
// that declares to the kernel). The declarations are small; the families' routes, rules and
// wire shapes stay with the functions that serve them.
package kinds

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/lorekeep/lorekeep/shared/store"

	// Every package that declares to the kernel.
	_ "github.com/lorekeep/lorekeep/shared/attributes/attrstore"
	_ "github.com/lorekeep/lorekeep/shared/calendars/sharekind"
	_ "github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	_ "github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	_ "github.com/lorekeep/lorekeep/shared/modules/spec"
	_ "github.com/lorekeep/lorekeep/shared/webhooks/webhookkind"
)

// Open opens the store (store.Open) with the whole kind table registered.
func Open(ctx context.Context, c store.Config, tweak ...func(*aws.Config)) (*store.Store, error) {
	return store.Open(ctx, c, tweak...)
}

// OpenFromEnv opens the store from the environment (store.OpenFromEnv) with the whole kind
// table registered.
func OpenFromEnv(ctx context.Context, getenv func(string) string) (*store.Store, error) {
	return store.OpenFromEnv(ctx, getenv)
}
