package entities_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// BenchmarkSearchGrowth is the search's and the name filter's cost at 100, 1,000 and 10,000
// locations (every tenth private): DynamoDB calls, bytes read (the name shards and the page)
// and items evaluated per request, as the admin (DESIGN 9.1).
func BenchmarkSearchGrowth(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		e := apitest.New(b, families.Register)
		e.SeedLocations(e.Campaign, n, 10)
		for _, c := range []struct{ name, path string }{
			{"search", search(e.Campaign, "place 9", "")},
			{"locations-name", apitest.Path(e.Campaign, "/locations?name=place%209")},
			{"entities-name", ents(e.Campaign, "?name=place%209")},
		} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				e.Counter.Reset()
				e.Bench(b, c.path)
				b.ReportMetric(float64(e.Counter.N())/float64(b.N), "dynamodb-calls/op")
				b.ReportMetric(float64(e.Counter.Bytes())/float64(b.N), "bytes-read/op")
				b.ReportMetric(float64(e.Counter.Scanned())/float64(b.N), "items-evaluated/op")
			})
		}
	}
}

// BenchmarkMentions reads who mentions an entity mentioned by 200 posts and 50 entries, and what
// one of them mentions.
func BenchmarkMentions(b *testing.B) {
	e := apitest.New(b, families.Register)
	target := domain.Location{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Hub"}}
	if err := locstore.New(e.Store).CreateLocation(b.Context(), &target); err != nil {
		b.Fatal(err)
	}
	entry := fmt.Sprintf("<p>[location:%d]</p>", target.EntityID)
	var src domain.Location
	for i := 0; i < 50; i++ {
		src = domain.Location{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: fmt.Sprint("Spoke ", i), Entry: entry}}
		if err := locstore.New(e.Store).CreateLocation(b.Context(), &src); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 4; j++ {
			n := domain.Note{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, EntityID: src.EntityID, Name: "Post", Entry: entry, Visibility: domain.VisibilityAll}
			if err := notestore.New(e.Store).CreateNote(b.Context(), &n); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, c := range []struct{ name, path string }{
		{"in", mentionsPath(e.Campaign, target.EntityID, "?direction=in")},
		{"out", mentionsPath(e.Campaign, src.EntityID, "")},
	} {
		b.Run(c.name, func(b *testing.B) {
			e.Counter.Reset()
			e.Bench(b, c.path)
			b.ReportMetric(float64(e.Counter.N())/float64(b.N), "dynamodb-calls/op")
			b.ReportMetric(float64(e.Counter.Bytes())/float64(b.N), "bytes-read/op")
		})
	}
}
