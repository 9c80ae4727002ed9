package domain

import "time"

// RateBucket is a caller's request allowance shared by every instance (see store.TakeRate): a
// token bucket of Limit tokens refilled at Limit per Window, kept as GCRA keeps it, in one
// number per caller, the theoretical arrival time (TAT) of its next request. A request at now
// is allowed when max(TAT, now) <= now + Tolerance(); it moves TAT to max(TAT, now) + Interval().
// So a caller idle for a Window may send Limit requests at once, then one every Interval.
type RateBucket struct {
	Limit  int
	Window time.Duration
}

// Interval is the time one token takes to come back.
func (b RateBucket) Interval() time.Duration { return b.Window / time.Duration(max(b.Limit, 1)) }

// Tolerance is how far ahead of now the TAT may be for a request to be allowed: Limit-1
// intervals, so that a full bucket allows Limit requests at once.
func (b RateBucket) Tolerance() time.Duration { return b.Window - b.Interval() }

// Remaining is how many more requests a caller whose TAT is tat may make at now.
func (b RateBucket) Remaining(tat, now time.Time) int {
	return max(0, int(now.Add(b.Tolerance()).Sub(tat)/b.Interval())+1)
}

// Wait is how long a caller whose TAT is tat must wait at now for its next request (0: none).
func (b RateBucket) Wait(tat, now time.Time) time.Duration {
	return max(0, tat.Sub(now.Add(b.Tolerance())))
}
