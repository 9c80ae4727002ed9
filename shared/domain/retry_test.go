package domain

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
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
		{"keeps losing: a conflict after WriteAttempts", WriteAttempts + 5, nil, apperr.ErrConflict, WriteAttempts},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			waits = nil
			attempts := 0
			err := RetryConflicts(context.Background(), func() error {
				attempts++
				if attempts <= c.conflicts {
					return apperr.ErrConflict
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
				if ceiling := min(conflictBackoffCap, conflictBackoffBase<<(i+1)); w < 0 || w >= ceiling {
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
	seen := map[time.Duration]bool{}
	for i := 0; i < 20; i++ {
		seen[conflictBackoff(3)] = true
	}
	if len(seen) < 2 {
		t.Fatalf("20 waits before retry 3 were all %v: writers that collided would collide again", seen)
	}
}

func TestRetryConflictsStopsWaitingWhenTheRequestEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	attempts := 0
	err := RetryConflicts(ctx, func() error {
		attempts++
		cancel() // the client goes away during the first attempt
		return apperr.ErrConflict
	})
	if !errors.Is(err, apperr.ErrConflict) || attempts != 1 {
		t.Fatalf("got %v after %d attempts, want the conflict after 1", err, attempts)
	}
}
