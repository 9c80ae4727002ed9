package calendars_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// BenchmarkReadPathVsRaw pairs a 30-day day view (10 events on the calendar, 3 in the window)
// with the DynamoDB calls it makes, made directly (apitest.Env.PairRaw, issue 20): api/raw at
// 1, 8 and 32 clients.
func BenchmarkReadPathVsRaw(b *testing.B) {
	e := apitest.NewWith(b, families.Register, apitest.WithCachedAuth())
	id := create(b, e, e.Campaign, e.Admin, plainBody("Reckoning"))
	calEntity := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()["entity_id"]
	for i := 0; i < 10; i++ {
		body := map[string]any{"name": fmt.Sprint("Event ", i), "calendar_id": id, "day": 1 + i*3, "month": 1 + i%2, "year": 5, "length": 1}
		if r := e.Do("POST", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%v/entity_events", calEntity)), e.Admin, body); r.Status != 200 {
			b.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	b.Run("day-view", func(b *testing.B) { e.PairRaw(b, e.Admin, cal(e.Campaign, id)+"/days?from=5-1-1&to=5-1-30") })
}
