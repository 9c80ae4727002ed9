package calendars_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestAccessMatrix checks every role against public and private calendars, in a private and a
// public campaign: reads, writes (Lorekeep's advance, retreat and day view, and the export,
// included), and what a refused write leaves behind.
func TestAccessMatrix(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	read, write := apitest.OwnerAccessChecks[0].Want, apitest.OwnerAccessChecks[3].Want // show open, update open
	hiddenRead, hiddenWrite := apitest.OwnerAccessChecks[1].Want, apitest.OwnerAccessChecks[4].Want
	e.OwnerAccessMatrix(t, apitest.AccessMatrix{
		Collection: "/calendars",
		NewBody:    plainBody("New"),
		Create: func(t *testing.T, cid int64, body map[string]any) int64 {
			full := plainBody(body["name"].(string))
			for k, v := range body {
				full[k] = v
			}
			return create(t, e, cid, e.Admin, full)
		},
		Checks: []apitest.AccessCheck{
			{What: "days of hidden", Method: "GET", On: "hidden", Suffix: "/days", Want: hiddenRead},
			{What: "export of open", Method: "GET", On: "open", Suffix: "/export", Want: read},
			{What: "export of hidden", Method: "GET", On: "hidden", Suffix: "/export", Want: hiddenRead},
			{What: "advance open", Method: "POST", On: "open", Suffix: "/advance", Want: write},
			{What: "retreat hidden", Method: "POST", On: "hidden", Suffix: "/retreat", Body: map[string]any{"days": 2}, Want: hiddenWrite},
		},
		Unchanged: func(ctx context.Context, cid, id int64) (string, error) {
			h, err := calstore.New(e.Store).GetCalendar(ctx, cid, id)
			if err == nil && (h.Name != "Hidden" || h.Date.String() != "1-1-1" || h.Version != 1) {
				return fmt.Sprintf("now %s on %s, version %d", h.Name, h.Date, h.Version), nil
			}
			return "", err
		},
		// The open calendar moved a day exactly when its advance was allowed.
		After: func(t *testing.T, role int, cid, open, _ int64) {
			o, _ := calstore.New(e.Store).GetCalendar(context.Background(), cid, open)
			if moved := write[role] == 200; moved != (o.Date.String() == "1-1-2") {
				t.Errorf("open calendar's date %s after advance answered %d", o.Date, write[role])
			}
		},
	})
}

func TestOnlyAdminsMakeCalendarsPrivate(t *testing.T) {
	t.Parallel()
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
	if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id); c.IsPrivate {
		t.Fatal("refused update made the calendar private")
	}
	if r := e.Do("PATCH", cal(e.Campaign, id), e.Admin, map[string]any{"is_private": true}); r.Status != 200 || r.Data()["is_private"] != true {
		t.Fatalf("admin makes private: %d %s", r.Status, r.Raw)
	}
	c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.Campaign, id)
	if ent, _ := e.Store.GetEntity(context.Background(), e.Campaign, c.EntityID); !ent.IsPrivate {
		t.Fatal("the entity's privacy did not follow")
	}
	// The member's exact total drops with the calendar it can no longer see.
	if r := e.Do("GET", p, e.Member, nil); r.Body["meta"].(map[string]any)["total"].(float64) != 0 || len(r.List()) != 0 {
		t.Fatalf("member list after privatising: %s", r.Raw)
	}
}

func TestOtherCampaignsCalendarsAreNotFound(t *testing.T) {
	t.Parallel()
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
	if c, _ := calstore.New(e.Store).GetCalendar(context.Background(), e.OtherCampaign, theirs); c.Name != "Theirs" || c.Version != 1 {
		t.Fatalf("their calendar changed: %+v", c)
	}
}
