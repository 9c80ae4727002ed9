package locations_test

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// BenchmarkReadPathVsRaw pairs a location show and a list page (45 of 1,000 locations) with the
// DynamoDB calls each makes, made directly (apitest.Env.PairRaw, issue 20): api/raw at 1, 8 and
// 32 clients, for a member (the common reader: public copies).
func BenchmarkReadPathVsRaw(b *testing.B) {
	e := apitest.NewWith(b, locations.Register, apitest.WithCachedAuth())
	e.SeedLocations(e.Campaign, 1000, 10)
	b.Run("show", func(b *testing.B) { e.PairRaw(b, e.Member, loc(e.Campaign, 501)) })
	b.Run("list-page", func(b *testing.B) { e.PairRaw(b, e.Member, apitest.Path(e.Campaign, "/locations?limit=45")) })
}
