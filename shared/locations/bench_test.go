package locations_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Benchmarks go through the API handler against DynamoDB Local (apitest.Env.Bench).

func BenchmarkLocationShow(b *testing.B) {
	e := apitest.New(b, locations.Register)
	l := domain.Location{CampaignID: e.Campaign, Name: "Bench", Entry: "<p>text</p>", Tags: []int64{1, 2, 3}, CreatedBy: e.AdminID}
	if err := e.Store.CreateLocation(b.Context(), &l); err != nil {
		b.Fatal(err)
	}
	e.Bench(b, apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", l.ID)))
}

func BenchmarkLocationListPage(b *testing.B) {
	e := apitest.New(b, locations.Register)
	for i := 0; i < 60; i++ {
		l := domain.Location{CampaignID: e.Campaign, Name: fmt.Sprintf("Bench %d", i), CreatedBy: e.AdminID}
		if err := e.Store.CreateLocation(b.Context(), &l); err != nil {
			b.Fatal(err)
		}
	}
	e.Bench(b, apitest.Path(e.Campaign, "/locations?limit=45"))
}
