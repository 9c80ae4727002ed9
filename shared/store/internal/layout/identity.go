package layout

import "github.com/lorekeep/lorekeep/shared/domain"

type UserItem struct {
	PK   string `dynamo:"pk"`
	SK   string `dynamo:"sk"`
	ID   int64  `dynamo:"id"`
	Name string `dynamo:"name"`
	// Kanka's profile (unset: its defaults, domain.User.WithDefaults); on the META item only.
	Locale            string `dynamo:"locale,omitempty"`
	Timezone          string `dynamo:"timezone,omitempty"`
	DateFormat        string `dynamo:"date_format,omitempty"`
	DefaultPagination int    `dynamo:"default_pagination,omitempty"`
	LastCampaignID    int64  `dynamo:"last_campaign_id,omitempty"`
}

func (u UserItem) User() domain.User {
	return domain.User{ID: u.ID, Name: u.Name, Locale: u.Locale, Timezone: u.Timezone, DateFormat: u.DateFormat,
		DefaultPagination: u.DefaultPagination, LastCampaignID: u.LastCampaignID}
}

// MemberItem is a membership, under the campaign (MEMBER#uid) and under the user (CAMPAIGN#c).
type MemberItem struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	CampaignID int64  `dynamo:"campaign_id"`
	UserID     int64  `dynamo:"user_id"`
	Role       string `dynamo:"role"`
	// The user's name, copied when the membership is given (layout 3), and its times.
	Name      string `dynamo:"name,omitempty"`
	CreatedAt string `dynamo:"created_at,omitempty"`
	UpdatedAt string `dynamo:"updated_at,omitempty"`
}

func (mi MemberItem) Membership() domain.Membership {
	r, _ := domain.ParseRole(mi.Role)
	return domain.Membership{CampaignID: mi.CampaignID, UserID: mi.UserID, Role: r, Name: mi.Name,
		CreatedAt: ParseTime(mi.CreatedAt), UpdatedAt: ParseTime(mi.UpdatedAt)}
}
