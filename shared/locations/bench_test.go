package locations_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations"
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

func BenchmarkLocationShow(b *testing.B) {
	e := apitest.New(b, locations.Register)
	l := domain.Location{CampaignID: e.Campaign, Name: "Bench", Entry: "<p>text</p>", Tags: []int64{1, 2, 3}, CreatedBy: e.AdminID}
	if err := e.Store.CreateLocation(b.Context(), &l); err != nil {
		b.Fatal(err)
	}
	benchRequest(b, e, apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", l.ID)))
}

func BenchmarkLocationListPage(b *testing.B) {
	e := apitest.New(b, locations.Register)
	for i := 0; i < 60; i++ {
		l := domain.Location{CampaignID: e.Campaign, Name: fmt.Sprintf("Bench %d", i), CreatedBy: e.AdminID}
		if err := e.Store.CreateLocation(b.Context(), &l); err != nil {
			b.Fatal(err)
		}
	}
	benchRequest(b, e, apitest.Path(e.Campaign, "/locations?limit=45"))
}
