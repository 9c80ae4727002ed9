package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// limiter is a fixed one-minute window per user. It lives in the process, so on Lambda each
// warm instance counts on its own: a bound on abuse, not an exact quota.
type limiter struct {
	mu     sync.Mutex
	limit  int
	now    func() time.Time
	window int64
	counts map[string]int
}

func newLimiter(limit int, now func() time.Time) *limiter {
	return &limiter{limit: limit, now: now, counts: map[string]int{}}
}

// take counts one request of the caller (a user, or the address of an unauthenticated client)
// and sets the rate-limit headers; ERateLimited past the limit.
func (l *limiter) take(w http.ResponseWriter, caller string) error {
	now := l.now()
	window := now.Unix() / 60
	l.mu.Lock()
	if window != l.window { // a new minute forgets the last one
		l.window, l.counts = window, map[string]int{}
	}
	l.counts[caller]++
	used := l.counts[caller]
	l.mu.Unlock()

	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, l.limit-used)))
	if used <= l.limit {
		return nil
	}
	reset := (window + 1) * 60
	h.Set("Retry-After", strconv.FormatInt(max(1, reset-now.Unix()), 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	return &domain.Error{Code: domain.ERateLimited, Message: "Too Many Attempts."}
}
