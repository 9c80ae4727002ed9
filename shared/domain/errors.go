// Package domain holds Lorekeep's types, validation and access rules. It is pure Go: it knows
// nothing of HTTP, Lambda or DynamoDB, so every family and every adapter shares one meaning of
// "valid", "visible" and "allowed".
package domain

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// The error type and codes live in the leaf package apperr (so the authorizer stays small);
// these names are the ones the domain and every family use.
const (
	EInvalid          = apperr.EInvalid
	ENotFound         = apperr.ENotFound
	EForbidden        = apperr.EForbidden
	EUnauthenticated  = apperr.EUnauthenticated
	EConflict         = apperr.EConflict
	EUnavailable      = apperr.EUnavailable
	EInternal         = apperr.EInternal
	ETooLarge         = apperr.ETooLarge
	EUnsupportedMedia = apperr.EUnsupportedMedia
	ENotAllowed       = apperr.ENotAllowed
	ERateLimited      = apperr.ERateLimited
)

type (
	// Error is a failure the client may be told about (apperr.Error).
	Error = apperr.Error
	// FieldErrors collects validation messages per field (apperr.FieldErrors).
	FieldErrors = apperr.FieldErrors
)

// Standard messages, as Kanka words them.
var (
	ErrNotFound        = apperr.ErrNotFound
	ErrForbidden       = apperr.ErrForbidden
	ErrUnauthenticated = apperr.ErrUnauthenticated
	ErrConflict        = apperr.ErrConflict
	ErrUnavailable     = apperr.ErrUnavailable
)

// ErrorCode returns the code of err, EInternal for errors that are not an *Error.
func ErrorCode(err error) string { return apperr.ErrorCode(err) }

// Invalid returns a validation error for one field.
func Invalid(field, msg string) error { return apperr.Invalid(field, msg) }

// WriteAttempts bounds how often a read-merge-write is tried when it loses a race.
const WriteAttempts = 8

// Backoff between attempts: a random wait in [0, min(conflictBackoffCap, conflictBackoffBase<<n))
// before retry n ("full jitter"), so that writers that collided do not collide again in step.
// The waits of one request add up to under a second at worst, about half that on average.
const (
	conflictBackoffBase = 10 * time.Millisecond
	conflictBackoffCap  = 200 * time.Millisecond
)

// sleep waits d between attempts, or less when ctx ends first (false then); tests replace it.
var sleep = func(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// RetryConflicts runs attempt (which reads, merges and writes on condition of the version read)
// again while it fails with ErrConflict, at most WriteAttempts times with a jittered, growing
// wait in between: a lost race is retried on fresh data, and reported as a 409 (which tells the
// client to retry) only when it keeps losing, never silently.
// Contention is answered promptly and as what it is: no retry starts that the request's
// deadline would cut short (one as long as the last attempt must fit twice), and a retry the
// deadline cut before it sent its write (the store sends nothing past the deadline, and waits
// for the outcome of what it sent) reports the conflict, not an outage.
func RetryConflicts(ctx context.Context, attempt func() error) error {
	var err error
	var last time.Duration
	for n := 0; n < WriteAttempts; n++ {
		if n > 0 {
			wait := conflictBackoff(n)
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait+2*last {
				return err
			}
			if !sleep(ctx, wait) {
				return err
			}
		}
		start := time.Now()
		err = attempt()
		last = time.Since(start)
		if n > 0 && err == ErrUnavailable && ctx.Err() != nil {
			return ErrConflict
		}
		if err != ErrConflict {
			return err
		}
	}
	return err
}

func conflictBackoff(n int) time.Duration {
	return rand.N(min(conflictBackoffCap, conflictBackoffBase<<n))
}
