package campaigns

import (
	"strconv"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// campaignJSON is a campaign as Kanka answers it today (CampaignResource), with what Lorekeep
// does not have at Kanka's unset values: no slugs (the id as a string), no web page, no
// settings, followers or hidden campaigns. Kanka's visibility_id: 1 private, 3 public.
type campaignJSON struct {
	ID            int64          `json:"id"`
	Slug          string         `json:"slug"`
	Name          string         `json:"name"`
	Locale        string         `json:"locale"`
	Entry         string         `json:"entry"`
	EntryParsed   string         `json:"entry_parsed"`
	Image         string         `json:"image"`
	ImageFull     string         `json:"image_full"`
	ImageThumb    string         `json:"image_thumb"`
	Visibility    string         `json:"visibility"`
	VisibilityID  int            `json:"visibility_id"`
	CreatedAt     domain.Time    `json:"created_at"`
	UpdatedAt     domain.Time    `json:"updated_at"`
	Settings      map[string]any `json:"settings"`
	UISettings    map[string]any `json:"ui_settings"`
	DefaultImages []any          `json:"default_images"`
	Follower      int            `json:"follower"`
	Boosted       bool           `json:"boosted"`
	Superboosted  bool           `json:"superboosted"`
	Premium       bool           `json:"premium"`
	IsHidden      bool           `json:"is_hidden"`
	URLs          urlsJSON       `json:"urls"`
	Members       []memberJSON   `json:"members,omitempty"`
	MembersCount  *int           `json:"members_count,omitempty"`
}

type urlsJSON struct {
	View *string `json:"view"`
	API  string  `json:"api"`
}

// memberJSON is one of a campaign's `members` (Kanka's CampaignUserResource): the member id
// is the user's.
type memberJSON struct {
	ID   int64    `json:"id"`
	User userJSON `json:"user"`
}

// userJSON is a member as Kanka's users route answers it (UserResource, without its joke
// `password` field); roles are fixed: 1 Admin, 2 Member, 3 Viewer.
type userJSON struct {
	ID     int64      `json:"id"`
	Name   string     `json:"name"`
	Avatar *string    `json:"avatar"`
	Role   []roleJSON `json:"role"`
}

type roleJSON struct {
	ID      int    `json:"id"`
	Name    string `json:"name"`
	IsAdmin bool   `json:"is_admin"`
}

var roles = map[domain.Role]roleJSON{
	domain.RoleAdmin:  {ID: 1, Name: "Admin", IsAdmin: true},
	domain.RoleMember: {ID: 2, Name: "Member"},
	domain.RoleViewer: {ID: 3, Name: "Viewer"},
}

func renderUser(m *domain.Membership) userJSON {
	return userJSON{ID: m.UserID, Name: m.Name, Role: []roleJSON{roles[m.Role]}}
}

func renderCampaign(r *httpapi.Request, c *domain.Campaign, entryParsed string) campaignJSON {
	locale := c.Locale
	if locale == "" {
		locale = "en"
	}
	j := campaignJSON{ID: c.ID, Slug: strconv.FormatInt(c.ID, 10), Name: c.Name, Locale: locale, Entry: c.Entry, EntryParsed: entryParsed,
		Image: c.ImageURL, ImageFull: c.ImageURL, ImageThumb: c.ImageURL, Visibility: "private", VisibilityID: 1,
		CreatedAt: domain.Time(c.CreatedAt), UpdatedAt: domain.Time(c.UpdatedAt), Settings: map[string]any{}, UISettings: map[string]any{},
		DefaultImages: []any{}, Boosted: c.Boost != domain.BoostNone && c.Boost != "", Superboosted: c.Boost == domain.BoostSuperboosted,
		URLs: urlsJSON{API: r.AbsoluteURL(httpapi.AccountPrefix + "/campaigns/" + strconv.FormatInt(c.ID, 10))}}
	j.Premium = j.Boosted
	if c.IsPublic {
		j.Visibility, j.VisibilityID = "public", 3
	}
	return j
}

// showMembers sets `members` to the first MaxMembersShown of ms, and `members_count` (n, all
// of them) when that cuts some.
func (j *campaignJSON) showMembers(ms []domain.Membership, n int) {
	j.Members = make([]memberJSON, 0, min(len(ms), MaxMembersShown))
	for i := range ms[:min(len(ms), MaxMembersShown)] {
		j.Members = append(j.Members, memberJSON{ID: ms[i].UserID, User: renderUser(&ms[i])})
	}
	if n > MaxMembersShown {
		j.MembersCount = &n
	}
}

// profileJSON is Kanka's ProfileResource, today's fields (is_subscriber, rate_limit) beside
// 2022's. Lorekeep has no avatars or subscriptions.
type profileJSON struct {
	ID                int64   `json:"id"`
	Name              string  `json:"name"`
	Avatar            *string `json:"avatar"`
	AvatarThumb       *string `json:"avatar_thumb"`
	Locale            string  `json:"locale"`
	Timezone          string  `json:"timezone"`
	DateFormat        string  `json:"date_format"`
	DefaultPagination int     `json:"default_pagination"`
	LastCampaignID    *int64  `json:"last_campaign_id"`
	IsPatreon         bool    `json:"is_patreon"`
	IsSubscriber      bool    `json:"is_subscriber"`
	RateLimit         int     `json:"rate_limit"`
}

func renderProfile(u domain.User, rateLimit int) profileJSON {
	j := profileJSON{ID: u.ID, Name: u.Name, Locale: u.Locale, Timezone: u.Timezone, DateFormat: u.DateFormat,
		DefaultPagination: u.DefaultPagination, RateLimit: rateLimit}
	if u.LastCampaignID != 0 {
		j.LastCampaignID = &u.LastCampaignID
	}
	return j
}

// entityTypeJSON is Kanka's global module (EntityTypeResource); Lorekeep keeps no icons.
type entityTypeJSON struct {
	ID        int    `json:"id"`
	Code      string `json:"code"`
	Singular  string `json:"singular"`
	Plural    string `json:"plural"`
	Icon      string `json:"icon"`
	IsSpecial bool   `json:"is_special"`
	IsEnabled bool   `json:"is_enabled"`
}

// campaignEntityTypeJSON is a campaign's module (Kanka's campaigns/{id}/entity_types).
type campaignEntityTypeJSON struct {
	ID        int    `json:"id"`
	Code      string `json:"code"`
	Singular  string `json:"singular"`
	Plural    string `json:"plural"`
	Icon      string `json:"icon"`
	IsCustom  bool   `json:"is_custom"`
	IsEnabled bool   `json:"is_enabled"`
	IsNested  bool   `json:"is_nested"`
	HasTable  bool   `json:"has_table"`
}
