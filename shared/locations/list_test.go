package locations_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// createMany stores n locations straight through the store (the API is tested elsewhere).
func createMany(t *testing.T, e *apitest.Env, cid int64, n int, mk func(i int) domain.Location) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 8)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			l := mk(i)
			l.CampaignID = cid
			errs <- locstore.New(e.Store).CreateLocation(context.Background(), &l)
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestPaginationFollowsNextLinks(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	createMany(t, e, e.Campaign, 100, func(i int) domain.Location {
		return domain.Location{Meta: domain.Meta{CreatedBy: e.AdminID}, Owner: domain.Owner{Name: fmt.Sprintf("L%03d", i)}}
	})
	next := e.Server.URL + apitest.Path(e.Campaign, "/locations?limit=45")
	host := strings.TrimPrefix(e.Server.URL, "http://")
	var ids []int64
	pages := 0
	for next != "" {
		pages++
		if pages > 5 {
			t.Fatal("next links never end")
		}
		u, _ := url.Parse(next)
		if u.Host != host || u.Scheme != "http" {
			t.Fatalf("link %q is not absolute on the request's host", next)
		}
		e.Counter.Reset()
		r := e.Do("GET", u.RequestURI(), e.Admin, nil)
		// Membership + page query + total, however deep the page.
		if n := e.Counter.N(); n > 3 {
			t.Errorf("page %d cost %d DynamoDB calls, want at most 3", pages, n)
		}
		meta := r.Body["meta"].(map[string]any)
		links := r.Body["links"].(map[string]any)
		if meta["total"] != float64(100) || meta["per_page"] != float64(45) || meta["current_page"] != float64(pages) || meta["last_page"] != float64(3) {
			t.Fatalf("page %d meta: %v", pages, meta)
		}
		if meta["from"] != float64((pages-1)*45+1) {
			t.Fatalf("page %d from: %v", pages, meta["from"])
		}
		for _, it := range r.List() {
			ids = append(ids, int64(it.(map[string]any)["id"].(float64)))
		}
		if pages > 1 && links["prev"] == nil {
			t.Errorf("page %d has no prev link", pages)
		}
		if !strings.Contains(links["last"].(string), "page=3") || !strings.Contains(links["first"].(string), "page=1") {
			t.Errorf("first/last links: %v", links)
		}
		next, _ = links["next"].(string)
		if _, present := links["next"]; !present {
			t.Fatal("next must be present (null on the last page)")
		}
	}
	if pages != 3 || len(ids) != 100 {
		t.Fatalf("got %d pages and %d items, want 3 and 100", pages, len(ids))
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("ids not ascending at %d: %v", i, ids[i-1:i+1])
		}
	}
	// A page number alone (no cursor) gives the same page.
	r := e.Do("GET", apitest.Path(e.Campaign, "/locations?limit=45&page=3"), e.Admin, nil)
	if len(r.List()) != 10 || r.List()[0].(map[string]any)["id"] != float64(ids[90]) || r.Body["links"].(map[string]any)["next"] != nil {
		t.Fatalf("page 3 by number: %s", r.Raw[:200])
	}
	// Past the end: empty data, valid meta.
	r = e.Do("GET", apitest.Path(e.Campaign, "/locations?page=9"), e.Admin, nil)
	meta := r.Body["meta"].(map[string]any)
	if r.Status != 200 || len(r.List()) != 0 || meta["from"] != nil || meta["to"] != nil || meta["total"] != float64(100) {
		t.Fatalf("past the end: %s", r.Raw)
	}
	// Bad paging parameters fall back to defaults.
	r = e.Do("GET", apitest.Path(e.Campaign, "/locations?page=abc&limit=100000"), e.Admin, nil)
	if r.Status != 200 || r.Body["meta"].(map[string]any)["per_page"] != float64(100) || r.Body["meta"].(map[string]any)["current_page"] != float64(1) {
		t.Fatalf("bad paging: %s", r.Raw[:300])
	}
	// Links ignore proxy headers a client could forge (trusting them is an option, see httpapi).
	req, _ := http.NewRequest("GET", e.Server.URL+apitest.Path(e.Campaign, "/locations?limit=45"), nil)
	req.Header.Set("Authorization", "Bearer "+e.Admin)
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("X-Forwarded-Host", "api.example.org")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Links struct{ Next string }
	}
	if err := jsonDecode(res, &body); err != nil || !strings.HasPrefix(body.Links.Next, e.Server.URL+"/api/1.0/campaigns/") {
		t.Fatalf("forwarded next link: %q %v", body.Links.Next, err)
	}
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	e.EnsureTags(e.Campaign, 1, 2, 3)
	parent := int64(1)
	createMany(t, e, e.Campaign, 1, func(int) domain.Location {
		return domain.Location{Meta: domain.Meta{CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Root"}}
	})
	fixtures := []domain.Location{
		{Meta: domain.Meta{CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Waterdeep", Type: "City", Tags: []int64{1, 2}}, ParentID: &parent},
		{Meta: domain.Meta{CreatedBy: e.MemberID}, Owner: domain.Owner{Name: "Deepwater Isle", Type: "Island", Tags: []int64{2}}},
		{Meta: domain.Meta{CreatedBy: e.AdminID}, Owner: domain.Owner{Name: "Secret Deep", Type: "City", Tags: []int64{1}, IsPrivate: true}},
	}
	for i := range fixtures {
		fixtures[i].CampaignID = e.Campaign
		if err := locstore.New(e.Store).CreateLocation(context.Background(), &fixtures[i]); err != nil {
			t.Fatal(err)
		}
	}
	sync := apitest.SyncPoint() // the fixtures are before it, the next write strictly after
	if r := e.Do("PATCH", loc(e.Campaign, fixtures[1].ID), e.Admin, map[string]any{"entry": "changed"}); r.Status != 200 {
		t.Fatal(r.Status)
	}
	cases := []struct {
		query string
		token string
		want  []string
	}{
		{"name=deep", e.Admin, []string{"Waterdeep", "Deepwater Isle", "Secret Deep"}},
		{"name=DEEP", e.Member, []string{"Waterdeep", "Deepwater Isle"}},
		{"type=City", e.Admin, []string{"Waterdeep", "Secret Deep"}},
		{"is_private=true", e.Admin, []string{"Secret Deep"}},
		{"is_private=1", e.Member, nil},
		{"tags=1", e.Admin, []string{"Waterdeep", "Secret Deep"}},
		{"tags=1,2", e.Admin, []string{"Waterdeep"}},
		{"tags[]=2&tags[]=1", e.Admin, []string{"Waterdeep"}},
		{fmt.Sprintf("parent_location_id=%d", parent), e.Admin, []string{"Waterdeep"}},
		{fmt.Sprintf("created_by=%d", e.MemberID), e.Admin, []string{"Deepwater Isle"}},
		{"lastSync=" + url.QueryEscape(sync.Format("2006-01-02T15:04:05.000000Z")), e.Admin, []string{"Deepwater Isle"}},
		{"lastSync=" + url.QueryEscape(sync.Format("2006-01-02 15:04:05.000000")), e.Admin, []string{"Deepwater Isle"}},
		{"lastSync=" + url.QueryEscape(sync.Format(time.RFC3339Nano)+"[UTC]"), e.Admin, []string{"Deepwater Isle"}},
		// Kanka reads the longest timestamp prefix: a client that appended "?related=1" to a
		// query that already had one still syncs, and an unreadable value filters nothing.
		{"lastSync=" + url.QueryEscape(sync.Format("2006-01-02T15:04:05.000000Z")) + "?related=1", e.Admin, []string{"Deepwater Isle"}},
		{"name=deep&lastSync=yesterday", e.Admin, []string{"Waterdeep", "Deepwater Isle", "Secret Deep"}},
		{"name=deep&lastSync=0", e.Admin, []string{"Waterdeep", "Deepwater Isle", "Secret Deep"}},
		{"type=City&name=water&unknown=1", e.Admin, []string{"Waterdeep"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r := e.Do("GET", apitest.Path(e.Campaign, "/locations?"+c.query), c.token, nil)
			var got []string
			for _, it := range r.List() {
				got = append(got, it.(map[string]any)["name"].(string))
			}
			if r.Status != 200 || fmt.Sprint(got) != fmt.Sprint(c.want) || r.Body["meta"].(map[string]any)["total"] != float64(len(c.want)) {
				t.Fatalf("got %d %v (total %v), want %v", r.Status, got, r.Body["meta"], c.want)
			}
			if _, err := time.Parse(domain.TimeLayout, r.Body["sync"].(string)); err != nil {
				t.Fatalf("sync %v: %v", r.Body["sync"], err)
			}
		})
	}
	// The most tags a filter takes still fits DynamoDB's expression limits.
	many := make([]string, domain.MaxFilterTags)
	for i := range many {
		many[i] = fmt.Sprint(900000 + i)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/locations?name="+strings.Repeat("x", 191)+"&type=City&tags="+strings.Join(many, ",")), e.Member, nil); r.Status != 200 || len(r.List()) != 0 {
		t.Fatalf("every filter at its largest: %d %s", r.Status, r.Raw)
	}
	for _, q := range []string{"is_private=perhaps", "created_by=me", "tags=a,b"} {
		if r := e.Do("GET", apitest.Path(e.Campaign, "/locations?"+q), e.Admin, nil); r.Status != 422 {
			t.Errorf("%s: got %d, want 422", q, r.Status)
		}
	}
}

func TestConcurrentCreatesGetDistinctIdsAndExactTotal(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	const n = 50
	var wg sync.WaitGroup
	statuses := make(chan apitest.Response, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses <- e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Member, map[string]any{"name": fmt.Sprintf("C%d", i)})
		}(i)
	}
	wg.Wait()
	close(statuses)
	ids := map[float64]bool{}
	for r := range statuses {
		if r.Status != 200 {
			t.Fatalf("create: %d %s", r.Status, r.Raw)
		}
		ids[r.Data()["id"].(float64)] = true
	}
	if len(ids) != n {
		t.Fatalf("%d distinct ids, want %d", len(ids), n)
	}
	if got := total(t, e, e.Campaign); got != n {
		t.Fatalf("total %v, want %d", got, n)
	}
}

func TestConcurrentUpdatesNeverLoseAWrite(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	e.EnsureTags(e.Campaign, 1, 2, 3, 9)
	id := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Contested"})
	// Each writer adds a different field; a lost update would drop one of them.
	const writers = 8
	var wg sync.WaitGroup
	results := make(chan apitest.Response, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			body := map[string]any{}
			switch i % 4 {
			case 0:
				body["type"] = "Fortress"
			case 1:
				body["entry"] = "<p>Walls</p>"
			case 2:
				body["tags"] = []int{9}
			case 3:
				body["map_url"] = "https://img.example/m.png"
			}
			results <- e.Do("PATCH", loc(e.Campaign, id), e.Member, body)
		}(i)
	}
	wg.Wait()
	close(results)
	ok := 0
	for r := range results {
		switch r.Status {
		case 200:
			ok++
		case 409: // allowed: told, never silent
		default:
			t.Fatalf("update: %d %s", r.Status, r.Raw)
		}
	}
	l, _ := locstore.New(e.Store).GetLocation(context.Background(), e.Campaign, id)
	if l.Version != int64(1+ok) {
		t.Fatalf("version %d after %d successful updates: a write was lost", l.Version, ok)
	}
	if ok == writers && (l.Type != "Fortress" || l.Entry != "<p>Walls</p>" || fmt.Sprint(l.Tags) != "[9]" || l.MapURL == "") {
		t.Fatalf("a successful update was lost: %+v", l)
	}
}
