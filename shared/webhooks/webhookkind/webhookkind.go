// Package webhookkind declares the webhooks' kind on the kernel, apart from the family's
// storage and HTTP client, so that every function registers it (package kinds).
package webhookkind

import "github.com/lorekeep/lorekeep/shared/store"

// Kind is the webhooks' kind: the KIND of their keys and the name of their id sequence.
const Kind = "WEBHOOK"

// A webhook's count is a limit's (MaxWebhooks); its queue and log live in its own partition.
func init() { store.DeclareKind(store.FamilyKind{Prefix: Kind, LimitCount: true, Partition: true}) }
