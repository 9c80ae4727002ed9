package calendarmonth_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Each role sees the events the day view would show it: admin-only and private events never
// appear to others; one access read (with the calendar), then the events and the weather.
func TestMonthShowsWhatEachRoleMaySee(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	f := newFixture(t, e, e.PublicCampaign, harptos())
	cases := []struct {
		who, token string
		want       []string
	}{
		{"admin", e.Admin, []string{"Fair <b>day</b>", "Fair <b>day</b>", "Guild", "Council", "Plot"}},
		{"member", e.Member, []string{"Fair <b>day</b>", "Fair <b>day</b>", "Guild"}},
		{"outsider of the public campaign", e.Outsider, []string{"Fair <b>day</b>", "Fair <b>day</b>"}},
	}
	for _, c := range cases {
		e.Counter.Reset()
		r := e.Do("GET", f.path("/month?year=4&month=2"), c.token, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.who, r.Status, r.Raw)
		}
		if n := e.Counter.N(); n != 1+3 {
			t.Errorf("%s: %d DynamoDB calls, want 4 (access and calendar, two event queries, weather)", c.who, n)
		}
		if got := eventNames(r.Data()); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s sees %q, want %q", c.who, got, c.want)
		}
	}
	// The current month by default: Thaw of year 4 (a leap year: 29 days), 4-2-28 marked.
	m := e.Do("GET", f.path("/month"), e.Admin, nil).Data()
	if m["name"] != "Thaw" || m["year"] != 4.0 || m["days"] != 29.0 || m["current_date"] != "4-2-28" || m["year_text"] != "4, Year of Mist" {
		t.Errorf("default month: %v %v %v %v %q", m["name"], m["year"], m["days"], m["current_date"], m["year_text"])
	}
	// Thaw 1 of year 4 is weekday...: every day in its column, in order, one current day.
	current := 0
	for _, w := range m["weeks"].([]any) {
		for i, c := range arr(w.(map[string]any)["cells"]) {
			if c == nil {
				continue
			}
			d := c.(map[string]any)
			if d["weekday"] != []string{"One", "Two", "Three", "Four", "Five"}[i] {
				t.Errorf("%v in column %d is a %v", d["date"], i, d["weekday"])
			}
			if d["is_current"] == true {
				current++
			}
		}
	}
	if current != 1 {
		t.Errorf("%d current days, want 1", current)
	}
	// The intercalary month's days are outside the week.
	fest := e.Do("GET", f.path("/month?year=4&month=3"), e.Admin, nil).Data()
	weeks := fest["weeks"].([]any)
	if len(weeks) != 1 || len(arr(weeks[0].(map[string]any)["outside"])) != 2 || fest["is_intercalary"] != true {
		t.Errorf("Festival: %v", weeks)
	}
	if p, n := fest["previous"].(map[string]any), fest["next"].(map[string]any); p["name"] != "Thaw" || n["name"] != "Bloom" {
		t.Errorf("Festival's neighbours: %v %v", p, n)
	}
}

// The page is HTML to a browser: escaped text, a strict policy, not framable.
func TestMonthPageIsStrictHTML(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	f := newFixture(t, e, e.Campaign, harptos())
	res, body := page(t, e, f.path("/month?year=4&month=2"), e.Admin)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, want := range []string{"<table", `<th scope="col">One</th>`, "Harptos &lt;script&gt;", "Fair &lt;b&gt;day&lt;/b&gt;", `aria-current="date"`, "<h2"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, not := range []string{"<script>", "<b>day"} {
		if strings.Contains(body, not) {
			t.Errorf("page has %q", not)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") || res.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers: CSP %q, X-Frame-Options %q", csp, res.Header.Get("X-Frame-Options"))
	}
}

// Bad inputs name their field and change nothing; other campaigns' and hidden calendars are 404.
func TestMonthRefusesBadInput(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	f := newFixture(t, e, e.Campaign, harptos())
	priv := newFixture(t, e, e.Campaign, map[string]any{"name": "Secret", "is_private": true, "month_name": []any{"A", "B"}, "month_length": []any{30, 30}, "weekday": []any{"X", "Y"}})
	cases := []struct {
		name, path, token string
		status            int
		field             string
	}{
		{"month 0", f.path("/month?year=4&month=0"), e.Admin, 422, "month"},
		{"month 99", f.path("/month?month=99"), e.Admin, 422, "month"},
		{"year text", f.path("/month?year=x"), e.Admin, 422, "year"},
		{"huge year", f.path("/month?year=99999999999999999999"), e.Admin, 422, "year"},
		{"theme", f.path("/month?theme=neon"), e.Admin, 422, "theme"},
		{"embed without a share link", f.path("/month?embed=1"), e.Admin, 422, "embed"},
		{"svg theme", f.path("/month.svg?theme=neon"), e.Admin, 422, "theme"},
		{"private calendar to a member", priv.path("/month"), e.Member, 404, ""},
		{"another campaign's", apitest.Path(e.OtherCampaign, fmt.Sprintf("/calendars/%d/month", f.id)), e.Admin, 404, ""},
		{"no such calendar", apitest.Path(e.Campaign, "/calendars/999999/month"), e.Admin, 404, ""},
		{"share links by a member", f.path("/share_links"), e.Member, 403, ""},
	}
	for _, c := range cases {
		r := e.Do("GET", c.path, c.token, nil)
		if r.Status != c.status {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
		} else if c.field != "" && r.Errors()[c.field] == nil {
			t.Errorf("%s: errors %v, want %s", c.name, r.Errors(), c.field)
		}
	}
	writes := []struct {
		name   string
		token  string
		path   string
		body   any
		status int
		field  string
	}{
		{"no audience", e.Admin, f.path("/share_links"), map[string]any{}, 422, "audience"},
		{"unknown audience", e.Admin, f.path("/share_links"), map[string]any{"audience": "everyone"}, 422, "audience"},
		{"audience of a wrong type", e.Admin, f.path("/share_links"), map[string]any{"audience": 3}, 422, "audience"},
		{"expiry past", e.Admin, f.path("/share_links"), map[string]any{"audience": "public", "expires_at": "2001-01-01T00:00:00Z"}, 422, "expires_at"},
		{"expiry text", e.Admin, f.path("/share_links"), map[string]any{"audience": "public", "expires_at": "tomorrow"}, 422, "expires_at"},
		{"expiry too far", e.Admin, f.path("/share_links"), map[string]any{"audience": "public", "expires_at": "2999-01-01T00:00:00Z"}, 422, "expires_at"},
		{"a private calendar", e.Admin, priv.path("/share_links"), map[string]any{"audience": "member"}, 422, "audience"},
		{"by a member", e.Member, f.path("/share_links"), map[string]any{"audience": "public"}, 403, ""},
		{"by a viewer", e.Viewer, f.path("/share_links"), map[string]any{"audience": "public"}, 403, ""},
		{"revoke another calendar's", e.Admin, priv.path("/share_links/1"), nil, 404, ""},
	}
	for _, c := range writes {
		method := "POST"
		if c.body == nil {
			method = "DELETE"
		}
		r := e.Do(method, c.path, c.token, c.body)
		if r.Status != c.status {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
		} else if c.field != "" && r.Errors()[c.field] == nil {
			t.Errorf("%s: errors %v, want %s", c.name, r.Errors(), c.field)
		}
	}
	if l := e.Do("GET", f.path("/share_links"), e.Admin, nil).List(); len(l) != 0 {
		t.Errorf("refused writes stored links: %v", l)
	}
}

// A share link opens its calendar's month without a token, as its audience sees it; a
// guessed, altered, revoked or expired link opens nothing; framing only in embed mode.
func TestShareLinks(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	f := newFixture(t, e, e.Campaign, harptos())
	_, public := f.share(t, map[string]any{"audience": "public"})
	memberID, member := f.share(t, map[string]any{"audience": "member", "expires_at": nil})
	if l := e.Do("GET", f.path("/share_links"), e.Admin, nil).List(); len(l) != 2 || l[0].(map[string]any)["url"] != nil {
		t.Fatalf("list: %v", l)
	}
	for _, c := range []struct {
		path      string
		want, not []string
	}{
		{public, []string{"Fair &lt;b&gt;day"}, []string{"Guild", "Council", "Plot"}},
		{member, []string{"Fair &lt;b&gt;day", "Guild"}, []string{"Council", "Plot"}},
	} {
		e.Counter.Reset()
		res, body := page(t, e, c.path+"?year=4&month=2", "")
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", c.path, res.StatusCode, body)
		}
		if n := e.Counter.N(); n != 1+2+1 {
			t.Errorf("open: %d DynamoDB calls, want 4 (link and calendar in one batch, two event queries, weather)", n)
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", c.path, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(body, n) {
				t.Errorf("%s shows %q", c.path, n)
			}
		}
		if res.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("a page of its own is framable: %v", res.Header)
		}
	}
	res, _ := page(t, e, public+"?embed=1&theme=dark", "")
	if csp := res.Header.Get("Content-Security-Policy"); res.StatusCode != 200 || res.Header.Get("X-Frame-Options") != "" || !strings.Contains(csp, "frame-ancestors *") {
		t.Errorf("embed: %d, X-Frame-Options %q, CSP %q", res.StatusCode, res.Header.Get("X-Frame-Options"), csp)
	}
	// Guessed and altered tokens cost no read.
	tok := strings.TrimPrefix(public, "/share/")
	altered := tok[:10] + string("AB"[strings.IndexByte("AB", tok[10])+1&1]) + tok[11:]
	for _, bad := range []string{"/share/x", "/share/" + altered, "/share/" + strings.Repeat("A", len(tok))} {
		e.Counter.Reset()
		if res, _ := page(t, e, bad, ""); res.StatusCode != 404 || e.Counter.N() != 0 {
			t.Errorf("%s: %d after %d calls", bad, res.StatusCode, e.Counter.N())
		}
	}
	// Revoked: the link's URL opens nothing, its image neither.
	if r := e.Do("DELETE", f.path(fmt.Sprintf("/share_links/%d", memberID)), e.Admin, nil); r.Status != 200 {
		t.Fatalf("revoke: %d %s", r.Status, r.Raw)
	}
	for _, p := range []string{member, member + "/month.svg"} {
		if res, _ := page(t, e, p, ""); res.StatusCode != 404 {
			t.Errorf("revoked %s: %d", p, res.StatusCode)
		}
	}
	if r := e.Do("DELETE", f.path(fmt.Sprintf("/share_links/%d", memberID)), e.Admin, nil); r.Status != 404 {
		t.Errorf("revoked twice: %d", r.Status)
	}
	// Expired.
	at := time.Now().Add(1500 * time.Millisecond).UTC()
	_, soon := f.share(t, map[string]any{"audience": "public", "expires_at": at.Format(time.RFC3339Nano)})
	apitest.WaitPast(at.Truncate(time.Second).Add(time.Second))
	if res, body := page(t, e, soon, ""); res.StatusCode != 404 || !strings.Contains(body, "expired") {
		t.Errorf("expired: %d %s", res.StatusCode, body)
	}
	// The calendar made private since: the link opens nothing.
	if r := e.Do("PATCH", f.path(""), e.Admin, map[string]any{"is_private": true}); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if res, _ := page(t, e, public, ""); res.StatusCode != 404 {
		t.Errorf("private since: %d", res.StatusCode)
	}
	// The audit knows the links' items and their count (two live: the public and the expired).
	if problems, err := ops.Audit(context.Background(), e.Store, f.cid); err != nil || len(problems) > 0 {
		t.Errorf("audit: %v %q", err, problems)
	}
}

// The image is well-formed XML with a cell per day of the week rows and the moons drawn.
func TestMonthImageIsXML(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	f := newFixture(t, e, e.Campaign, harptos())
	req, _ := http.NewRequest("GET", e.Server.URL+f.path("/month.svg?year=4&month=2"), nil)
	req.Header.Set("Authorization", "Bearer "+e.Admin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("%d %s %s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	dec := xml.NewDecoder(strings.NewReader(string(body)))
	days, moons, texts := 0, 0, []string{}
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, body)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			inText = v.Name.Local == "text"
			for _, a := range v.Attr {
				if a.Name.Local == "class" && strings.HasPrefix(a.Value, "day") {
					days++
				}
			}
			if v.Name.Local == "path" {
				moons++
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(v))
			}
		case xml.EndElement:
			inText = false
		}
	}
	all := strings.Join(texts, "|")
	if days != 29 || moons == 0 || !strings.Contains(all, "Fair <b>day</b>") || !strings.Contains(all, "Harptos <script>") {
		t.Errorf("%d days, %d moons, texts %q", days, moons, all)
	}
}

// A 1,500-day month with 100 moons of a day's period and events covering it: the page shows
// the first 1,000 days, the first 2,000 event entries and moon phases, and says so.
func TestMonthIsBounded(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	moons, full := make([]any, 100), make([]any, 100)
	for i := range moons {
		moons[i], full[i] = fmt.Sprint("Moon ", i), 1
	}
	body := map[string]any{"name": "Long", "month_name": []any{"Age", "Rest"}, "month_length": []any{1500, 3}, "weekday": []any{"A", "B", "C"},
		"moon_name": moons, "moon_fullmoon": full, "current_year": 1, "current_month": 1, "current_day": 1}
	r := e.Do("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, body)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	id, entity := int64(r.Data()["id"].(float64)), r.Data()["entity_id"]
	for i := 0; i < 3; i++ {
		ev := map[string]any{"name": fmt.Sprint("Long ", i), "calendar_id": id, "day": 1, "month": 1, "year": 1, "length": 1000}
		if r := e.Do("POST", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%v/entity_events", entity)), e.Admin, ev); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	m := e.Do("GET", apitest.Path(e.Campaign, fmt.Sprintf("/calendars/%d/month", id)), e.Admin, nil)
	if m.Status != 200 {
		t.Fatalf("%d %s", m.Status, m.Raw)
	}
	omitted := jsonText(m.Data()["omitted"])
	for _, want := range []string{"1500 days: the first 1000", "more than 2000 event entries", "more than 2000 moon phases"} {
		if !strings.Contains(omitted, want) {
			t.Errorf("omitted %s lacks %q", omitted, want)
		}
	}
	if n := len(eventNames(m.Data())); n > 2000 {
		t.Errorf("%d event entries shown", n)
	}
	res, page := page(t, e, apitest.Path(e.Campaign, fmt.Sprintf("/calendars/%d/month", id)), e.Admin)
	if res.StatusCode != 200 || !strings.Contains(page, "Not everything fits") || len(page) > 3<<20 {
		t.Errorf("page: %d, %d bytes", res.StatusCode, len(page))
	}
}

func jsonText(v any) string { return fmt.Sprint(v) }
