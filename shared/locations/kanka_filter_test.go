package locations_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// names lists the names of a list answer, failing unless it is a 200 whose total matches.
func names(t *testing.T, r apitest.Response) []string {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	got := []string{}
	for _, it := range r.List() {
		got = append(got, it.(map[string]any)["name"].(string))
	}
	if total := r.Body["meta"].(map[string]any)["total"]; total != float64(len(got)) {
		t.Fatalf("total %v for %d items", total, len(got))
	}
	return got
}

// kankaFixtures stores a small campaign: a root, a city under it, an island, a private city
// and a location without type or tags.
func kankaFixtures(t *testing.T, e *apitest.Env) []domain.Location {
	e.EnsureTags(e.Campaign, 1, 2)
	t.Helper()
	mk := func(by int64, o domain.Owner) domain.Location {
		return domain.Location{Meta: domain.Meta{CreatedBy: by}, Owner: o}
	}
	ls := []domain.Location{
		mk(e.AdminID, domain.Owner{Name: "Root"}),
		mk(e.AdminID, domain.Owner{Name: "Waterdeep", Type: "City", Tags: []int64{1, 2}}),
		mk(e.MemberID, domain.Owner{Name: "Deepwater Isle", Type: "Island", Tags: []int64{2}}),
		mk(e.AdminID, domain.Owner{Name: "Secret Deep", Type: "Hidden City", Tags: []int64{1}, IsPrivate: true}),
		mk(e.MemberID, domain.Owner{Name: "Candlekeep"}),
	}
	for i := range ls {
		ls[i].CampaignID = e.Campaign
		if i == 1 {
			ls[i].ParentID = &ls[0].ID
		}
		if err := locstore.New(e.Store).CreateLocation(context.Background(), &ls[i]); err != nil {
			t.Fatal(err)
		}
	}
	// The admin edits the island: updated_by differs from created_by.
	if r := e.Do("PATCH", loc(e.Campaign, ls[2].ID), e.Admin, map[string]any{"entry": "x"}); r.Status != 200 {
		t.Fatal(r.Status)
	}
	return ls
}

func TestKankaFilterLanguage(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	ls := kankaFixtures(t, e)
	root, secret := ls[0], ls[3]
	cases := []struct {
		name  string
		query string // sent raw: `;` is not escaped
		token string
		want  string
	}{
		{"substring", "name=deep", e.Admin, "[Waterdeep Deepwater Isle Secret Deep]"},
		{"not containing", "name=!deep", e.Admin, "[Root Candlekeep]"},
		{"exact, any case", "name=WATERDEEP!", e.Admin, "[Waterdeep]"},
		{"exact is not a substring", "name=water!", e.Admin, "[]"},
		{"terms AND-ed", "name=deep;water", e.Admin, "[Waterdeep Deepwater Isle]"},
		{"terms with their own operators", "name=deep;!isle", e.Admin, "[Waterdeep Secret Deep]"},
		{"escaped semicolon is the same", "name=deep%3B!isle", e.Admin, "[Waterdeep Secret Deep]"},
		{"type substring", "type=city", e.Admin, "[Waterdeep Secret Deep]"},
		{"type empty", "type=!!", e.Admin, "[Root Candlekeep]"},
		{"type not containing includes the empty", "type=!city", e.Admin, "[Root Deepwater Isle Candlekeep]"},
		{"type exact", "type=city!", e.Admin, "[Waterdeep]"},
		{"contradiction", "type=city;!!", e.Admin, "[]"},
		{"tags all", "tags[]=1&tags[]=2", e.Admin, "[Waterdeep]"},
		{"tags any", "tags[]=1&tags[]=2&tags_option=any", e.Admin, "[Waterdeep Deepwater Isle Secret Deep]"},
		{"tags exclude", "tags[]=1&tags_option=exclude", e.Admin, "[Root Deepwater Isle Candlekeep]"},
		{"no tags", "tags_option=none", e.Admin, "[Root Candlekeep]"},
		{"created_by", fmt.Sprintf("created_by=%d", e.MemberID), e.Admin, "[Deepwater Isle Candlekeep]"},
		{"updated_by", fmt.Sprintf("updated_by=%d", e.AdminID), e.Admin, "[Root Waterdeep Deepwater Isle Secret Deep]"},
		{"is_private", "is_private=0", e.Admin, "[Root Waterdeep Deepwater Isle Candlekeep]"},
		{"parent by entity", fmt.Sprintf("parent_id=%d", root.EntityID), e.Admin, "[Waterdeep]"},
		{"parent by entity and location agreeing", fmt.Sprintf("parent_id=%d&parent_location_id=%d", root.EntityID, root.ID), e.Admin, "[Waterdeep]"},
		{"parent by entity and location disagreeing", fmt.Sprintf("parent_id=%d&parent_location_id=%d", root.EntityID, secret.ID), e.Admin, "[]"},
		{"parent entity missing", "parent_id=999999", e.Admin, "[]"},
		{"a repeated filter counts once, the last", "name=zzz&name=deep;water", e.Admin, "[Waterdeep Deepwater Isle]"},
		// A member never learns of the private city through a filter.
		{"member substring", "name=deep", e.Member, "[Waterdeep Deepwater Isle]"},
		{"member exact on a hidden name", "name=secret+deep!", e.Member, "[]"},
		{"member tags any", "tags[]=1&tags_option=any", e.Member, "[Waterdeep]"},
		{"member private only", "is_private=1", e.Member, "[]"},
		{"member type", "type=hidden", e.Member, "[]"},
		{"member parent_id of a hidden location", fmt.Sprintf("parent_id=%d", secret.EntityID), e.Member, "[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("GET", apitest.Path(e.Campaign, "/locations?"+c.query), c.token, nil)
			if got := fmt.Sprint(names(t, r)); got != c.want {
				t.Fatalf("%s: %s, want %s", c.query, got, c.want)
			}
		})
	}
}

func TestKankaFiltersRefuseBadValuesNamingTheParameter(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	for _, c := range []struct{ query, field string }{
		{"tags_option=bogus", "tags_option"},
		{"created_by=me", "created_by"},
		{"updated_by=1.5", "updated_by"},
		{"parent_id=abc", "parent_id"},
		{"location_id=-3", "location_id"},
		{"name=" + strings.Repeat("a;", domain.MaxFilterTerms+1), "name"},
	} {
		t.Run(c.query, func(t *testing.T) {
			r := e.Do("GET", apitest.Path(e.Campaign, "/locations?"+c.query), e.Admin, nil)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("%d %s, want a 422 naming %s", r.Status, r.Raw, c.field)
			}
		})
	}
}

func TestLinksCarryEachParameterOnce(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	createMany(t, e, e.Campaign, 3, func(i int) domain.Location {
		return domain.Location{Meta: domain.Meta{CreatedBy: e.AdminID}, Owner: domain.Owner{Name: fmt.Sprint("L", i)}}
	})
	r := e.Do("GET", apitest.Path(e.Campaign, "/locations?limit=1&limit=1&name=l&name=l&tags_option=any&name=l;!x&page=1&page=1"), e.Admin, nil)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	links := r.Body["links"].(map[string]any)
	for _, k := range []string{"first", "last", "next"} {
		link := links[k].(string)
		for _, p := range []string{"limit=", "name=", "page=", "tags_option="} {
			if n := strings.Count(link, p); n != 1 {
				t.Errorf("%s link %s carries %s %d times", k, link, p, n)
			}
		}
		if !strings.Contains(link, "name=l%3B%21x") {
			t.Errorf("%s link %s lost the filter's last value", k, link)
		}
	}
	// Following next keeps the filter: page 2 of the same list.
	next := strings.TrimPrefix(links["next"].(string), e.Server.URL)
	r2 := e.Do("GET", next, e.Admin, nil)
	if r2.Status != 200 || len(r2.List()) != 1 || r2.Body["meta"].(map[string]any)["current_page"] != float64(2) || r2.Body["meta"].(map[string]any)["total"] != float64(3) {
		t.Fatalf("next page: %d %s", r2.Status, r2.Raw)
	}
}

// Links carry the page size the page was read with: a value the server corrected (0, 500,
// past 64 bits, garbage) is not repeated to the client.
func TestLinksCarryThePageSizeUsed(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	createMany(t, e, e.Campaign, 2, func(i int) domain.Location {
		return domain.Location{Meta: domain.Meta{CreatedBy: e.AdminID}, Owner: domain.Owner{Name: fmt.Sprint("L", i)}}
	})
	for _, c := range []struct{ query, want string }{
		{"?limit=0", "limit=45"},
		{"?limit=500", "limit=100"},
		{"?limit=abc&page=0", "limit=45"},
		{"?limit=99999999999999999999", "limit=100"},
		{"?per_page=1", "per_page=1"},
	} {
		r := e.Do("GET", apitest.Path(e.Campaign, "/locations"+c.query), e.Admin, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.query, r.Status, r.Raw)
		}
		for _, k := range []string{"first", "last"} {
			if link := r.Body["links"].(map[string]any)[k].(string); !strings.Contains(link, c.want) || strings.Count(link, "limit=")+strings.Count(link, "per_page=") != 1 {
				t.Errorf("%s: %s link %s, want %s", c.query, k, link, c.want)
			}
		}
	}
}

func TestMapPointListsTakeKankasFilters(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	l := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Harbour"})
	base := loc(e.Campaign, l) + "/map_points"
	target := e.Do("GET", loc(e.Campaign, l), e.Admin, nil).Data()["entity_id"]
	for _, p := range []struct {
		token string
		name  any
	}{{e.Admin, "North Gate"}, {e.Member, "South Gate"}, {e.Admin, nil}} {
		body := with(validPoint(), "name", p.name)
		if p.name == nil { // a point without a name points at an entity
			body["target_entity_id"] = target
		}
		if r := e.Do("POST", base, p.token, body); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	for _, c := range []struct{ query, want string }{
		{"name=gate;!south", "[North Gate]"},
		{"name=!!", "[<nil>]"},
		{"name=!north", "[South Gate <nil>]"},
		{fmt.Sprintf("created_by=%d", e.MemberID), "[South Gate]"},
	} {
		r := e.Do("GET", base+"?"+c.query, e.Admin, nil)
		got := []any{}
		for _, it := range r.List() {
			got = append(got, it.(map[string]any)["name"])
		}
		if r.Status != 200 || fmt.Sprint(got) != c.want {
			t.Errorf("%s: %d %v, want %s", c.query, r.Status, got, c.want)
		}
	}
}

func TestFieldsReturnsOnlyTheKeysAsked(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	id := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Candlekeep", "entry": "<p>a & b</p>"})
	create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Baldur's Gate"})
	list := e.Do("GET", apitest.Path(e.Campaign, "/locations?fields=name,id,nope&fields=entry,name"), e.Admin, nil)
	if list.Status != 200 || len(list.List()) != 2 || list.Body["meta"] == nil || list.Body["links"] == nil {
		t.Fatalf("%d %s", list.Status, list.Raw)
	}
	// The last fields= counts; keys come in the order asked.
	if !strings.Contains(string(list.Raw), `"data":[{"entry":"<p>a &amp; b</p>","name":"Candlekeep"},{"entry":"","name":"Baldur's Gate"}]`) {
		t.Fatalf("projected list: %s", list.Raw)
	}
	one := e.Do("GET", loc(e.Campaign, id)+"?fields[]=id&fields[]=tags", e.Admin, nil)
	if one.Status != 200 || len(one.Data()) != 2 || one.Data()["id"] != float64(id) || one.Data()["tags"] == nil {
		t.Fatalf("projected record: %d %s", one.Status, one.Raw)
	}
	// A write answers the whole record.
	if r := e.Do("PATCH", loc(e.Campaign, id)+"?fields=id", e.Admin, map[string]any{"type": "Library"}); r.Status != 200 || r.Data()["type"] != "Library" {
		t.Fatalf("write with fields: %d %s", r.Status, r.Raw)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprint("f", i)
	}
	for _, q := range []string{"fields=na%20me", "fields=" + strings.Join(many, ","), "fields=id;name"} {
		if r := e.Do("GET", apitest.Path(e.Campaign, "/locations?"+q), e.Admin, nil); r.Status != 422 || r.Errors()["fields"] == nil {
			t.Errorf("%s: %d %s, want a 422 naming fields", q, r.Status, r.Raw)
		}
	}
}

// TestStoreFilterAgreesWithFilterMatch runs every operator and tag option through the store and
// through domain.Filter.Match (the in-memory rule a calendar's reminders use): both must select
// the same locations.
func TestStoreFilterAgreesWithFilterMatch(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	ls := kankaFixtures(t, e)
	stored := map[string]domain.Location{}
	for _, l := range ls {
		got, err := locstore.New(e.Store).GetLocation(context.Background(), e.Campaign, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		stored[l.Name] = *got
	}
	values := map[string][]string{
		"name":        {"deep", "!deep", "waterdeep!", "DEEP;!isle", "!!", "e;e!", "candlekeep;!!"},
		"type":        {"city", "!city", "!!", "island!", "c;!hidden"},
		"tags":        {"1", "2", "1,2", "3"},
		"tags_option": {"any", "exclude", "none"},
		"created_by":  {fmt.Sprint(e.MemberID)},
		"updated_by":  {fmt.Sprint(e.AdminID)},
		"is_private":  {"0", "1"},
	}
	keys := []string{"name", "type", "tags", "tags_option", "created_by", "updated_by", "is_private"}
	for i := 0; i < 60; i++ {
		// Two or three parameters at a time, chosen deterministically.
		in := domain.Input{}
		var raw []string
		for j, k := range keys {
			if (i+j)%3 == 0 || (i*7+j)%5 == 0 {
				v := values[k][(i+j)%len(values[k])]
				if k == "tags" {
					in[k] = strings.Split(v, ",")
				} else {
					in[k] = v
				}
				raw = append(raw, k+"="+v)
			}
		}
		query := strings.Join(raw, "&")
		f, err := domain.ReadFilter(in, domain.FilterRecords)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		var want []string
		for _, l := range ls {
			s := stored[l.Name]
			if f.Match(domain.Filtered{Name: s.Name, Type: s.Type, IsPrivate: s.IsPrivate, Tags: s.Tags, CreatedBy: s.CreatedBy, UpdatedBy: s.UpdatedBy, UpdatedAt: s.UpdatedAt}) {
				want = append(want, s.Name)
			}
		}
		got := names(t, e.Do("GET", apitest.Path(e.Campaign, "/locations?"+strings.ReplaceAll(query, " ", "+")), e.Admin, nil))
		if fmt.Sprint(got) != fmt.Sprint(append([]string{}, want...)) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s: store %v, Match %v", query, got, want)
		}
	}
}

// The largest filter the language allows still fits DynamoDB's expression limits.
func TestEveryKankaFilterAtItsLargest(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	terms := make([]string, domain.MaxFilterTerms)
	for i := range terms {
		terms[i] = "!" + strings.Repeat(fmt.Sprint(i%10), domain.MaxFilterLength/domain.MaxFilterTerms-2)
	}
	tags := make([]string, domain.MaxFilterTags)
	for i := range tags {
		tags[i] = fmt.Sprint(900000000 + i)
	}
	q := "name=" + strings.Join(terms, ";") + "&type=" + strings.Join(terms, ";") + "&tags=" + strings.Join(tags, ",") +
		fmt.Sprintf("&tags_option=exclude&created_by=%d&updated_by=%d&is_private=0&lastSync=2000-01-01T00:00:00Z&parent_location_id=1&related=1", e.AdminID, e.AdminID)
	for _, opt := range []string{"exclude", "any", "none"} {
		r := e.Do("GET", apitest.Path(e.Campaign, "/locations?"+strings.Replace(q, "tags_option=exclude", "tags_option="+opt, 1)), e.Member, nil)
		if r.Status != 200 {
			t.Fatalf("tags_option=%s: %d %s", opt, r.Status, r.Raw)
		}
	}
}
