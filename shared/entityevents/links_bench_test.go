package entityevents_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// BenchmarkCalendarLinksGrowth is issue 20's growth table for a calendar's day view (365 days)
// and its reminders page (limit 45): a calendar holding 10, 1,000 or 5,000 one-off events
// outside the window (and 5 recurring ones), read by a member. Each line reports DynamoDB calls,
// items evaluated and bytes DynamoDB answered per request, and the median latency.
func BenchmarkCalendarLinksGrowth(b *testing.B) {
	for _, n := range []int{10, 1000, 5000} {
		f := newFixture(b)
		f.seedEvents(b, f.entity, n, 1000)
		for i := range 5 {
			r := f.Do("POST", eventsOf(f.Campaign, f.entity), f.Admin, f.event("name", fmt.Sprint("Yearly ", i), "day", 1+i, "year", 1, "recurring_periodicity", "yearly"))
			if r.Status != 200 {
				b.Fatalf("%d %s", r.Status, r.Raw)
			}
		}
		for _, c := range []struct{ name, path string }{
			{"days", fmt.Sprintf("/calendars/%d/days?from=500-1-1&to=504-1-1", f.cal)},
			{"reminders", fmt.Sprintf("/calendars/%d/reminders?limit=45", f.cal)},
		} {
			b.Run(fmt.Sprintf("%s/events=%d", c.name, n), func(b *testing.B) {
				req := httptest.NewRequest("GET", "/api/1.0/campaigns/"+fmt.Sprint(f.Campaign)+c.path, nil)
				req.Header.Set("Authorization", "Bearer "+f.Member)
				var took []time.Duration
				f.Counter.Reset()
				b.ResetTimer()
				for range b.N {
					w := httptest.NewRecorder()
					start := time.Now()
					f.API.ServeHTTP(w, req)
					took = append(took, time.Since(start))
					if w.Code != http.StatusOK {
						b.Fatalf("%d %s", w.Code, w.Body)
					}
				}
				b.StopTimer()
				slices.Sort(took)
				per := float64(b.N)
				b.ReportMetric(float64(f.Counter.N())/per, "calls/op")
				b.ReportMetric(float64(f.Counter.Scanned())/per, "items/op")
				b.ReportMetric(float64(f.Counter.Bytes())/per, "dynamo-B/op")
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}
