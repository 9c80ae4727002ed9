package calendars_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestAccessMatrix checks every role against public and private calendars, in a private and a
// public campaign: reads, writes (Lorekeep's advance, retreat and day view included), and what a
// refused write leaves behind.
func TestAccessMatrix(t *testing.T) {
	e := apitest.New(t, register)
	type want struct{ listCount, showOpen, showHidden, daysHidden, create, updateOpen, advanceOpen, updateHidden, retreatHidden, deleteHidden int }
	cases := []struct {
		name     string
		campaign func() int64
		token    func() string
		want     want
	}{
		{"admin of private campaign", func() int64 { return e.Campaign }, func() string { return e.Admin }, want{2, 200, 200, 200, 200, 200, 200, 200, 200, 200}},
		{"member of private campaign", func() int64 { return e.Campaign }, func() string { return e.Member }, want{1, 200, 404, 404, 200, 200, 200, 404, 404, 404}},
		{"viewer of private campaign", func() int64 { return e.Campaign }, func() string { return e.Viewer }, want{1, 200, 404, 404, 403, 403, 403, 403, 403, 403}},
		{"non-member of private campaign", func() int64 { return e.Campaign }, func() string { return e.Outsider }, want{-1, 404, 404, 404, 404, 404, 404, 404, 404, 404}},
		{"non-member of public campaign", func() int64 { return e.PublicCampaign }, func() string { return e.Outsider }, want{1, 200, 404, 404, 403, 403, 403, 403, 403, 403}},
		{"member of public campaign", func() int64 { return e.PublicCampaign }, func() string { return e.Member }, want{1, 200, 404, 404, 200, 200, 200, 404, 404, 404}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cid, tok := c.campaign(), c.token()
			// Each case counts only its own two calendars, typed with a name of its own.
			typ := fmt.Sprintf("case%d", i)
			open := create(t, e, cid, e.Admin, with(plainBody("Open"), "type", typ))
			hidden := create(t, e, cid, e.Admin, with(plainBody("Hidden"), "type", typ, "is_private", true))
			list := e.Do("GET", apitest.Path(cid, "/calendars?type="+typ), tok, nil)
			if c.want.listCount < 0 {
				if list.Status != 404 {
					t.Fatalf("list: got %d, want 404", list.Status)
				}
			} else if list.Status != 200 || len(list.List()) != c.want.listCount || list.Body["meta"].(map[string]any)["total"].(float64) != float64(c.want.listCount) {
				t.Fatalf("list: got %d %s, want %d items and total", list.Status, list.Raw, c.want.listCount)
			}
			check := func(what string, got apitest.Response, want int) {
				t.Helper()
				if got.Status != want {
					t.Errorf("%s: got %d %s, want %d", what, got.Status, got.Raw, want)
				}
			}
			check("show open", e.Do("GET", cal(cid, open), tok, nil), c.want.showOpen)
			check("show hidden", e.Do("GET", cal(cid, hidden), tok, nil), c.want.showHidden)
			check("days of hidden", e.Do("GET", cal(cid, hidden)+"/days", tok, nil), c.want.daysHidden)
			check("export of open", e.Do("GET", cal(cid, open)+"/export", tok, nil), c.want.showOpen)
			check("export of hidden", e.Do("GET", cal(cid, hidden)+"/export", tok, nil), c.want.daysHidden)
			check("create", e.Do("POST", apitest.Path(cid, "/calendars"), tok, plainBody("New")), c.want.create)
			check("update open", e.Do("PATCH", cal(cid, open), tok, map[string]any{"name": "Renamed"}), c.want.updateOpen)
			check("advance open", e.Do("POST", cal(cid, open)+"/advance", tok, nil), c.want.advanceOpen)
			check("update hidden", e.Do("PUT", cal(cid, hidden), tok, map[string]any{"name": "Renamed"}), c.want.updateHidden)
			check("retreat hidden", e.Do("POST", cal(cid, hidden)+"/retreat", tok, map[string]any{"days": 2}), c.want.retreatHidden)
			check("delete hidden", e.Do("DELETE", cal(cid, hidden), tok, nil), c.want.deleteHidden)

			// A refused write leaves the record as it was.
			h, err := e.Store.GetCalendar(context.Background(), cid, hidden)
			if c.want.deleteHidden != 200 {
				if err != nil || h.Name != "Hidden" || h.Date.String() != "1-1-1" || h.Version != 1 {
					t.Errorf("hidden calendar changed by a refused write: %+v %v", h, err)
				}
			} else if !errors.Is(err, apperr.ErrNotFound) {
				t.Errorf("deleted calendar still stored: %v", err)
			}
			o, _ := e.Store.GetCalendar(context.Background(), cid, open)
			if moved := c.want.advanceOpen == 200; moved != (o.Date.String() == "1-1-2") {
				t.Errorf("open calendar's date %s after advance answered %d", o.Date, c.want.advanceOpen)
			}
		})
	}
}

func TestOnlyAdminsMakeCalendarsPrivate(t *testing.T) {
	e := apitest.New(t, register)
	p := apitest.Path(e.Campaign, "/calendars")
	if r := e.Do("POST", p, e.Member, with(plainBody("Secret"), "is_private", true)); r.Status != 403 {
		t.Fatalf("member create private: %d %s", r.Status, r.Raw)
	}
	id := create(t, e, e.Campaign, e.Member, plainBody("Mine"))
	if r := e.Do("PATCH", cal(e.Campaign, id), e.Member, map[string]any{"is_private": "1"}); r.Status != 403 {
		t.Fatalf("member update to private: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("PATCH", cal(e.Campaign, id), e.Member, map[string]any{"is_private": false}); r.Status != 200 {
		t.Fatalf("member keeping it public: %d %s", r.Status, r.Raw)
	}
	if n := total(t, e, e.Campaign); n != 1 {
		t.Fatalf("refused creates must store nothing: total %v", n)
	}
	if c, _ := e.Store.GetCalendar(context.Background(), e.Campaign, id); c.IsPrivate {
		t.Fatal("refused update made the calendar private")
	}
	if r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"is_private": true}); r.Status != 200 || r.Data()["is_private"] != true {
		t.Fatalf("admin makes private: %d %s", r.Status, r.Raw)
	}
	c, _ := e.Store.GetCalendar(context.Background(), e.Campaign, id)
	if ent, _ := e.Store.GetEntity(context.Background(), e.Campaign, c.EntityID); !ent.IsPrivate {
		t.Fatal("the entity's privacy did not follow")
	}
	// The member's exact total drops with the calendar it can no longer see.
	if r := e.Do("GET", p, e.Member, nil); r.Body["meta"].(map[string]any)["total"].(float64) != 0 || len(r.List()) != 0 {
		t.Fatalf("member list after privatising: %s", r.Raw)
	}
}

func TestOtherCampaignsCalendarsAreNotFound(t *testing.T) {
	e := apitest.New(t, register)
	// Ids count per campaign: theirs are made to run past ours, so that they name nothing here.
	for i := 0; i < 3; i++ {
		create(t, e, e.OtherCampaign, e.Stranger, plainBody("Filler"))
	}
	theirs := create(t, e, e.OtherCampaign, e.Stranger, plainBody("Theirs"))
	create(t, e, e.Campaign, e.Admin, plainBody("Ours"))
	for _, c := range []struct{ name, method, path string }{
		{"their calendar through our campaign", "GET", cal(e.Campaign, theirs)},
		{"their campaign", "GET", cal(e.OtherCampaign, theirs)},
		{"update their calendar", "PATCH", cal(e.OtherCampaign, theirs)},
		{"delete their calendar", "DELETE", cal(e.OtherCampaign, theirs)},
		{"advance their calendar", "POST", cal(e.OtherCampaign, theirs) + "/advance"},
		{"their days", "GET", cal(e.OtherCampaign, theirs) + "/days"},
		{"their calendar's days through our campaign", "GET", cal(e.Campaign, theirs) + "/days"},
		{"their export", "GET", cal(e.OtherCampaign, theirs) + "/export"},
		{"their calendar's export through our campaign", "GET", cal(e.Campaign, theirs) + "/export"},
		{"calendar id not a number", "GET", apitest.Path(e.Campaign, "/calendars/1x")},
		{"calendar id beyond 2^53", "GET", apitest.Path(e.Campaign, "/calendars/99999999999999999999")},
		{"missing campaign", "GET", "/api/1.0/campaigns/999999/calendars"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(c.method, c.path, e.Admin, map[string]any{"name": "Hijacked"})
			if r.Status != 404 || r.Body["message"] != "Not found." {
				t.Fatalf("got %d %s, want 404", r.Status, r.Raw)
			}
		})
	}
	if c, _ := e.Store.GetCalendar(context.Background(), e.OtherCampaign, theirs); c.Name != "Theirs" || c.Version != 1 {
		t.Fatalf("their calendar changed: %+v", c)
	}
}
