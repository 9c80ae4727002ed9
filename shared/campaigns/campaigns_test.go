package campaigns_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

func ids(r apitest.Response, key string) []int64 {
	out := []int64{}
	for _, it := range r.List() {
		out = append(out, int64(it.(map[string]any)[key].(float64)))
	}
	return out
}

func campaignPath(cid int64) string { return fmt.Sprintf("/api/1.0/campaigns/%d", cid) }

// The profile is the token's user in Kanka's shape (both eras' fields), with the campaign it
// joined last; one DynamoDB call.
func TestProfileIsTheTokensUser(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	for _, c := range []struct {
		name  string
		token string
		id    int64
		last  any
	}{
		{"member", e.Member, e.MemberID, float64(e.PublicCampaign)}, // joined the private campaign, then the public one
		{"outsider", e.Outsider, e.OutsiderID, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", "/api/1.0/profile", c.token, nil)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if n := e.Counter.N(); n != 1 {
				t.Errorf("%d DynamoDB calls, want 1", n)
			}
			want := map[string]any{"id": float64(c.id), "name": c.name, "avatar": nil, "avatar_thumb": nil, "locale": "en",
				"timezone": "UTC", "date_format": "Y-m-d", "default_pagination": float64(45), "last_campaign_id": c.last,
				"is_patreon": false, "is_subscriber": false, "rate_limit": float64(1 << 30)}
			for k, v := range want {
				if got, ok := r.Data()[k]; !ok || fmt.Sprint(got) != fmt.Sprint(v) {
					t.Errorf("%s = %v, want %v", k, got, v)
				}
			}
		})
	}
	if r := e.Do("GET", "/api/1.0/profile", "", nil); r.Status != 401 {
		t.Errorf("without a token: %d", r.Status)
	}
}

// GET campaigns lists the caller's memberships only, paged like every list; the stranger's
// campaign is not the member's, the outsider has none.
func TestCampaignListIsTheCallersCampaigns(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	for _, c := range []struct {
		name  string
		token string
		want  []int64
	}{
		{"admin", e.Admin, []int64{e.Campaign, e.PublicCampaign}},
		{"viewer", e.Viewer, []int64{e.Campaign, e.PublicCampaign}},
		{"stranger", e.Stranger, []int64{e.OtherCampaign}},
		{"outsider", e.Outsider, []int64{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", "/api/1.0/campaigns", c.token, nil)
			if r.Status != 200 || !slices.Equal(ids(r, "id"), c.want) {
				t.Fatalf("%d %s, want %v", r.Status, r.Raw, c.want)
			}
			if n := e.Counter.N(); n > 3 {
				t.Errorf("%d DynamoDB calls, want at most 3", n)
			}
			if meta := r.Body["meta"].(map[string]any); meta["total"] != float64(len(c.want)) {
				t.Errorf("meta = %v", meta)
			}
			for _, it := range r.List() {
				if m := it.(map[string]any); m["entry_parsed"] != "not available on the campaigns/ endpoint" || m["members"] != nil {
					t.Errorf("listed campaign = %v", m)
				}
			}
		})
	}
	// Page by page through links.next, as pykanka does.
	var got []int64
	next := "/api/1.0/campaigns?limit=1"
	for i := 0; next != "" && i < 5; i++ {
		r := e.Do("GET", next, e.Member, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", next, r.Status, r.Raw)
		}
		got = append(got, ids(r, "id")...)
		next, _ = r.Body["links"].(map[string]any)["next"].(string)
		if next != "" {
			u, _ := url.Parse(next)
			next = u.RequestURI()
		}
	}
	if !slices.Equal(got, []int64{e.Campaign, e.PublicCampaign}) {
		t.Errorf("paged campaigns = %v", got)
	}
	// include=members: each campaign with its members and their roles.
	r := e.Do("GET", "/api/1.0/campaigns?include=members", e.Member, nil)
	if r.Status != 200 || len(r.List()) != 2 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	for _, it := range r.List() {
		members, _ := it.(map[string]any)["members"].([]any)
		var uids []int64
		for _, m := range members {
			uids = append(uids, int64(m.(map[string]any)["id"].(float64)))
		}
		want := []int64{e.AdminID, e.Admin2ID, e.MemberID, e.Member2ID, e.ViewerID}
		if !slices.Equal(uids, want) {
			t.Errorf("members %v, want %v", uids, want)
		}
	}
}

// lastSync on GET campaigns filters on the campaign's updated_at: a campaign created after
// the sync is listed, the older ones are not.
func TestCampaignListLastSync(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	first := e.Do("GET", "/api/1.0/campaigns", e.Admin, nil)
	apitest.WaitPastSync(t, first.Body["sync"].(string))
	c, err := campstore.New(e.Store).CreateCampaign(context.Background(), domain.Campaign{Name: "Later", OwnerID: e.AdminID})
	if err != nil {
		t.Fatal(err)
	}
	r := e.Do("GET", "/api/1.0/campaigns?lastSync="+url.QueryEscape(first.Body["sync"].(string)), e.Admin, nil)
	if r.Status != 200 || !slices.Equal(ids(r, "id"), []int64{c.ID}) {
		t.Errorf("%d %s, want campaign %d only", r.Status, r.Raw, c.ID)
	}
}

// A campaign is shown to its members (with its members) and, when public, to anyone (without
// them); anything else is a 404 like a missing campaign.
func TestCampaignShowAccess(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	ctx := context.Background()
	rich, err := campstore.New(e.Store).CreateCampaign(ctx, domain.Campaign{Name: "Realms", OwnerID: e.AdminID, IsPublic: true, Boost: domain.BoostBoosted,
		Locale: "fr", Entry: "<p>Hello <script>x</script>world</p>", ImageURL: "https://img.example/r.png"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		token   string
		cid     int64
		status  int
		members bool
	}{
		{"admin of the private campaign", e.Admin, e.Campaign, 200, true},
		{"member", e.Member, e.Campaign, 200, true},
		{"viewer", e.Viewer, e.Campaign, 200, true},
		{"outsider of the private campaign", e.Outsider, e.Campaign, 404, false},
		{"outsider of the public campaign", e.Outsider, e.PublicCampaign, 200, false},
		{"member of another campaign", e.Member, e.OtherCampaign, 404, false},
		{"missing campaign", e.Admin, 999999, 404, false},
		{"not an id", e.Admin, 0, 404, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", campaignPath(c.cid)+"?include=members", c.token, nil)
			if r.Status != c.status {
				t.Fatalf("%d %s, want %d", r.Status, r.Raw, c.status)
			}
			if c.status != 200 {
				return
			}
			if n := e.Counter.N(); n > 2 {
				t.Errorf("%d DynamoDB calls, want at most 2", n)
			}
			d := r.Data()
			visibility, vid := "private", 1.0
			if c.cid == e.PublicCampaign {
				visibility, vid = "public", 3
			}
			want := map[string]any{"id": float64(c.cid), "slug": fmt.Sprint(c.cid), "name": "c", "locale": "en", "visibility": visibility,
				"visibility_id": vid, "boosted": false, "premium": false, "is_hidden": false, "follower": 0.0, "image": ""}
			for k, v := range want {
				if fmt.Sprint(d[k]) != fmt.Sprint(v) {
					t.Errorf("%s = %v, want %v", k, d[k], v)
				}
			}
			if api := d["urls"].(map[string]any)["api"]; api != e.Server.URL+campaignPath(c.cid) {
				t.Errorf("urls.api = %v", api)
			}
			if _, has := d["members"]; has != c.members {
				t.Errorf("members shown: %v, want %v (%v)", has, c.members, d["members"])
			}
		})
	}
	// Kanka's campaign fields, as the CLI stored them.
	r := e.Do("GET", campaignPath(rich.ID), e.Outsider, nil)
	want := map[string]any{"name": "Realms", "locale": "fr", "entry": "<p>Hello world</p>", "entry_parsed": "<p>Hello world</p>",
		"image": "https://img.example/r.png", "image_full": "https://img.example/r.png", "image_thumb": "https://img.example/r.png",
		"boosted": true, "superboosted": false, "premium": true, "created_at": domain.FormatTime(rich.CreatedAt),
		"updated_at": domain.FormatTime(rich.UpdatedAt), "settings": map[string]any{}, "default_images": []any{}}
	for k, v := range want {
		if fmt.Sprint(r.Data()[k]) != fmt.Sprint(v) {
			t.Errorf("%s = %v, want %v", k, r.Data()[k], v)
		}
	}
}

// The users route: members of every role list the members and their roles (issue 18; Kanka:
// admins only); a public campaign's other readers get 403, outsiders of a private one 404.
func TestCampaignUsersAccess(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	for _, c := range []struct {
		name   string
		token  string
		cid    int64
		status int
	}{
		{"admin", e.Admin, e.Campaign, 200},
		{"member", e.Member, e.Campaign, 200},
		{"viewer", e.Viewer, e.Campaign, 200},
		{"outsider of the public campaign", e.Outsider, e.PublicCampaign, 403},
		{"outsider of the private campaign", e.Outsider, e.Campaign, 404},
		{"member of another campaign", e.Member, e.OtherCampaign, 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", campaignPath(c.cid)+"/users", c.token, nil)
			if r.Status != c.status {
				t.Fatalf("%d %s, want %d", r.Status, r.Raw, c.status)
			}
			if c.status != 200 {
				return
			}
			if n := e.Counter.N(); n > 2 {
				t.Errorf("%d DynamoDB calls, want at most 2", n)
			}
			if got := ids(r, "id"); !slices.Equal(got, []int64{e.AdminID, e.Admin2ID, e.MemberID, e.Member2ID, e.ViewerID}) {
				t.Errorf("users %v", got)
			}
			for _, it := range r.List() {
				u := it.(map[string]any)
				role := u["role"].([]any)[0].(map[string]any)
				wantRole := map[float64]string{float64(e.AdminID): "Admin", float64(e.Admin2ID): "Admin", float64(e.MemberID): "Member",
					float64(e.Member2ID): "Member", float64(e.ViewerID): "Viewer"}[u["id"].(float64)]
				if role["name"] != wantRole || role["is_admin"] != (wantRole == "Admin") || u["avatar"] != nil || u["name"] == "" {
					t.Errorf("user %v, want role %s", u, wantRole)
				}
			}
			if total := r.Body["meta"].(map[string]any)["total"]; total != 5.0 {
				t.Errorf("total %v", total)
			}
		})
	}
	// A role change is a change since the last sync, and counts nothing twice.
	first := e.Do("GET", campaignPath(e.Campaign)+"/users", e.Admin, nil)
	apitest.WaitPastSync(t, first.Body["sync"].(string))
	if err := campstore.New(e.Store).SetMember(context.Background(), domain.Membership{CampaignID: e.Campaign, UserID: e.ViewerID, Role: domain.RoleMember}); err != nil {
		t.Fatal(err)
	}
	r := e.Do("GET", campaignPath(e.Campaign)+"/users?lastSync="+url.QueryEscape(first.Body["sync"].(string)), e.Admin, nil)
	if got := ids(r, "id"); !slices.Equal(got, []int64{e.ViewerID}) || r.List()[0].(map[string]any)["role"].([]any)[0].(map[string]any)["name"] != "Member" {
		t.Errorf("users since the sync: %s", r.Raw)
	}
	if all := e.Do("GET", campaignPath(e.Campaign)+"/users", e.Admin, nil); all.Body["meta"].(map[string]any)["total"] != 5.0 {
		t.Errorf("total after a role change: %v", all.Body["meta"])
	}
	for _, cid := range []int64{e.Campaign, e.PublicCampaign} {
		if problems, err := ops.Audit(context.Background(), e.Store, cid); err != nil || len(problems) > 0 {
			t.Errorf("audit of campaign %d: %v %v", cid, problems, err)
		}
	}
}

// Entity types: Kanka's ids and codes of the modules Lorekeep serves, globally and per
// campaign (whose access rules apply), without reading anything but the access.
func TestEntityTypes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	for _, path := range []string{"/api/1.0/entity-types", "/api/1.0/entity_types", campaignPath(e.PublicCampaign) + "/entity_types"} {
		e.Counter.Reset()
		r := e.Do("GET", path, e.Outsider, nil)
		if r.Status != 200 || !slices.Equal(ids(r, "id"), servedIDs()) {
			t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		}
		if n := e.Counter.N(); n > 1 {
			t.Errorf("%s: %d DynamoDB calls", path, n)
		}
		loc := r.List()[slices.Index(servedIDs(), 3)].(map[string]any)
		if loc["code"] != "location" || loc["singular"] != "Location" || loc["plural"] != "Locations" || loc["is_enabled"] != true {
			t.Errorf("%s: %v", path, loc)
		}
	}
	if r := e.Do("GET", campaignPath(e.Campaign)+"/entity_types", e.Outsider, nil); r.Status != 404 {
		t.Errorf("an outsider's entity types of a private campaign: %d", r.Status)
	}
	if r := e.Do("GET", "/api/1.0/entity-types?limit=1&page=2", e.Member, nil); r.Status != 200 || !slices.Equal(ids(r, "id"), servedIDs()[1:2]) {
		t.Errorf("page 2: %d %s", r.Status, r.Raw)
	}
}

// The routes outside the campaign prefix answer HEAD and 405 like every route.
func TestAccountRoutesMethods(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	for _, path := range []string{"/api/1.0/profile", "/api/1.0/campaigns", "/api/1.0/entity-types", campaignPath(e.Campaign)} {
		if r := e.Do("HEAD", path, e.Member, nil); r.Status != 200 {
			t.Errorf("HEAD %s: %d", path, r.Status)
		}
		r := e.Do("POST", path, e.Member, map[string]any{})
		if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("POST %s: %d Allow %q", path, r.Status, r.Header.Get("Allow"))
		}
	}
}

// Kanka's users/{user}: one member and its role, to the readers of the list; a user who is not
// a member (an outsider, another campaign's member, a bad id) is a 404; one read.
func TestCampaignUserShow(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	for _, c := range []struct {
		name   string
		token  string
		cid    int64
		path   string
		status int
		role   string
	}{
		{"admin reads a viewer", e.Admin, e.Campaign, fmt.Sprint(e.ViewerID), 200, "Viewer"},
		{"viewer reads an admin", e.Viewer, e.Campaign, fmt.Sprint(e.Admin2ID), 200, "Admin"},
		{"member reads itself", e.Member, e.Campaign, fmt.Sprint(e.MemberID), 200, "Member"},
		{"not a member", e.Admin, e.Campaign, fmt.Sprint(e.OutsiderID), 404, ""},
		{"unknown user", e.Admin, e.Campaign, "999999", 404, ""},
		{"bad id", e.Admin, e.Campaign, "abc", 404, ""},
		{"outsider of the public campaign", e.Outsider, e.PublicCampaign, fmt.Sprint(e.AdminID), 403, ""},
		{"outsider of the private campaign", e.Outsider, e.Campaign, fmt.Sprint(e.AdminID), 404, ""},
		{"member of another campaign", e.Member, e.OtherCampaign, fmt.Sprint(e.MemberID), 404, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			r := e.Do("GET", campaignPath(c.cid)+"/users/"+c.path, c.token, nil)
			if r.Status != c.status {
				t.Fatalf("%d %s, want %d", r.Status, r.Raw, c.status)
			}
			if c.status != 200 {
				return
			}
			if n := e.Counter.N(); n > 2 {
				t.Errorf("%d DynamoDB calls, want at most 2", n)
			}
			u := r.Data()
			role := u["role"].([]any)[0].(map[string]any)
			if fmt.Sprint(u["id"]) != c.path || role["name"] != c.role || u["avatar"] != nil {
				t.Errorf("user %v, want %s as %s", u, c.path, c.role)
			}
		})
	}
}

// servedIDs are the ids of the modules served, in Kanka's order.
func servedIDs() []int64 {
	var out []int64
	for _, m := range domain.Modules {
		out = append(out, int64(m.ID))
	}
	return out
}
