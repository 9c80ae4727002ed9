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
