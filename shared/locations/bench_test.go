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
	l := domain.Location{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Bench", Entry: "<p>text</p>", Tags: []int64{1, 2, 3}}}
	if err := e.Store.CreateLocation(b.Context(), &l); err != nil {
		b.Fatal(err)
	}
	e.Bench(b, apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", l.ID)))
}

func BenchmarkLocationListPage(b *testing.B) {
	e := apitest.New(b, locations.Register)
	for i := 0; i < 60; i++ {
		l := domain.Location{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: fmt.Sprintf("Bench %d", i)}}
		if err := e.Store.CreateLocation(b.Context(), &l); err != nil {
			b.Fatal(err)
		}
	}
	e.Bench(b, apitest.Path(e.Campaign, "/locations?limit=45"))
}
