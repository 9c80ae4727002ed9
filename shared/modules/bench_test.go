package modules_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Benchmarks go through the API handler against DynamoDB Local (apitest.Env.Bench), as the
// owner kinds' do: a character with traits, and a full page of characters.

func BenchmarkCharacterShow(b *testing.B) {
	e := apitest.New(b, register)
	names := make([]any, 20)
	for i := range names {
		names[i] = fmt.Sprint("Trait ", i)
	}
	r := e.Do("POST", apitest.Path(e.Campaign, "/characters"), e.Admin, map[string]any{"name": "Bench", "title": "Captain",
		"entry": "<p>text</p>", "appearance_name": names, "is_dead": true})
	if r.Status != 200 {
		b.Fatalf("%d %s", r.Status, r.Raw)
	}
	e.Bench(b, apitest.Path(e.Campaign, fmt.Sprintf("/characters/%d", int64(r.Data()["id"].(float64)))))
}

func BenchmarkCharacterListPage(b *testing.B) {
	e := apitest.New(b, register)
	for i := 0; i < 60; i++ {
		if r := e.Do("POST", apitest.Path(e.Campaign, "/characters"), e.Admin, map[string]any{"name": fmt.Sprint("Bench ", i), "title": "Cook"}); r.Status != 200 {
			b.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	e.Bench(b, apitest.Path(e.Campaign, "/characters?limit=45"))
}

// A character holding 100 races (its references live on its home: no read more than a show).
func BenchmarkCharacterShowWith100Races(b *testing.B) {
	e := apitest.New(b, register)
	var races []int64
	for i := 0; i < 100; i++ {
		r := e.Do("POST", apitest.Path(e.Campaign, "/races"), e.Admin, map[string]any{"name": fmt.Sprint("Race ", i)})
		if r.Status != 200 {
			b.Fatalf("%d %s", r.Status, r.Raw)
		}
		races = append(races, int64(r.Data()["id"].(float64)))
	}
	r := e.Do("POST", apitest.Path(e.Campaign, "/characters"), e.Admin, map[string]any{"name": "Bench", "races": races[:40]})
	if r.Status != 200 {
		b.Fatalf("%d %s", r.Status, r.Raw)
	}
	path := apitest.Path(e.Campaign, fmt.Sprintf("/characters/%d", int64(r.Data()["id"].(float64))))
	for _, upto := range []int{80, 100} {
		if r := e.Do("PATCH", path, e.Admin, map[string]any{"races": races[:upto]}); r.Status != 200 {
			b.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	e.Bench(b, path)
}

// A page of 45 organisations, each answering its members (one Query a row, concurrent).
func BenchmarkOrganisationListPageWithMembers(b *testing.B) {
	e := apitest.New(b, register)
	c := e.Do("POST", apitest.Path(e.Campaign, "/characters"), e.Admin, map[string]any{"name": "Member"})
	for i := 0; i < 45; i++ {
		o := e.Do("POST", apitest.Path(e.Campaign, "/organisations"), e.Admin, map[string]any{"name": fmt.Sprint("Guild ", i)})
		if o.Status != 200 {
			b.Fatalf("%d %s", o.Status, o.Raw)
		}
		m := e.Do("POST", apitest.Path(e.Campaign, fmt.Sprintf("/organisations/%d/organisation_members", int64(o.Data()["id"].(float64)))), e.Admin,
			map[string]any{"character_id": c.Data()["id"], "role": "Member"})
		if m.Status != 200 {
			b.Fatalf("%d %s", m.Status, m.Raw)
		}
	}
	e.Bench(b, apitest.Path(e.Campaign, "/organisations?limit=45"))
}
