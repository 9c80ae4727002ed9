package domain

import (
	"math/rand/v2"
	"testing"
	"time"
)

// AppendTime writes what time's AppendFormat writes for the API's layout (and Time's JSON), in every year, at
// the edges of the fast path's years and outside them, in any zone, with any fraction.
func TestAppendTimeIsAppendFormat(t *testing.T) {
	t.Parallel()
	east := time.FixedZone("east", 5*3600+1800)
	times := []time.Time{
		{},
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 25, 0, 30, 0, 1999, east), // the day before in UTC
		time.Date(2024, 2, 29, 12, 0, 0, 123456789, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 999, time.UTC),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		times = append(times, time.Unix(r.Int64N(400_000_000_000)-100_000_000_000, r.Int64N(1e9)).In(east))
	}
	for _, tm := range times {
		want := tm.UTC().Format(TimeLayout)
		if got := string(AppendTime([]byte("x"), tm)); got != "x"+want {
			t.Fatalf("AppendTime(%v) = %s, want x%s", tm, got, want)
		}
		if got, _ := Time(tm).MarshalJSON(); string(got) != `"`+want+`"` {
			t.Fatalf("Time(%v) marshals to %s, want %q", tm, got, want)
		}
	}
}
