package domain

import (
	"context"
	"time"

	"github.com/lorekeep/lorekeep/shared/token"
)

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

// Tokens live in the leaf package token (so the authorizer stays small); these are its names
// as the domain's callers know them.
type (
	Token      = token.Token
	TokenStore = token.Store
)

// NewToken mints a token for userID (ttl 0: no expiry): the raw token and what is stored.
func NewToken(userID int64, ttl time.Duration, now time.Time) (string, Token, error) {
	return token.New(userID, ttl, now)
}

// HashToken is the key a token is stored under.
func HashToken(raw string) string { return token.Hash(raw) }

// BearerToken extracts the token of an Authorization header, "" when there is none.
func BearerToken(header string) string { return token.Bearer(header) }

// Authenticate turns an Authorization header into a user id (see token.Authenticate).
func Authenticate(ctx context.Context, tokens TokenStore, header string, now time.Time) (int64, error) {
	return token.Authenticate(ctx, tokens, header, now)
}
