package compat_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// The clients' first screens (issue 18): the routes they start with, before any record.

// nextOf is a list's links.next as a path, "" on the last page.
func (w *world) nextOf(t *testing.T, body map[string]any) string {
	t.Helper()
	next, _ := body["links"].(map[string]any)["next"].(string)
	if next == "" {
		return ""
	}
	u, err := url.Parse(next)
	if err != nil || !strings.HasPrefix(next, w.Server.URL) {
		t.Fatalf("links.next %q", next)
	}
	return u.RequestURI()
}

// The Foundry VTT importer opens with its campaign picker: the token's campaigns, then the
// chosen one, then Kanka's modules, then each module's entities by code, with related data,
// filed by module.code, each child fetched from urls.api.
func TestFoundryImporterCampaignPicker(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	list := w.get(t, w.Member, "campaigns")
	var picked map[string]any
	for _, c := range list.List() {
		if m := c.(map[string]any); m["id"] == float64(w.Campaign) {
			picked = m
		}
	}
	if picked == nil || picked["name"] == nil || len(list.List()) != 2 {
		t.Fatalf("campaigns = %s", list.Raw)
	}
	campaign := w.get(t, w.Member, fmt.Sprintf("campaigns/%d", w.Campaign)).Data()
	if campaign["id"] != picked["id"] || campaign["name"] != picked["name"] || campaign["urls"].(map[string]any)["api"] == nil {
		t.Errorf("campaigns/%d = %v", w.Campaign, campaign)
	}
	types := w.get(t, w.Member, fmt.Sprintf("campaigns/%d/entity_types", w.Campaign)).List()
	global := w.get(t, w.Member, "entity-types").List()
	if len(types) != len(domain.Modules) || len(global) != len(domain.Modules) {
		t.Fatalf("entity types %v / %v", types, global)
	}
	byCode := map[string][]int64{}
	for _, et := range types {
		m := et.(map[string]any)
		code := m["code"].(string)
		next := fmt.Sprintf("/api/1.0/campaigns/%d/entities?types=%s&related=1&limit=2", w.Campaign, code)
		for i := 0; next != ""; i++ {
			r := w.get(t, w.Member, next)
			for _, it := range r.List() {
				e := it.(map[string]any)
				module, _ := e["module"].(map[string]any)
				if module == nil || module["code"] != code || module["id"] != m["id"] {
					t.Fatalf("entity %v under module %v: module %v", e["id"], code, e["module"])
				}
				child, _ := e["child"].(map[string]any)
				if child == nil || child["image_thumb"] == nil || child["has_custom_image"] == nil {
					t.Errorf("entity %v child = %v", e["id"], e["child"])
				}
				record := w.get(t, w.Member, e["urls"].(map[string]any)["api"].(string)).Data()
				if record["id"] != e["child_id"] || record["entity_id"] != e["id"] {
					t.Errorf("entity %v: urls.api answered %v", e["id"], record)
				}
				byCode[code] = append(byCode[code], int64(e["id"].(float64)))
			}
			next = w.nextOf(t, r.Body)
			if i > 20 {
				t.Fatal("pages never end")
			}
		}
	}
	all := slices.Concat(byCode["location"], byCode["calendar"])
	slices.Sort(all)
	if !slices.Equal(all, w.entityIDs) || len(byCode["calendar"]) != 2 {
		t.Errorf("entities by module %v, want %v", byCode, w.entityIDs)
	}
}

// The blanky0230 terminal client starts at campaigns?include=members (its schema requires
// `members`, `visibility` public or private, `visibility_id`, timestamps) and refreshes the
// chosen campaign with campaigns/{id}.
func TestBlankyCLIStartsAtTheCampaignList(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.get(t, w.Member, "campaigns?include=members")
	check := func(what string, c map[string]any) {
		t.Helper()
		if v := c["visibility"]; v != "public" && v != "private" {
			t.Errorf("%s visibility %v", what, v)
		}
		checkModel(t, what, c, map[string]string{"id": "int", "name": "str", "visibility_id": "int", "created_at": "time", "updated_at": "time"})
		members, ok := c["members"].([]any)
		if !ok || len(members) != 5 {
			t.Fatalf("%s members = %v", what, c["members"])
		}
		for _, m := range members {
			mm := m.(map[string]any)
			u, _ := mm["user"].(map[string]any)
			if u == nil || u["id"] != mm["id"] || u["name"] == "" {
				t.Errorf("%s member %v", what, mm)
			}
			if _, has := u["avatar"]; !has {
				t.Errorf("%s member %v has no avatar", what, mm)
			}
		}
		if s, ok := c["settings"].(map[string]any); !ok || s == nil {
			t.Errorf("%s settings = %v", what, c["settings"])
		}
	}
	for _, c := range r.List() {
		check("listed campaign", c.(map[string]any))
	}
	check("refreshed campaign", w.get(t, w.Member, fmt.Sprintf("campaigns/%d", w.Campaign)).Data())
}

// pykanka finds a campaign by name: GET campaigns, following links.next until the name shows.
func TestPykankaFindsACampaignByName(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		c, err := campstore.New(w.Store).CreateCampaign(ctx, domain.Campaign{Name: fmt.Sprint("Side quest ", i), OwnerID: w.AdminID})
		if err != nil {
			t.Fatal(err)
		}
		if err := campstore.New(w.Store).SetMember(ctx, domain.Membership{CampaignID: c.ID, UserID: w.MemberID, Role: domain.RoleViewer}); err != nil {
			t.Fatal(err)
		}
	}
	find := func(name string) (map[string]any, int) {
		next, pages := "/api/1.0/campaigns?limit=2", 0
		for next != "" {
			r := w.get(t, w.Member, next)
			pages++
			for _, c := range r.List() {
				if m := c.(map[string]any); m["name"] == name {
					return m, pages
				}
			}
			next = w.nextOf(t, r.Body)
		}
		return nil, pages
	}
	c, pages := find("Side quest 3")
	if c == nil || pages != 3 {
		t.Fatalf("Side quest 3 found on page %d: %v", pages, c)
	}
	if got := w.get(t, w.Member, fmt.Sprintf("campaigns/%v", c["id"])).Data(); got["name"] != "Side quest 3" {
		t.Errorf("campaign %v = %v", c["id"], got)
	}
	if c, pages := find("Not a campaign"); c != nil || pages != 3 {
		t.Errorf("a missing name: %v after %d pages", c, pages)
	}
}

// Henry-Sarabia/kanka reads the token's user from `profile` (its Profile struct).
func TestHenrySarabiaReadsTheProfile(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.get(t, w.Member, "profile").Data()
	checkModel(t, "profile", p, map[string]string{"id": "int", "name": "str", "locale": "str", "timezone": "str",
		"date_format": "str", "default_pagination": "int", "last_campaign_id": "int", "is_patreon": "bool"})
	if p["id"] != float64(w.MemberID) || p["last_campaign_id"] != float64(w.PublicCampaign) {
		t.Errorf("profile = %v", p)
	}
}

// python-kanka, pykanka and byronwolfman search a campaign by name (`search/{term}`): each hit
// in Kanka's entity shape, its module code in `type`, its record readable at urls.api; what
// the caller may not see (a private location for a member) is never a hit.
func TestClientsSearchTheCampaign(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	search := func(token, term string) map[string]map[string]any {
		t.Helper()
		hits := map[string]map[string]any{}
		for next := fmt.Sprintf("campaigns/%d/search/%s", w.Campaign, url.PathEscape(term)); next != ""; {
			r := w.get(t, token, next)
			for _, h := range r.List() {
				m := h.(map[string]any)
				hits[m["name"].(string)] = m
			}
			next = w.nextOf(t, r.Body)
		}
		return hits
	}
	names := func(hits map[string]map[string]any) []string {
		var out []string
		for n := range hits {
			out = append(out, n)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		token, term string
		want        []string
	}{
		{w.Member, "de", []string{"Seeded tag", "Tide Reckoning", "Waterdeep"}},
		{w.Admin, "de", []string{"Seeded tag", "Tide Reckoning", "Undermountain", "Waterdeep"}},
		{w.Member, "TIDE", []string{"Tide Reckoning"}},
		{w.Member, "Baldur's", []string{"Baldur's Gate"}},
		{w.Member, "no such place", nil},
	} {
		hits := search(c.token, c.term)
		if got := names(hits); !slices.Equal(got, c.want) {
			t.Errorf("search %q: %v, want %v", c.term, got, c.want)
			continue
		}
		for name, h := range hits {
			wantType := "location"
			switch {
			case strings.HasPrefix(name, "Tide"):
				wantType = "calendar"
			case strings.HasPrefix(name, "Seeded"):
				wantType = "tag"
			}
			if h["type"] != wantType || h["entity_id"] == nil || h["id"] == nil {
				t.Errorf("hit %s: %v", name, h)
			}
			api, _ := h["urls"].(map[string]any)["api"].(string)
			if rec := w.get(t, c.token, api).Data(); rec["name"] != name {
				t.Errorf("hit %s: urls.api %s answers %v", name, api, rec)
			}
		}
	}
}
