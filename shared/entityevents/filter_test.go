package entityevents_test

import (
	"fmt"
	"testing"
)

func TestEventListsTakeKankasFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, f.entity, f.Admin, f.event("name", "Founding of the Keep"))
	f.create(t, f.entity, f.Member, f.event("name", "Siege"))
	f.create(t, f.entity, f.Admin, f.event("name", "Secret Siege", "is_private", true))
	cases := []struct {
		query, token, want string
	}{
		{"name=siege", f.Admin, "[Siege Secret Siege]"},
		{"name=!siege", f.Admin, "[Founding of the Keep]"},
		{"name=siege!;!secret", f.Admin, "[Siege]"},
		{"is_private=true", f.Admin, "[Secret Siege]"},
		{fmt.Sprintf("created_by=%d", f.MemberID), f.Admin, "[Siege]"},
		{"name=secret", f.Member, "[]"},
		{"is_private=1", f.Member, "[]"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r := f.Do("GET", eventsOf(f.Campaign, f.entity)+"?"+c.query, c.token, nil)
			got := []string{}
			for _, it := range r.List() {
				got = append(got, it.(map[string]any)["name"].(string))
			}
			if r.Status != 200 || fmt.Sprint(got) != c.want || r.Body["meta"].(map[string]any)["total"] != float64(len(got)) {
				t.Fatalf("%d %v (%v), want %s", r.Status, got, r.Body["meta"], c.want)
			}
		})
	}
	if r := f.Do("GET", eventsOf(f.Campaign, f.entity)+"?updated_by=x", f.Admin, nil); r.Status != 422 || r.Errors()["updated_by"] == nil {
		t.Fatalf("bad updated_by: %d %s", r.Status, r.Raw)
	}
}

// A calendar's reminders are filtered in memory, by the same rules as the store's lists.
func TestCalendarRemindersTakeKankasFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, f.entity, f.Admin, f.event("name", "Founding of the Keep"))
	f.create(t, f.entity, f.Member, f.event("name", "Siege"))
	f.create(t, f.entity, f.Admin, f.event("name", "Secret Siege", "is_private", true))
	path := fmt.Sprintf("/api/1.0/campaigns/%d/calendars/%d/reminders", f.Campaign, f.cal)
	for _, c := range []struct{ query, token, want string }{
		{"name=siege;!secret", f.Admin, "[Siege]"},
		{"name=!siege", f.Admin, "[Founding of the Keep]"},
		{"is_private=1", f.Admin, "[Secret Siege]"},
		{fmt.Sprintf("created_by=%d", f.MemberID), f.Admin, "[Siege]"},
		{"name=secret", f.Member, "[]"},
	} {
		r := f.Do("GET", path+"?"+c.query, c.token, nil)
		got := []string{}
		for _, it := range r.List() {
			got = append(got, it.(map[string]any)["name"].(string))
		}
		if r.Status != 200 || fmt.Sprint(got) != c.want || r.Body["meta"].(map[string]any)["total"] != float64(len(got)) {
			t.Errorf("%s: %d %v, want %s", c.query, r.Status, got, c.want)
		}
	}
	if r := f.Do("GET", path+"?tags_option=x&created_by=me", f.Admin, nil); r.Status != 422 || r.Errors()["created_by"] == nil {
		t.Errorf("bad created_by: %d %s", r.Status, r.Raw)
	}
}
