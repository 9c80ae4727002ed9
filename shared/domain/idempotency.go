package domain

import (
	"context"
	"sync"
	"time"
)

// Idempotency-Key (README "Safe retries"): a write sent with the header happens at most once
// per user, campaign and key for IdempotencyWindow; a repeat answers the stored outcome.
const (
	IdempotencyHeader = "Idempotency-Key"
	// MaxIdempotencyKey bounds the key's length; its characters are visible ASCII.
	MaxIdempotencyKey = 255
	IdempotencyWindow = 24 * time.Hour
)

// ErrKeyInUse is a keyed write that lost its key to a concurrent request with the same key:
// nothing was written; the caller answers the winner's stored outcome, or a 409 while there
// is none yet. It is not ErrConflict, so that no write path retries it.
var ErrKeyInUse = &Error{Code: EConflict, Message: "A request with the same Idempotency-Key is in progress; retry."}

// InvalidKey is the 422 of a bad Idempotency-Key header (or one reused for another request).
func InvalidKey(msg string) error { return Invalid(IdempotencyHeader, msg) }

// Replay is the stored outcome of a keyed write.
type Replay struct {
	Fingerprint string // of the request (method, path, body) that wrote it
	Status      int
	Body        []byte
}

// KeyedWrite is a write request's Idempotency-Key on its way to the store, which writes the
// key's record (the answer, rendered just before the transaction is sent) in the write's own
// transaction: the first transaction the request sends once an outcome is set.
type KeyedWrite struct {
	CampaignID, UserID int64
	Key, Fingerprint   string
	Expires            time.Time

	mu        sync.Mutex
	outcome   func() ([]byte, error)
	committed []byte
}

type keyedWriteKey struct{}

// WithKeyedWrite returns a context carrying k to the store.
func WithKeyedWrite(ctx context.Context, k *KeyedWrite) context.Context {
	return context.WithValue(ctx, keyedWriteKey{}, k)
}

// KeyedWriteOf is the request's KeyedWrite, or nil.
func KeyedWriteOf(ctx context.Context) *KeyedWrite {
	k, _ := ctx.Value(keyedWriteKey{}).(*KeyedWrite)
	return k
}

// SetOutcome says how to render the answer of the write about to be sent (nil: none is due).
func (k *KeyedWrite) SetOutcome(f func() ([]byte, error)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.outcome = f
}

// Pending renders the answer to store with the key in the transaction about to be sent; due is
// false when no write is under way or the key is already stored.
func (k *KeyedWrite) Pending() (body []byte, due bool, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.outcome == nil || k.committed != nil {
		return nil, false, nil
	}
	body, err = k.outcome()
	return body, err == nil, err
}

// Commit records that the key was stored with body.
func (k *KeyedWrite) Commit(body []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.committed = body
}

// Committed is the answer stored with the key, if it was.
func (k *KeyedWrite) Committed() ([]byte, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.committed, k.committed != nil
}
