package entities_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func TestEntitiesTakeKankasFilterLanguage(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	e.EnsureTags(e.Campaign, 1, 2)
	t1, t2 := int64(1), int64(2) // the tags' own entities: tags are entities too
	keep := eid(create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Candlekeep", "tags": []int{1}}))
	gate := eid(create(t, e, e.Campaign, e.Member, "locations", map[string]any{"name": "Baldur's Gate", "tags": []int{1, 2}}))
	secret := eid(create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Secret Keep", "is_private": true}))
	cal := eid(create(t, e, e.Campaign, e.Admin, "calendars", calendarBody("Harptos")))
	cases := []struct {
		query, token string
		want         []int64
	}{
		{"?name=keep;!secret", e.Admin, []int64{keep}},
		{"?name=!keep", e.Admin, []int64{t1, t2, gate, cal}},
		{"?name=harptos!", e.Admin, []int64{cal}},
		{"?tags[]=1&tags[]=2&tags_option=any", e.Admin, []int64{keep, gate}},
		{"?tags[]=2&tags_option=exclude&types=location", e.Admin, []int64{keep, secret}},
		{"?tags_option=none", e.Admin, []int64{t1, t2, secret, cal}},
		{fmt.Sprintf("?created_by=%d", e.MemberID), e.Admin, []int64{gate}},
		{"?is_private=1", e.Admin, []int64{secret}},
		{"?name=keep", e.Member, []int64{keep}},
		{"?tags_option=none", e.Member, []int64{t1, t2, cal}},
		{"?type=anything", e.Admin, []int64{t1, t2, keep, gate, secret, cal}}, // type is the entity's kind: types
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r := e.Do("GET", ents(e.Campaign, c.query), c.token, nil)
			if r.Status != 200 || fmt.Sprint(ids(r)) != fmt.Sprint(c.want) {
				t.Fatalf("%d %v, want %v: %s", r.Status, ids(r), c.want, r.Raw)
			}
		})
	}
	for _, q := range []string{"?tags_option=bogus", "?updated_by=x"} {
		if r := e.Do("GET", ents(e.Campaign, q), e.Admin, nil); r.Status != 422 || len(r.Errors()) != 1 {
			t.Errorf("%s: %d %s", q, r.Status, r.Raw)
		}
	}
}
