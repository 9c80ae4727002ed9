package apperr

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestRetryConflictsBacksOffWithJitterAndGivesUpBounded(t *testing.T) {
	var waits []time.Duration
	real := sleep
	sleep = func(_ context.Context, d time.Duration) bool { waits = append(waits, d); return true }
	t.Cleanup(func() { sleep = real })
	other := errors.New("other")
	cases := []struct {
		name      string
		conflicts int // attempts that lose before one that returns `last`
		last      error
		want      error
		attempts  int
	}{
		{"wins at once", 0, nil, nil, 1},
		{"wins after losing twice", 2, nil, nil, 3},
		{"another error is not retried", 0, other, other, 1},
		{"keeps losing: a conflict after WriteAttempts", WriteAttempts + 5, nil, ErrConflict, WriteAttempts},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			waits = nil
			attempts := 0
			err := RetryConflicts(context.Background(), func() error {
				attempts++
				if attempts <= c.conflicts {
					return ErrConflict
				}
				return c.last
			})
			if err != c.want || attempts != c.attempts {
				t.Fatalf("got %v after %d attempts, want %v after %d", err, attempts, c.want, c.attempts)
			}
			if len(waits) != attempts-1 {
				t.Fatalf("%d waits between %d attempts", len(waits), attempts)
			}
			var total time.Duration
			for i, w := range waits {
				if ceiling := min(BackoffCap, backoffBase<<(i+1)); w < 0 || w >= ceiling {
					t.Errorf("wait %d is %v, want in [0, %v)", i+1, w, ceiling)
				}
				total += w
			}
			if total > time.Second {
				t.Errorf("waited %v in one request", total)
			}
		})
	}
}

func TestConflictBackoffIsJittered(t *testing.T) {
	t.Parallel()
	seen := map[time.Duration]bool{}
	for i := 0; i < 20; i++ {
		seen[Backoff(3)] = true
	}
	if len(seen) < 2 {
		t.Fatalf("20 waits before retry 3 were all %v: writers that collided would collide again", seen)
	}
}

func TestRetryConflictsStopsWaitingWhenTheRequestEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	attempts := 0
	err := RetryConflicts(ctx, func() error {
		attempts++
		cancel() // the client goes away during the first attempt
		return ErrConflict
	})
	if !errors.Is(err, ErrConflict) || attempts != 1 {
		t.Fatalf("got %v after %d attempts, want the conflict after 1", err, attempts)
	}
}

// Contention under a deadline is a prompt 409: no retry starts that the deadline would cut,
// and a retry the deadline cut before it wrote (the store's ErrUnavailable past the deadline)
// reports the conflict it retried, not an outage. A first attempt cut by the deadline is an
// outage.
func TestRetryConflictsUnderADeadline(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		timeout  time.Duration
		attempt  func(ctx context.Context, n int) error
		want     error
		attempts int // 0: any number, answered before the deadline
	}{
		{"a retry cut by the deadline reports the conflict", 50 * time.Millisecond, func(ctx context.Context, n int) error {
			if n == 1 {
				return ErrConflict
			}
			<-ctx.Done()
			return ErrUnavailable
		}, ErrConflict, 2},
		{"a first attempt cut by the deadline is an outage", 50 * time.Millisecond, func(ctx context.Context, n int) error {
			<-ctx.Done()
			return ErrUnavailable
		}, ErrUnavailable, 1},
		{"no retry starts that the deadline would cut", time.Second, func(ctx context.Context, n int) error {
			time.Sleep(300 * time.Millisecond) // a retry starts only while twice this is left
			return ErrConflict
		}, ErrConflict, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
			defer cancel()
			n := 0
			err := RetryConflicts(ctx, func() error { n++; return c.attempt(ctx, n) })
			if err != c.want || (c.attempts > 0 && n != c.attempts) {
				t.Fatalf("got %v after %d attempts, want %v after %d", err, n, c.want, c.attempts)
			}
			if c.attempts == 0 && ctx.Err() != nil {
				t.Fatalf("answered after the deadline, %d attempts", n)
			}
		})
	}
}
