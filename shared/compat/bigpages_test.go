package compat_test

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Bigger pages: `limit` or `per_page` up to 100 (Kanka's subscriber maximum, more is 100) on
// the record lists, the module lists, entities and a child list, the lastSync delta and the
// removals read alike: a page of 100 rows, and links.next to the rest (pages past 5 MiB end
// early: shared/locations' budget test).
func TestBiggerPages(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	api := func(rest string) string { return apitest.Path(e.Campaign, rest) }
	const n = 130
	e.SeedLocations(e.Campaign, n, 0)
	e.SeedTags(e.Campaign, n)
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := e.Do("POST", api("/characters"), e.Admin, map[string]any{"name": fmt.Sprintf("Hero %d", i)}); r.Status != 200 {
				errs <- string(r.Raw)
			}
		}()
		if i%8 == 7 {
			wg.Wait()
		}
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Fatal(msg)
	}
	notes := e.Do("GET", api("/locations/1"), e.Admin, nil).Data()["entity_id"]
	for i := range 105 {
		if r := e.Do("POST", api(fmt.Sprintf("/entities/%v/entity_notes", notes)), e.Admin, map[string]any{"name": fmt.Sprintf("Note %d", i), "visibility": "all"}); r.Status != 200 {
			t.Fatal(r.Status, string(r.Raw))
		}
	}
	lists := []struct {
		path  string
		total int
	}{
		{"/locations", n}, {"/tags", n}, {"/characters", n}, {"/entities", 3 * n},
		{fmt.Sprintf("/entities/%v/entity_notes", notes), 105},
		{"/locations?lastSync=2020-01-01", n}, {"/characters?removed=1&lastSync=" + url.QueryEscape(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)), n},
	}
	for _, l := range lists {
		for _, size := range []string{"limit=100", "per_page=100", "limit=500", "per_page=101"} {
			t.Run(strings.TrimPrefix(l.path, "/")+"&"+size, func(t *testing.T) {
				e := e.For(t)
				path := withQuery(api(l.path), size)
				rows := 0
				for pages := 0; path != ""; pages++ {
					r := e.Do("GET", path, e.Member, nil)
					if r.Status != 200 {
						t.Fatalf("%d %.300s", r.Status, r.Raw)
					}
					m := r.Body["meta"].(map[string]any)
					if pages == 0 && (len(r.List()) != 100 || m["per_page"] != float64(100)) {
						t.Fatalf("first page: %d rows, per_page %v, want 100", len(r.List()), m["per_page"])
					}
					rows += len(r.List())
					next, _ := r.Body["links"].(map[string]any)["next"].(string)
					path = strings.TrimPrefix(next, e.Server.URL)
					if pages > 10 {
						t.Fatal("no last page")
					}
				}
				if rows != l.total {
					t.Errorf("%d rows over the pages, want %d", rows, l.total)
				}
			})
		}
	}
}
