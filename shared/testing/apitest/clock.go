package apitest

import (
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// The stamps a lastSync compares (updated_at, deleted_at, an answer's sync) have microseconds
// (domain.TimeLayout), and the API and the store stamp with this process's clock. A test that
// needs a write stamped strictly after a point waits for the clock to pass that microsecond,
// a few microseconds, rather than sleeping a fixed time.

// WaitPast returns once the clock reads a later microsecond than at: whatever is written from
// then on is stamped strictly after at.
func WaitPast(at time.Time) {
	at = at.Truncate(time.Microsecond) // also drops the monotonic reading: stamps are wall time
	for !time.Now().Truncate(time.Microsecond).After(at) {
		time.Sleep(time.Microsecond)
	}
}

// WaitPastSync is WaitPast for a stamp as the API answers it (a page's sync).
func WaitPastSync(t testing.TB, sync string) {
	t.Helper()
	at, err := time.Parse(domain.TimeLayout, sync)
	if err != nil {
		t.Fatalf("sync %q: %v", sync, err)
	}
	WaitPast(at)
}

// SyncPoint is a lastSync strictly after every stamp written before the call and strictly
// before every stamp written after it.
func SyncPoint() time.Time {
	WaitPast(time.Now())
	at := time.Now().UTC()
	WaitPast(at)
	return at
}
