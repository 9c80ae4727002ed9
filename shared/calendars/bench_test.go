package calendars_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// The benchmarks call the shared handler directly (as the Lambda adapter does) against
// DynamoDB Local, so they measure our code plus real storage round trips.
func benchRequest(b *testing.B, e *apitest.Env, path string) {
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+e.Admin)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := httptest.NewRecorder()
		e.API.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

func BenchmarkCalendarShow(b *testing.B) {
	e := apitest.New(b, calendars.Register)
	id := create(b, e, e.Campaign, e.Admin, fullBody())
	benchRequest(b, e, cal(e.Campaign, id))
}

// BenchmarkCalendarDays1000ThreeMoons is the largest day view: 1000 days of a calendar with
// three moons, one of which begins a phase every day.
func BenchmarkCalendarDays1000ThreeMoons(b *testing.B) {
	e := apitest.New(b, calendars.Register)
	id := create(b, e, e.Campaign, e.Admin, with(fullBody(),
		"moon_name", []any{"Selune", "Tiny", "Ghost"}, "moon_fullmoon", []any{29.5, 2.5, "7.25"},
		"moon_offset", []any{0, -1, 3}, "moon_colour", nil, "moon_id", nil))
	// Years 1 to 11 hold 992 days (4 and 8 are leap years): 12-1-8 is the 1000th day.
	path := cal(e.Campaign, id) + "/days?from=1-1-1&to=12-1-8"
	if r := e.Do("GET", path, e.Admin, nil); r.Status != 200 || len(r.List()) != 1000 {
		b.Fatalf("%d, %d days", r.Status, len(r.List()))
	}
	benchRequest(b, e, path)
}
