package locations_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// lambdaSize is the size of body once quoted in Lambda's JSON response, as Lambda encodes it.
func lambdaSize(body []byte) int {
	b, _ := json.Marshal(string(body))
	return len(b)
}

// A list page whose rows would pass Lambda's 6 MB answer limit ends early, and its next link
// continues right after its last row: following next reads every location once.
func TestListPagesEndEarlyUnderTheByteBudget(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	entry := strings.Repeat("<b>x</b>", 190_000/8) // about 0.7 MB each once Lambda escapes it
	const n = 12
	for i := 0; i < n; i++ {
		create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Big", "entry": entry})
	}
	create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Small"})
	seen := map[float64]bool{}
	last := 0.0
	pages := 0
	for next := apitest.Path(e.Campaign, "/locations?limit=45"); next != ""; pages++ {
		r := e.Do("GET", next, e.Admin, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d", next, r.Status)
		}
		if size := lambdaSize(r.Raw); size > 6_000_000 || len(r.Raw) > httpapi.MaxPageBytes+100_000 {
			t.Fatalf("page %d is %d bytes in Lambda's answer", pages+1, size)
		}
		for _, row := range r.List() {
			id := row.(map[string]any)["id"].(float64)
			if seen[id] || id <= last {
				t.Fatalf("page %d: id %v again or out of order", pages+1, id)
			}
			seen[id], last = true, id
		}
		if r.Body["meta"].(map[string]any)["total"] != float64(n+1) {
			t.Fatalf("total: %v", r.Body["meta"])
		}
		next = ""
		if l, ok := r.Body["links"].(map[string]any)["next"].(string); ok {
			u, _ := url.Parse(l)
			next = u.RequestURI()
		}
	}
	if len(seen) != n+1 || pages < 2 {
		t.Fatalf("read %d of %d locations in %d pages", len(seen), n+1, pages)
	}
}
