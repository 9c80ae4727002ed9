package calendars_test

import (
	"context"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestErasSinceTheBeginning: an era that has always been (the Gregorian, Julian and Harptos
// presets' eras, Fantasy-Calendar's starting era) is answered with year null, not the
// placeholder year it is stored as; null sent back is read so (a client writes back the eras
// it read), and the Fantasy-Calendar transfer carries it as a starting era.
func TestErasSinceTheBeginning(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	path := apitest.Path(e.Campaign, "/calendars")
	eraYear := func(t *testing.T, r apitest.Response, i int) any {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		return r.Data()["eras"].([]any)[i].(map[string]any)["year"]
	}
	stored := func(t *testing.T, r apitest.Response, i int) int64 {
		t.Helper()
		c, err := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, int64(r.Data()["id"].(float64)))
		if err != nil {
			t.Fatal(err)
		}
		return c.Eras[i].Year
	}
	harptos := e.Do("POST", path, e.Admin, map[string]any{"name": "Toril", "preset": "harptos"})
	id := int64(harptos.Data()["id"].(float64))
	cases := []struct {
		name       string
		do         func() apitest.Response
		era        int
		wantYear   any // nil: since the beginning
		wantStored int64
	}{
		{"the Harptos preset", func() apitest.Response { return harptos }, 0, nil, calengine.EarliestYear},
		{"the Gregorian preset", func() apitest.Response {
			return e.Do("POST", path, e.Admin, map[string]any{"name": "Earth", "preset": "gregorian"})
		}, 0, nil, calengine.EarliestYear},
		{"written back as read", func() apitest.Response {
			got := e.Do("GET", cal(e.Campaign, id), e.Admin, nil)
			return e.Do("PUT", cal(e.Campaign, id), e.Admin, map[string]any{"eras": got.Data()["eras"]})
		}, 0, nil, calengine.EarliestYear},
		{"null sent on a new era", func() apitest.Response {
			return e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"eras": []any{
				map[string]any{"name": "Before", "year": nil}, map[string]any{"name": "Dalereckoning", "abbreviation": "DR", "year": 1}}})
		}, 0, nil, calengine.EarliestYear},
		{"a year stays a year", func() apitest.Response { return e.Do("GET", cal(e.Campaign, id), e.Admin, nil) }, 1, 1.0, 1},
		{"import of the export (a starting era)", func() apitest.Response {
			ex := e.Do("GET", cal(e.Campaign, id)+"/export?format=fantasy-calendar", e.Admin, nil)
			era := ex.Body["static_data"].(map[string]any)["eras"].([]any)[0].(map[string]any)
			if era["settings"].(map[string]any)["starting_era"] != true {
				t.Errorf("exported era: %v", era)
			}
			return e.Do("POST", path+"/import", e.Admin, ex.Body)
		}, 0, nil, calengine.EarliestYear},
		{"Fantasy-Calendar's starting era", func() apitest.Response {
			return e.Do("POST", path+"/import", e.Admin, fcPreset(t, "gregorian", ""))
		}, 0, nil, calengine.EarliestYear},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.do()
			if got := eraYear(t, r, tc.era); got != tc.wantYear {
				t.Fatalf("era year %v, want %v: %s", got, tc.wantYear, r.Raw)
			}
			if got := stored(t, r, tc.era); got != tc.wantStored {
				t.Fatalf("stored era year %d, want %d", got, tc.wantStored)
			}
		})
	}
}
