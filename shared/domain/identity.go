package domain

// User is a person who holds tokens and campaign memberships, with the profile Kanka's
// `profile` route answers. Unset profile fields read as Kanka's defaults (ProfileDefaults).
type User struct {
	ID                int64
	Name              string
	Locale            string
	Timezone          string
	DateFormat        string
	DefaultPagination int
	// LastCampaignID is the campaign the user joined last (0: none): tracking the campaign used
	// last would cost a write per request.
	LastCampaignID int64
}

// WithDefaults is u with Kanka's defaults for the profile fields it does not set.
func (u User) WithDefaults() User {
	if u.Locale == "" {
		u.Locale = "en"
	}
	if u.Timezone == "" {
		u.Timezone = "UTC"
	}
	if u.DateFormat == "" {
		u.DateFormat = "Y-m-d"
	}
	if u.DefaultPagination < 1 || u.DefaultPagination > MaxPageSize {
		u.DefaultPagination = DefaultPageSize
	}
	return u
}
