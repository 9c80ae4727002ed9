package apperr

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// WriteAttempts bounds how often a read-merge-write is tried when it loses a race.
const WriteAttempts = 8

// Backoff between attempts: a random wait in [0, min(BackoffCap, backoffBase<<n)) before retry
// n ("full jitter"), so that writers that collided do not collide again in step. The waits of
// one request add up to under a second at worst, about half that on average. The DynamoDB
// client's retries of throttled and failed calls wait by the same rule (Backoff).
const (
	backoffBase = 10 * time.Millisecond
	BackoffCap  = 200 * time.Millisecond
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
// again while it fails with ErrConflict (Retry).
func RetryConflicts(ctx context.Context, attempt func() error) error {
	return Retry(ctx, IsConflict, attempt)
}

// IsConflict reports whether err is a lost race (ErrConflict).
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// Retry is the one retry policy of the writes: it runs attempt again while it fails with an
// error that retryable accepts, at most WriteAttempts times with a jittered, growing wait
// in between, and answers the last error. A lost race is retried on fresh data and reported
// (a 409 for a conflict, which tells the client to retry) only when it keeps losing, never
// silently. Contention is answered promptly and as what it is: no retry starts that the
// request's deadline would cut short (one as long as the last attempt must fit twice), and a
// retry the deadline cut before it sent its write (the store sends nothing past the deadline,
// and waits for the outcome of what it sent) reports the conflict, not an outage.
func Retry(ctx context.Context, retryable func(error) bool, attempt func() error) error {
	var err error
	var last time.Duration
	for n := 0; n < WriteAttempts; n++ {
		if n > 0 {
			wait := Backoff(n)
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
		if n > 0 && errors.Is(err, ErrUnavailable) && ctx.Err() != nil {
			return ErrConflict
		}
		if err == nil || !retryable(err) {
			return err
		}
	}
	return err
}

// Backoff is the wait before retry n (n >= 1) of a write or of a DynamoDB call.
func Backoff(n int) time.Duration {
	return rand.N(min(BackoffCap, backoffBase<<min(n, 30)))
}
