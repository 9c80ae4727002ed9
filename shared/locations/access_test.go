package locations_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/token"
)

func create(t *testing.T, e *apitest.Env, cid int64, token string, body map[string]any) int64 {
	t.Helper()
	e.EnsureBodyTags(cid, body)
	r := e.Do("POST", apitest.Path(cid, "/locations"), token, body)
	if r.Status != 200 {
		t.Fatalf("create %v: %d %s", body, r.Status, r.Raw)
	}
	return int64(r.Data()["id"].(float64))
}

func loc(cid, id int64) string { return apitest.Path(cid, fmt.Sprintf("/locations/%d", id)) }

func TestUnauthenticatedRequestsGet401(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	open := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Open"})
	revoked := e.Token(e.AdminID, 0)
	if err := e.Store.Tokens().Revoke(context.Background(), token.Hash(revoked)); err != nil {
		t.Fatal(err)
	}
	raw, tok, _ := token.New(e.AdminID, time.Hour, time.Now().Add(-2*time.Hour))
	if err := e.Store.Tokens().Put(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	unknown, _, _ := token.New(e.AdminID, 0, time.Now())
	for name, header := range map[string]string{
		"no token":      "",
		"not bearer":    "Basic " + e.Admin,
		"malformed":     "Bearer abc.def",
		"garbage parts": "Bearer a.b.c",
		"unknown":       "Bearer " + unknown,
		"revoked":       "Bearer " + revoked,
		"expired":       "Bearer " + raw,
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.Server.URL+loc(e.Campaign, open), nil)
			if header != "" {
				req.Header.Set("Authorization", header)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 401 || res.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("got %d %q, want 401 application/json", res.StatusCode, res.Header.Get("Content-Type"))
			}
		})
	}
	if r := e.Do("GET", loc(e.Campaign, open), e.Admin, nil); r.Status != 200 {
		t.Fatalf("a valid token must still work: %d", r.Status)
	}
}

// TestAccessMatrix checks every role against public and private locations, in a private and a
// public campaign: reads, writes, and what a refused write leaves behind.
func TestAccessMatrix(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	e.OwnerAccessMatrix(t, apitest.AccessMatrix{
		Collection: "/locations",
		Create:     func(t *testing.T, cid int64, body map[string]any) int64 { return create(t, e, cid, e.Admin, body) },
		StoredName: func(ctx context.Context, cid, id int64) (string, error) {
			r, err := locstore.New(e.Store).GetLocation(ctx, cid, id)
			if err != nil {
				return "", err
			}
			return r.Name, nil
		},
	})
}

func TestOnlyAdminsMakeLocationsPrivate(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	p := apitest.Path(e.Campaign, "/locations")
	if r := e.Do("POST", p, e.Member, map[string]any{"name": "Secret", "is_private": true}); r.Status != 403 {
		t.Fatalf("member create private: %d %s", r.Status, r.Raw)
	}
	id := create(t, e, e.Campaign, e.Member, map[string]any{"name": "Mine"})
	if r := e.Do("PATCH", loc(e.Campaign, id), e.Member, map[string]any{"is_private": "1"}); r.Status != 403 {
		t.Fatalf("member update to private: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("PATCH", loc(e.Campaign, id), e.Member, map[string]any{"is_private": false}); r.Status != 200 {
		t.Fatalf("member keeping it public: %d %s", r.Status, r.Raw)
	}
	page := e.Do("GET", p, e.Admin, nil)
	if n := page.Body["meta"].(map[string]any)["total"].(float64); n != 1 {
		t.Fatalf("refused creates must store nothing: total %v", n)
	}
	l, _ := locstore.New(e.Store).GetLocation(context.Background(), e.Campaign, id)
	if l.IsPrivate {
		t.Fatal("refused update made the location private")
	}
	if r := e.Do("PATCH", loc(e.Campaign, id), e.Admin, map[string]any{"is_private": true}); r.Status != 200 || r.Data()["is_private"] != true {
		t.Fatalf("admin makes private: %d %s", r.Status, r.Raw)
	}
	// The member's exact total drops with the location it can no longer see.
	if r := e.Do("GET", p, e.Member, nil); r.Body["meta"].(map[string]any)["total"].(float64) != 0 || len(r.List()) != 0 {
		t.Fatalf("member list after privatising: %s", r.Raw)
	}
}

func TestOtherCampaignsRecordsAreNotFound(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, locations.Register)
	// Ids count per campaign: theirs are made to run past ours, so that they name nothing here.
	for i := 0; i < 3; i++ {
		create(t, e, e.OtherCampaign, e.Stranger, map[string]any{"name": "Filler"})
	}
	theirs := create(t, e, e.OtherCampaign, e.Stranger, map[string]any{"name": "Theirs"})
	ours := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Ours"})
	e.Do("POST", loc(e.OtherCampaign, theirs)+"/map_points", e.Stranger, map[string]any{"name": "F", "axis_x": 1, "axis_y": 2, "colour": "red", "shape": "circle", "size": "small", "icon": "pin"})
	point := e.Do("POST", loc(e.OtherCampaign, theirs)+"/map_points", e.Stranger, map[string]any{"name": "X", "axis_x": 1, "axis_y": 2, "colour": "red", "shape": "circle", "size": "small", "icon": "pin"})
	if point.Status != 200 {
		t.Fatalf("map point: %d %s", point.Status, point.Raw)
	}
	pid := int64(point.Data()["id"].(float64))
	ourPoint := e.Do("POST", loc(e.Campaign, ours)+"/map_points", e.Admin, map[string]any{"name": "Y", "axis_x": 1, "axis_y": 2, "colour": "red", "shape": "circle", "size": "small", "icon": "pin"})
	ourPID := int64(ourPoint.Data()["id"].(float64))
	second := create(t, e, e.Campaign, e.Admin, map[string]any{"name": "Second"})

	for _, c := range []struct {
		name, method, path string
	}{
		{"their location through our campaign", "GET", loc(e.Campaign, theirs)},
		{"their campaign", "GET", loc(e.OtherCampaign, theirs)},
		{"update their location", "PATCH", loc(e.OtherCampaign, theirs)},
		{"delete their location", "DELETE", loc(e.OtherCampaign, theirs)},
		{"their map point through our location", "GET", fmt.Sprintf("%s/map_points/%d", loc(e.Campaign, ours), pid)},
		{"our map point under another location", "GET", fmt.Sprintf("%s/map_points/%d", loc(e.Campaign, second), ourPID)},
		{"update our map point under another location", "PATCH", fmt.Sprintf("%s/map_points/%d", loc(e.Campaign, second), ourPID)},
		{"delete our map point under another location", "DELETE", fmt.Sprintf("%s/map_points/%d", loc(e.Campaign, second), ourPID)},
		{"campaign id not a number", "GET", "/api/1.0/campaigns/abc/locations"},
		{"location id not a number", "GET", apitest.Path(e.Campaign, "/locations/1x")},
		{"location id beyond 2^53", "GET", apitest.Path(e.Campaign, "/locations/99999999999999999999")},
		{"missing campaign", "GET", "/api/1.0/campaigns/999999/locations"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(c.method, c.path, e.Admin, map[string]any{"name": "Hijacked"})
			if r.Status != 404 || r.Body["message"] != "Not found." {
				t.Fatalf("got %d %s, want 404", r.Status, r.Raw)
			}
		})
	}
	// A parent from another campaign is a validation error, and stores nothing.
	r := e.Do("PATCH", loc(e.Campaign, ours), e.Admin, map[string]any{"parent_location_id": theirs})
	if r.Status != 422 || r.Errors()["parent_location_id"] == nil {
		t.Fatalf("foreign parent: %d %s", r.Status, r.Raw)
	}
	if l, _ := locstore.New(e.Store).GetLocation(context.Background(), e.OtherCampaign, theirs); l.Name != "Theirs" {
		t.Fatalf("their location changed: %+v", l)
	}
	if p, _ := locstore.New(e.Store).GetMapPoint(context.Background(), e.Campaign, ours, ourPID); p == nil || *p.Name != "Y" {
		t.Fatalf("our map point changed or vanished: %+v", p)
	}
}
