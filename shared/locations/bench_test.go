package locations_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/maps/mapstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Benchmarks go through the API handler against DynamoDB Local (apitest.Env.Bench).

func BenchmarkLocationShow(b *testing.B) {
	e := apitest.New(b, locations.Register)
	e.SeedTags(e.Campaign, 3)
	l := domain.Location{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Bench", Entry: "<p>text</p>", Tags: []int64{1, 2, 3}}}
	if err := locstore.New(e.Store).CreateLocation(b.Context(), &l); err != nil {
		b.Fatal(err)
	}
	e.Bench(b, apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", l.ID)))
}

func BenchmarkLocationListPage(b *testing.B) {
	e := apitest.New(b, locations.Register)
	for i := 0; i < 60; i++ {
		l := domain.Location{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: fmt.Sprintf("Bench %d", i)}}
		if err := locstore.New(e.Store).CreateLocation(b.Context(), &l); err != nil {
			b.Fatal(err)
		}
	}
	e.Bench(b, apitest.Path(e.Campaign, "/locations?limit=45"))
}

// BenchmarkLocationListRelated is a full page (45 locations, each under the previous one, each
// with a post) with ?related=1; it reports the DynamoDB calls per page and the most in flight.
func BenchmarkLocationListRelated(b *testing.B) {
	e := apitest.New(b, families.Register)
	var parent *int64
	for i := 0; i < 45; i++ {
		l := domain.Location{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: fmt.Sprintf("Bench %d", i)}, ParentID: parent}
		if err := locstore.New(e.Store).CreateLocation(b.Context(), &l); err != nil {
			b.Fatal(err)
		}
		n := domain.Note{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, EntityID: l.EntityID, Name: "Post", Entry: "<p>lore</p>", Visibility: domain.VisibilityAll}
		if err := notestore.New(e.Store).CreateNote(b.Context(), &n); err != nil {
			b.Fatal(err)
		}
		parent = &l.ID
	}
	e.Counter.Reset()
	e.Bench(b, apitest.Path(e.Campaign, "/locations?limit=45&related=1"))
	b.ReportMetric(float64(e.Counter.N())/float64(b.N), "dynamodb-calls/op")
	b.ReportMetric(float64(e.Counter.MaxInFlight()), "max-in-flight")
}

// BenchmarkGrowth is issue 10's growth curve: campaigns of 100, 1,000 and 10,000 locations
// (every tenth private), pages 1 and 50 by number and by cursor, for an admin and a member.
// Beside the time it reports round trips per request (the token's read included, as the
// authorizer makes it on AWS), items DynamoDB evaluated (Query ScannedCount), items read by key
// (BatchGetItem), the bytes of the items read, the range counter items read and their bytes
// (issue 20's growth table), and the median latency. The related=1 cases are a page of 45 whose
// rows each have a post (issue 20: a bounded number of round trips whatever the page or
// campaign size); the types case is `entities?types=location` (its kind's own range). The
// lastSync cases follow 10 changes and 5 deletes among them (issue 20: their cost grows with the
// changes, not with the campaign). The tags cases filter by a tag on every 100th location (and
// one on every 1,000th) and list the tags. The map rows (issue 23) read 46 maps and 60 markers
// of one of them in the same campaigns.
func BenchmarkGrowth(b *testing.B) {
	for _, size := range []int{100, 1000, 10000} {
		e := apitest.New(b, families.Register)
		e.SeedLocations(e.Campaign, size, 10)
		for id := int64(1); id <= 46; id++ {
			n := domain.Note{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, EntityID: id, Name: "Post", Entry: "<p>lore</p>", Visibility: domain.VisibilityAll}
			if err := notestore.New(e.Store).CreateNote(b.Context(), &n); err != nil {
				b.Fatal(err)
			}
		}
		// One location in 100 carries tag 1 and one in 1,000 tag 2 too (public ones: every
		// tenth is private): the tag filters' cost grows with the tag's members, not with the
		// campaign.
		e.SeedTags(e.Campaign, 2)
		for id := 1; id <= size; id += 100 {
			ts := []int64{1}
			if id%1000 == 1 {
				ts = append(ts, 2)
			}
			if r := e.Do("PATCH", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", id)), e.Admin, map[string]any{"tags": ts}); r.Status != 200 {
				b.Fatalf("tag %d: %d %s", id, r.Status, r.Raw)
			}
		}
		since := url.QueryEscape(domain.FormatTime(apitest.SyncPoint()))
		for id := 1; id <= 15; id++ {
			method, body := "PATCH", map[string]any{"type": "Ruin"}
			if id > 10 {
				method, body = "DELETE", nil
			}
			if r := e.Do(method, apitest.Path(e.Campaign, fmt.Sprintf("/locations/%d", id*3)), e.Admin, body); r.Status != 200 {
				b.Fatalf("%s %d: %d %s", method, id*3, r.Status, r.Raw)
			}
		}
		// 46 maps (each with a post, every tenth private, the first with 60 markers and tagged),
		// created after the seeded locations: the map rows' cost grows with the page and the
		// map's markers, never with the campaign.
		var firstMap int64
		for i := 1; i <= 46; i++ {
			m := domain.Map{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: fmt.Sprintf("Map %d", i), IsPrivate: i%10 == 0}}
			if i == 1 {
				m.Tags = []int64{1}
			}
			if err := mapstore.New(e.Store).CreateMap(b.Context(), &m); err != nil {
				b.Fatal(err)
			}
			n := domain.Note{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, EntityID: m.EntityID, Name: "Post", Entry: "<p>lore</p>", Visibility: domain.VisibilityAll}
			if err := notestore.New(e.Store).CreateNote(b.Context(), &n); err != nil {
				b.Fatal(err)
			}
			if i == 1 {
				firstMap = m.ID
			}
		}
		for i := 0; i < 60; i++ {
			mk := domain.Marker{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, MapID: firstMap, Name: fmt.Sprintf("Pin %d", i),
				ShapeID: 1, Icon: 1, Opacity: 100, SizeID: 1, Visibility: domain.VisibilityAll}
			if err := mapstore.New(e.Store).CreateMarker(b.Context(), &mk); err != nil {
				b.Fatal(err)
			}
		}
		cursor := func(token string) string { // the next link of page 49
			r := e.Do("GET", apitest.Path(e.Campaign, "/locations?page=49"), token, nil)
			next, _ := r.Body["links"].(map[string]any)["next"].(string)
			if next == "" {
				return apitest.Path(e.Campaign, "/locations?page=50")
			}
			u, _ := url.Parse(next)
			return u.RequestURI()
		}
		for _, c := range []struct{ name, token, path string }{
			{"show", e.Member, fmt.Sprintf("/locations/%d", size/2+1)},
			{"page1/admin", e.Admin, "/locations"},
			{"page1/member", e.Member, "/locations"},
			{"page50-by-number/admin", e.Admin, "/locations?page=50"},
			{"page50-by-number/member", e.Member, "/locations?page=50"},
			{"page50-by-cursor/admin", e.Admin, ""},
			{"page50-by-cursor/member", e.Member, ""},
			{"name-search/member", e.Member, "/locations?name=place%2012"},
			{"lastSync-10-changed/admin", e.Admin, "/locations?lastSync=" + since},
			{"lastSync-10-changed/member", e.Member, "/locations?lastSync=" + since},
			{"lastSync-5-deleted/member", e.Member, "/locations?deleted=1&lastSync=" + since},
			{"related-page45/admin", e.Admin, "/locations?related=1&limit=45"},
			{"related-page45/member", e.Member, "/locations?related=1&limit=45"},
			{"types-location/member", e.Member, "/entities?types=location"},
			{"tags-filter-one/member", e.Member, "/locations?tags[]=1"},
			{"tags-filter-all/member", e.Member, "/locations?tags[]=1&tags[]=2"},
			{"tags-list/member", e.Member, "/tags"},
			{"map-show/member", e.Member, fmt.Sprintf("/maps/%d", firstMap)},
			{"maps-page1/admin", e.Admin, "/maps"},
			{"maps-page1/member", e.Member, "/maps"},
			{"maps-page2-by-number/member", e.Member, "/maps?page=2&limit=15"},
			{"maps-name-search/member", e.Member, "/maps?name=map%2012"},
			{"maps-tags-filter/member", e.Member, "/maps?tags[]=1"},
			{"maps-related-page45/member", e.Member, "/maps?related=1&limit=45"},
			{"maps-lastSync/member", e.Member, "/maps?lastSync=" + since},
			{"types-map/member", e.Member, "/entities?types=map"},
			{"markers-page1/member", e.Member, fmt.Sprintf("/maps/%d/map_markers?limit=15", firstMap)},
			{"markers-page2/member", e.Member, fmt.Sprintf("/maps/%d/map_markers?limit=15&page=2", firstMap)},
		} {
			path := apitest.Path(e.Campaign, c.path)
			if c.path == "" {
				path = cursor(c.token)
			}
			b.Run(fmt.Sprintf("locations=%d/%s", size, c.name), func(b *testing.B) {
				req := httptest.NewRequest("GET", path, nil)
				req.Header.Set("Authorization", "Bearer "+c.token)
				e.Counter.Reset()
				took := make([]time.Duration, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					start := time.Now()
					w := httptest.NewRecorder()
					e.API.ServeHTTP(w, req)
					took[i] = time.Since(start)
					if w.Code != 200 {
						b.Fatalf("%d %s", w.Code, w.Body)
					}
				}
				b.StopTimer()
				slices.Sort(took)
				b.ReportMetric(float64(e.Counter.N())/float64(b.N)+1, "roundtrips/op")
				b.ReportMetric(float64(e.Counter.Scanned())/float64(b.N), "evaluated/op")
				b.ReportMetric(float64(e.Counter.Fetched())/float64(b.N), "fetched/op")
				b.ReportMetric(float64(e.Counter.Bytes())/float64(b.N), "bytes/op")
				b.ReportMetric(float64(e.Counter.CounterItems())/float64(b.N), "counter-items/op")
				b.ReportMetric(float64(e.Counter.CounterBytes())/float64(b.N), "counter-bytes/op")
				b.ReportMetric(float64(took[b.N/2].Microseconds()), "p50-µs")
			})
		}
	}
}
