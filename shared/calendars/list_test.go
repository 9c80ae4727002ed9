package calendars_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func TestListFilters(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	create(t, e, e.Campaign, e.Admin, with(plainBody("Harptos Reckoning"), "type", "solar", "tags", []any{1, 2}))
	create(t, e, e.Campaign, e.Member, with(plainBody("Lunar Count"), "type", "lunar", "tags", []any{2}))
	create(t, e, e.Campaign, e.Admin, with(plainBody("Secret harptos"), "type", "solar", "is_private", true))
	since := apitest.SyncPoint()
	late := create(t, e, e.Campaign, e.Admin, plainBody("Late"))

	names := func(r apitest.Response) string {
		var out []string
		for _, it := range r.List() {
			out = append(out, it.(map[string]any)["name"].(string))
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		name, query, token, want string
	}{
		{"name is a case-insensitive substring", "?name=HARPTOS", e.Admin, "Harptos Reckoning,Secret harptos"},
		{"private ones are the admins'", "?name=harptos", e.Member, "Harptos Reckoning"},
		{"type", "?type=solar", e.Admin, "Harptos Reckoning,Secret harptos"},
		{"is_private", "?is_private=1", e.Admin, "Secret harptos"},
		{"is_private false", "?is_private=false&type=solar", e.Admin, "Harptos Reckoning"},
		{"every tag given", "?tags=1,2", e.Admin, "Harptos Reckoning"},
		{"tags as an array", "?tags[]=2", e.Admin, "Harptos Reckoning,Lunar Count"},
		{"created_by", fmt.Sprintf("?created_by=%d", e.MemberID), e.Admin, "Lunar Count"},
		{"lastSync", "?lastSync=" + url.QueryEscape(domain.FormatTime(since)), e.Admin, "Late"},
		{"no filter", "", e.Member, "Harptos Reckoning,Lunar Count,Late"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("GET", apitest.Path(e.Campaign, "/calendars"+c.query), c.token, nil)
			if r.Status != 200 || names(r) != c.want {
				t.Fatalf("got %d [%s], want [%s]", r.Status, names(r), c.want)
			}
			if n := r.Body["meta"].(map[string]any)["total"].(float64); int(n) != len(r.List()) {
				t.Fatalf("total %v for %d items", n, len(r.List()))
			}
		})
	}
	for _, q := range []string{"?is_private=maybe", "?created_by=x", "?tags=a"} {
		r := e.Do("GET", apitest.Path(e.Campaign, "/calendars"+q), e.Admin, nil)
		if r.Status != 422 {
			t.Errorf("%s: got %d %s, want 422", q, r.Status, r.Raw)
		}
	}
	// List items are whole calendars.
	r := e.Do("GET", apitest.Path(e.Campaign, "/calendars?name=late"), e.Admin, nil)
	if d := r.List()[0].(map[string]any); d["id"] != float64(late) || jsonOf(d["years"]) != "{}" || d["date"] != "1-1-1" || len(d["months"].([]any)) != 2 {
		t.Fatalf("list item: %s", r.Raw)
	}
}

func TestPaginationFollowsNextLinks(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	for i := 0; i < 7; i++ {
		c := timeline.Calendar{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID}, Owner: domain.Owner{Name: fmt.Sprintf("C%d", i)}, Date: timeline.DefaultCalendarDate,
			Months: []calengine.Month{{Name: "A", Length: 3, Type: calengine.Standard}, {Name: "B", Length: 3, Type: calengine.Standard}}, Weekdays: []string{"X", "Y"}}
		if err := calstore.New(e.Store).CreateCalendar(context.Background(), &c); err != nil {
			t.Fatal(err)
		}
	}
	next := e.Server.URL + apitest.Path(e.Campaign, "/calendars?limit=3")
	var ids []int64
	pages := 0
	for next != "" {
		if pages++; pages > 4 {
			t.Fatal("next links never end")
		}
		u, _ := url.Parse(next)
		e.Counter.Reset()
		r := e.Do("GET", u.RequestURI(), e.Admin, nil)
		if n := e.Counter.N(); n > 3 {
			t.Errorf("page %d cost %d DynamoDB calls, want at most 3", pages, n)
		}
		meta := r.Body["meta"].(map[string]any)
		if meta["total"] != float64(7) || meta["per_page"] != float64(3) || meta["current_page"] != float64(pages) || meta["last_page"] != float64(3) {
			t.Fatalf("page %d meta: %v", pages, meta)
		}
		for _, it := range r.List() {
			ids = append(ids, int64(it.(map[string]any)["id"].(float64)))
		}
		links := r.Body["links"].(map[string]any)
		if _, present := links["next"]; !present {
			t.Fatal("next must be present (null on the last page)")
		}
		next, _ = links["next"].(string)
	}
	if pages != 3 || len(ids) != 7 {
		t.Fatalf("got %d pages and %d items, want 3 and 7", pages, len(ids))
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("ids not ascending: %v", ids)
		}
	}
}
