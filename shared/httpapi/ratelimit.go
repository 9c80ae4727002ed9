package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Rate limits are token buckets (domain.RateBucket): a caller may send RateLimit requests at
// once, then RateLimit per minute as the bucket refills. Where the bucket lives is the only
// difference: in the table, shared by every Lambda instance, for authenticated users on Lambda
// (Options.SharedRate: store.TakeRate); in the process (memoryRates) for callers known by
// their address only, and everywhere when SharedRate is unset (the local server, tests).
const rateWindow = time.Minute

// RateTaker counts one request of a caller against its bucket: the requests remaining, or how
// long to wait when none is (and then no token is taken).
type RateTaker interface {
	TakeRate(ctx context.Context, caller string, b domain.RateBucket, now time.Time) (remaining int, wait time.Duration, err error)
}

// takeRate counts the request and sets the rate-limit headers; ERateLimited past the limit.
func (a *API) takeRate(w http.ResponseWriter, r *http.Request, rates RateTaker, caller string) error {
	now := a.opts.Now()
	remaining, wait, err := rates.TakeRate(r.Context(), caller, domain.RateBucket{Limit: a.opts.RateLimit, Window: rateWindow}, now)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(a.opts.RateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	if err != nil || wait == 0 {
		return err
	}
	secs := max(1, int64((wait+time.Second-1)/time.Second))
	h.Set("Retry-After", strconv.FormatInt(secs, 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(now.Unix()+secs, 10))
	return &apperr.Error{Code: apperr.ERateLimited, Message: "Too Many Attempts."}
}

// memoryRates keeps buckets in the process: on Lambda each warm instance counts on its own, a
// bound on abuse by address rather than a quota.
type memoryRates struct {
	mu    sync.Mutex
	swept time.Time
	tats  map[string]time.Time // caller -> its bucket's TAT
}

func (m *memoryRates) TakeRate(_ context.Context, caller string, b domain.RateBucket, now time.Time) (int, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.swept) > b.Window { // forget full buckets, at most once a window
		for c, tat := range m.tats {
			if !tat.After(now) {
				delete(m.tats, c)
			}
		}
		m.swept = now
	}
	tat := m.tats[caller]
	if tat.Before(now) {
		tat = now
	}
	if wait := b.Wait(tat, now); wait > 0 {
		return 0, wait, nil
	}
	tat = tat.Add(b.Interval())
	m.tats[caller] = tat
	return b.Remaining(tat, now), 0, nil
}
