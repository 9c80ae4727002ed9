package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// limiter is a sliding window: a caller may make at most limit requests in any 60 seconds
// (a fixed window let twice that through across a minute boundary). It keeps the times of each
// caller's requests of the last minute. It lives in the process, so on Lambda each warm
// instance counts on its own: a bound on abuse, not an exact quota.
type limiter struct {
	mu     sync.Mutex
	limit  int
	now    func() time.Time
	swept  time.Time
	recent map[string][]time.Time // caller -> accepted requests of the last minute, oldest first
}

const rateWindow = time.Minute

func newLimiter(limit int, now func() time.Time) *limiter {
	return &limiter{limit: limit, now: now, recent: map[string][]time.Time{}}
}

// take counts one request of the caller (a user, or the address of an unauthenticated client)
// and sets the rate-limit headers; ERateLimited past the limit.
func (l *limiter) take(w http.ResponseWriter, caller string) error {
	now := l.now()
	l.mu.Lock()
	if now.Sub(l.swept) > rateWindow { // forget callers idle for a minute, at most once a minute
		for c, ts := range l.recent {
			if now.Sub(ts[len(ts)-1]) >= rateWindow {
				delete(l.recent, c)
			}
		}
		l.swept = now
	}
	ts := l.recent[caller]
	drop := 0
	for drop < len(ts) && now.Sub(ts[drop]) >= rateWindow {
		drop++
	}
	ts = ts[drop:]
	accepted := len(ts) < l.limit
	if accepted {
		ts = append(ts, now)
	}
	if len(ts) > 0 {
		l.recent[caller] = ts
	}
	remaining := l.limit - len(ts)
	var oldest time.Time
	if len(ts) > 0 {
		oldest = ts[0]
	}
	l.mu.Unlock()

	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, remaining)))
	if accepted {
		return nil
	}
	// A request is possible again when the oldest of the window leaves it.
	free := oldest.Add(rateWindow)
	wait := int64((free.Sub(now) + time.Second - 1) / time.Second)
	h.Set("Retry-After", strconv.FormatInt(max(1, wait), 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(now.Unix()+max(1, wait), 10))
	return &apperr.Error{Code: apperr.ERateLimited, Message: "Too Many Attempts."}
}
