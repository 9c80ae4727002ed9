package calendars_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func TestCreateWithEveryArrayReadsBackTheExactStructures(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	e.EnsureTags(e.Campaign, 3)
	r := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, fullBody())
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	id := int64(r.Data()["id"].(float64))
	show := e.Do("GET", cal(e.Campaign, id), e.Member, nil)
	if show.Status != 200 {
		t.Fatalf("show: %d %s", show.Status, show.Raw)
	}
	for name, d := range map[string]map[string]any{"create": r.Data(), "show": show.Data()} {
		want := map[string]string{
			"months":   `[{"length":30,"name":"Ice","type":"standard"},{"length":28,"name":"Thaw","type":"standard"},{"length":2,"name":"Festival","type":"intercalary"},{"length":30,"name":"Bloom","type":"standard"}]`,
			"weekdays": `["One","Two","Three","Four","Five"]`,
			"years":    `{"-4":"Year of Ash","1":"Year of Mist"}`,
			"seasons":  `[{"day":15,"month":2,"name":"Spring"},{"day":10,"month":4,"name":"Winter"}]`,
			"moons":    `[{"colour":"white","fullmoon":"29.5","id":1,"name":"Selune","offset":0},{"colour":"red","fullmoon":"2.50","id":7,"name":"Tiny","offset":-1}]`,
			"epochs":   `[{"name":"Before"},{"name":"After"}]`,
			"date":     `"4-2-28"`, "parameters": `null`, "tags": `[3,1]`, "type": `"Solar"`, "suffix": `"DR"`,
			"start_offset": `2`, "has_leap_year": `true`, "leap_year_amount": `1`, "leap_year_month": `2`,
			"leap_year_offset": `4`, "leap_year_start": `0`, "skip_year_zero": `false`, "is_private": `false`,
			"image": `""`, "image_full": `""`, "image_thumb": `""`, "has_custom_image": `false`,
			"entry":      `"\u003cp\u003eThe \u003cb\u003ereckoning\u003c/b\u003e\u003c/p\u003e"`,
			"created_by": jsonOf(e.AdminID), "updated_by": jsonOf(e.AdminID), "name": `"Harptos"`,
			"entity_image_uuid": `null`, "entity_header_uuid": `null`,
		}
		for k, v := range want {
			if got := jsonOf(d[k]); got != v {
				t.Errorf("%s: %s = %s, want %s", name, k, got, v)
			}
		}
		for _, k := range []string{"created_at", "updated_at"} {
			if s, _ := d[k].(string); len(s) != len("2019-01-30T00:01:44.000000Z") || !strings.HasSuffix(s, "Z") {
				t.Errorf("%s: %s = %q, want six fraction digits and Z", name, k, s)
			}
		}
		if eid, _ := d["entity_id"].(float64); eid < 1 {
			t.Errorf("%s: no entity id: %v", name, d["entity_id"])
		}
	}
	// Stored as sent, and the entity exists with the calendar's name.
	c, err := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id)
	if err != nil {
		t.Fatal(err)
	}
	if c.Date != (calengine.Date{Year: 4, Month: 2, Day: 28}) || c.Moons[0].Fullmoon != "29.5" || c.Moons[1].ID != 7 || c.Years[-4] != "Year of Ash" || c.Version != 1 {
		t.Fatalf("stored: %+v", c)
	}
	ent, err := e.Store.GetEntity(context.Background(), e.Campaign, c.EntityID)
	if err != nil || ent.Type != "calendar" || ent.ChildID != id || ent.Name != "Harptos" {
		t.Fatalf("entity: %+v %v", ent, err)
	}
}

func TestNewCalendarDefaultsAreExplicit(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	r := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Member, plainBody("Plain"))
	d := r.Data()
	if r.Status != 200 || d["date"] != "1-1-1" || jsonOf(d["years"]) != "{}" || jsonOf(d["moons"]) != "[]" ||
		jsonOf(d["seasons"]) != "[]" || jsonOf(d["epochs"]) != "[]" || jsonOf(d["tags"]) != "[]" || d["created_by"] != float64(e.MemberID) ||
		d["has_custom_image"] != false || d["image"] != "" || jsonOf(d["months"]) != `[{"length":30,"name":"A","type":"standard"},{"length":30,"name":"B","type":"standard"}]` {
		t.Fatalf("defaults: %d %s", r.Status, r.Raw)
	}
}

func TestPartialUpdatesKeepTheStructures(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, fullBody())
	before := e.Do("GET", cal(e.Campaign, id), e.Admin, nil).Data()
	structures := []string{"months", "weekdays", "years", "seasons", "moons", "epochs", "tags", "entry", "type", "suffix", "image"}

	for _, method := range []string{"PATCH", "PUT"} {
		r := e.Do(method, cal(e.Campaign, id), e.Admin, map[string]any{"name": "Renamed " + method, "current_day": 25})
		if r.Status != 200 || r.Data()["name"] != "Renamed "+method || r.Data()["date"] != "4-2-25" {
			t.Fatalf("%s: %d %s", method, r.Status, r.Raw)
		}
		for _, k := range structures {
			if jsonOf(r.Data()[k]) != jsonOf(before[k]) {
				t.Errorf("%s changed %s: %s, was %s", method, k, jsonOf(r.Data()[k]), jsonOf(before[k]))
			}
		}
	}
	stored, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id)
	if len(stored.Months) != 4 || len(stored.Moons) != 2 || len(stored.Seasons) != 2 || stored.Version != 3 {
		t.Fatalf("stored after partial updates: %+v", stored)
	}
	if ent, _ := e.Store.GetEntity(context.Background(), e.Campaign, stored.EntityID); ent.Name != "Renamed PUT" {
		t.Fatalf("entity name did not follow: %+v", ent)
	}

	// A driver array replaces its structure only; an empty one clears an optional structure.
	r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"moon_name": []any{}, "weekday": []any{"Sun", "Moon"}, "year_number": []any{}})
	if r.Status != 200 || jsonOf(r.Data()["moons"]) != "[]" || jsonOf(r.Data()["weekdays"]) != `["Sun","Moon"]` || jsonOf(r.Data()["years"]) != "{}" ||
		jsonOf(r.Data()["months"]) != jsonOf(before["months"]) || jsonOf(r.Data()["seasons"]) != jsonOf(before["seasons"]) {
		t.Fatalf("replacing some structures: %d %s", r.Status, r.Raw)
	}
	// Replacing the months with ones the current date does not fit is refused.
	r = e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"month_name": []any{"A", "B", "C", "D"}, "month_length": []any{30, 20, 2, 30}})
	if r.Status != 422 || r.Errors()["current_day"] == nil {
		t.Fatalf("months that drop the current date: %d %s", r.Status, r.Raw)
	}
	if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); len(c.Months) != 4 {
		t.Fatalf("a refused update stored months: %+v", c.Months)
	}
}

func TestFormBodiesBuildTheSameStructures(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	form := url.Values{
		"name": {"Form"}, "month_name[]": {"Ice", "Thaw"}, "month_length[]": {"30", "28"}, "month_type[]": {"standard", "intercalary"},
		"weekday[]": {"One", "Two"}, "moon_name[]": {"Selune"}, "moon_fullmoon[]": {"29.53"}, "moon_offset[]": {""},
		"year_number[]": {"12"}, "year_name[]": {"Year of Mist"}, "is_private": {"0"}, "has_leap_year": {"false"},
	}
	r := e.DoRaw("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if r.Status != 200 || jsonOf(r.Data()["moons"]) != `[{"colour":"grey","fullmoon":"29.53","id":1,"name":"Selune","offset":0}]` ||
		jsonOf(r.Data()["years"]) != `{"12":"Year of Mist"}` || jsonOf(r.Data()["months"]) != `[{"length":30,"name":"Ice","type":"standard"},{"length":28,"name":"Thaw","type":"intercalary"}]` {
		t.Fatalf("form create: %d %s", r.Status, r.Raw)
	}
	// Read-only and unknown fields are ignored.
	r = e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, with(plainBody("Ignored"), "id", 99, "entity_id", 98, "created_by", 5, "parameters", "x", "date", "9-9-9"))
	if r.Status != 200 || r.Data()["id"] == float64(99) || r.Data()["entity_id"] == float64(98) || r.Data()["created_by"] != float64(e.AdminID) || r.Data()["date"] != "1-1-1" {
		t.Fatalf("read-only fields: %d %s", r.Status, r.Raw)
	}
}

func TestGalleryImagesNeedASuperboostedCampaign(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	uuid := "0B0E6A4E-6A43-4D5C-A2A1-5F3B2C1D0E9F"
	r := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, with(plainBody("A"), "entity_image_uuid", uuid))
	if r.Status != 422 || r.Errors()["entity_image_uuid"] == nil {
		t.Fatalf("not superboosted: %d %s", r.Status, r.Raw)
	}
	c, err := campstore.New(e.Store).CreateCampaign(context.Background(), domain.Campaign{Name: "Boosted", OwnerID: e.AdminID, Boost: domain.BoostSuperboosted})
	if err != nil {
		t.Fatal(err)
	}
	r = e.Do("POST", apitest.Path(c.ID, "/calendars"), e.Admin, with(plainBody("A"), "entity_header_uuid", uuid))
	if r.Status != 200 || r.Data()["entity_header_uuid"] != strings.ToLower(uuid) {
		t.Fatalf("superboosted: %d %s", r.Status, r.Raw)
	}
}

// Kanka's `format`: stored as sent, answered (null when unset), used for date_formatted (the
// current date as Kanka displays it), kept by partial updates, removed by null or "".
func TestKankaDateFormat(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	id := create(t, e, e.Campaign, e.Admin, fullBody()) // 4-2-28 DR, year 4 unnamed
	steps := []struct {
		name       string
		body       map[string]any
		format     any
		formatted  string
		storedWant string
	}{
		{"unset: Kanka's default", nil, nil, "28 Thaw, 4 DR", ""},
		{"a format", map[string]any{"format": " Y-m-d (M) s "}, "Y-m-d (M) s", "4-2-28 (Thaw) DR", "Y-m-d (M) s"},
		{"kept by a partial update", map[string]any{"current_day": 3}, "Y-m-d (M) s", "4-2-3 (Thaw) DR", "Y-m-d (M) s"},
		{"a named year", map[string]any{"current_year": 1, "format": "d M y"}, "d M y", "3 Thaw Year of Mist", "d M y"},
		{"null removes it", map[string]any{"format": nil}, nil, "3 Thaw, Year of Mist DR", ""},
		{"a one-letter format", map[string]any{"format": "d"}, "d", "3", "d"},
		{"empty", map[string]any{"format": ""}, nil, "3 Thaw, Year of Mist DR", ""},
	}
	for _, s := range steps {
		r := e.Do("GET", cal(e.Campaign, id), e.Admin, nil)
		if s.body != nil {
			r = e.Do("PATCH", cal(e.Campaign, id), e.Admin, s.body)
		}
		if d := r.Data(); r.Status != 200 || d["format"] != s.format || d["date_formatted"] != s.formatted {
			t.Fatalf("%s: %d format %v date_formatted %v, want %v %q", s.name, r.Status, d["format"], d["date_formatted"], s.format, s.formatted)
		}
		if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); c.Format != s.storedWant {
			t.Fatalf("%s: stored %q, want %q", s.name, c.Format, s.storedWant)
		}
	}
	r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"format": strings.Repeat("d", 192)})
	if r.Status != 422 || r.Errors()["format"] == nil {
		t.Fatalf("a 192-character format: %d %s", r.Status, r.Raw)
	}
	if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); c.Format != "" {
		t.Fatalf("a refused format was stored: %q", c.Format)
	}
	// The list answers it too.
	l := e.Do("GET", apitest.Path(e.Campaign, "/calendars"), e.Admin, nil)
	if rows := l.List(); l.Status != 200 || len(rows) != 1 || rows[0].(map[string]any)["date_formatted"] != "3 Thaw, Year of Mist DR" {
		t.Fatalf("list: %d %s", l.Status, l.Raw)
	}
}
