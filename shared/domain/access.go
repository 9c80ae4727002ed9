package domain

import (
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// Role is a user's role in a campaign. RolePublic is an authenticated user who is not a member
// of a public campaign: a reader who sees what every member may see, minus `member` records.
type Role string

const (
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
	RoleViewer Role = "viewer"
	RolePublic Role = "public"
)

// ParseRole accepts the roles a membership can hold.
func ParseRole(s string) (Role, bool) {
	switch r := Role(s); r {
	case RoleAdmin, RoleMember, RoleViewer:
		return r, true
	}
	return "", false
}

// Boost is a campaign's boost level; some features need one.
type Boost string

const (
	BoostNone         Boost = "none"
	BoostBoosted      Boost = "boosted"
	BoostSuperboosted Boost = "superboosted"
)

// ParseBoost accepts the boost levels.
func ParseBoost(s string) (Boost, bool) {
	switch b := Boost(s); b {
	case BoostNone, BoostBoosted, BoostSuperboosted:
		return b, true
	}
	return "", false
}

// Campaign is a tenant: every record belongs to exactly one. What Kanka's campaign shape shows
// beyond access (locale, entry, image, times) is written by the CLI that creates campaigns.
type Campaign struct {
	ID       int64
	Name     string
	IsPublic bool
	Boost    Boost
	OwnerID  int64
	// Locale is the campaign's language (Kanka's `locale`, "en" when unset).
	Locale    string
	Entry     string // sanitised HTML
	ImageURL  string
	CreatedAt time.Time
	UpdatedAt time.Time
	Version   int64
}

// Membership is a user's role in a campaign, with the user's name copied from the user (so
// that a campaign's member list reads its own partition only) and when it was given.
type Membership struct {
	CampaignID int64
	UserID     int64
	Role       Role
	Name       string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Access is what the caller may do in the campaign of the request. It is decided once per request
// by ResolveAccess; every rule about roles, privacy and visibility is a method here.
type Access struct {
	UserID     int64
	CampaignID int64
	Role       Role
	Boost      Boost
}

// ResolveAccess decides whether user may enter campaign c at all. A campaign that does not
// exist and a private campaign the user is not a member of are indistinguishable (404).
func ResolveAccess(userID int64, c *Campaign, m *Membership) (Access, error) {
	if c == nil {
		return Access{}, apperr.ErrNotFound
	}
	a := Access{UserID: userID, CampaignID: c.ID, Role: RolePublic, Boost: c.Boost}
	if m != nil {
		a.Role = m.Role
		return a, nil
	}
	if !c.IsPublic {
		return Access{}, apperr.ErrNotFound
	}
	return a, nil
}

// IsAdmin reports whether the caller administers the campaign.
func (a Access) IsAdmin() bool { return a.Role == RoleAdmin }

// IsMember reports whether the caller belongs to the campaign (any role).
func (a Access) IsMember() bool {
	return a.Role == RoleAdmin || a.Role == RoleMember || a.Role == RoleViewer
}

// CanWrite returns apperr.ErrForbidden unless the caller may create, update and delete records.
func (a Access) CanWrite() error {
	if a.Role == RoleAdmin || a.Role == RoleMember {
		return nil
	}
	return apperr.ErrForbidden
}

// CanSee reports whether a record with the given is_private flag is visible to the caller.
func (a Access) CanSee(isPrivate bool) bool { return !isPrivate || a.IsAdmin() }

// VisibilityScope lists the visibilities whose records the caller sees whoever created them, and
// those it sees only on records it created itself. CanSeeVisibility and the store's list filters
// both derive from it, so a list never shows what a read would refuse.
func (a Access) VisibilityScope() (anyone, own []Visibility) {
	own = []Visibility{VisibilitySelf, VisibilitySelfAdmin}
	switch {
	case a.IsAdmin():
		return []Visibility{VisibilityAll, VisibilityMember, VisibilityAdmin, VisibilitySelfAdmin}, own
	case a.IsMember():
		return []Visibility{VisibilityAll, VisibilityMember}, own
	}
	return []Visibility{VisibilityAll}, own
}

// CanSeeVisibility applies the visibility of an entity event or note created by createdBy.
func (a Access) CanSeeVisibility(v Visibility, createdBy int64) bool {
	if v == "" {
		v = VisibilityAll
	}
	anyone, own := a.VisibilityScope()
	for _, x := range anyone {
		if x == v {
			return true
		}
	}
	if createdBy == a.UserID {
		for _, x := range own {
			if x == v {
				return true
			}
		}
	}
	return false
}

// Visibility of entity events and notes.
type Visibility string

const (
	VisibilityAll       Visibility = "all"
	VisibilitySelf      Visibility = "self"
	VisibilityMember    Visibility = "member"
	VisibilityAdmin     Visibility = "admin"
	VisibilitySelfAdmin Visibility = "self-admin"
)

// ParseVisibility accepts the spec's spellings, Kanka's (`members`, `admin-self`) and Kanka's
// visibility_id numbers 1..5.
func ParseVisibility(s string) (Visibility, bool) {
	switch s {
	case "all", "1":
		return VisibilityAll, true
	case "admin", "2":
		return VisibilityAdmin, true
	case "self-admin", "admin-self", "3":
		return VisibilitySelfAdmin, true
	case "self", "4":
		return VisibilitySelf, true
	case "member", "members", "5":
		return VisibilityMember, true
	}
	return "", false
}
