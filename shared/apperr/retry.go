package apperr

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

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
		if n > 0 && errors.Is(err, ErrUnavailable) && ctx.Err() != nil {
			return ErrConflict
		}
		if !errors.Is(err, ErrConflict) {
			return err
		}
	}
	return err
}

func conflictBackoff(n int) time.Duration {
	return rand.N(min(conflictBackoffCap, conflictBackoffBase<<n))
}
