// Package domain holds Lorekeep's types, validation and access rules. It is pure Go: it knows
// nothing of HTTP, Lambda or DynamoDB, so every family and every adapter shares one meaning of
// "valid", "visible" and "allowed".
package domain

import (
	"errors"
)

// ErrNotTrashed is a restore of an entity that is not in the trash (never trashed, restored
// already, expired or purged).
var ErrNotTrashed = errors.New("the entity is not in the trash")
