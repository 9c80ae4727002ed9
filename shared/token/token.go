// Package token mints, hashes and checks API tokens. It is a leaf (no domain, no storage), so
// the authorizer Lambda links only this, the token items of the store and the SDK.
package token

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// UserIDKey is the key under which the authorizer Lambda hands the caller's user id to the
// functions (API Gateway's authorizer context): the authorizer writes it, lambdaapi reads it.
const UserIDKey = "user_id"

// Token is what the server keeps of an API token: only its SHA-256, never the token itself.
type Token struct {
	Hash      string
	UserID    int64
	JTI       string
	IssuedAt  time.Time
	ExpiresAt time.Time // zero: never expires
	Revoked   bool
}

type tokenClaims struct {
	Sub string `json:"sub"`
	JTI string `json:"jti"`
	Iat int64  `json:"iat"`
	Exp int64  `json:"exp"`
}

// NoExpiryLifetime is the `exp` written into a token that never expires: Kanka clients decode
// the payload and treat a missing `exp` as expired, so such a token carries one far ahead.
// Authentication itself never reads the payload.
const NoExpiryLifetime = 100 * 365 * 24 * time.Hour

var tokenHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))

// New mints a JWT-shaped token (header.payload.secret, base64url): Kanka clients may decode
// the payload, but authenticity rests on the 256 random bits of the third part. ttl 0 never expires.
func New(userID int64, ttl time.Duration, now time.Time) (string, Token, error) {
	secret := make([]byte, 32)
	jti := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return "", Token{}, err
	}
	if _, err := rand.Read(jti); err != nil {
		return "", Token{}, err
	}
	t := Token{UserID: userID, JTI: hex.EncodeToString(jti), IssuedAt: now.UTC()}
	c := tokenClaims{Sub: strconv.FormatInt(userID, 10), JTI: t.JTI, Iat: now.Unix(), Exp: now.Add(NoExpiryLifetime).Unix()}
	if ttl > 0 {
		t.ExpiresAt = now.Add(ttl).UTC()
		c.Exp = t.ExpiresAt.Unix()
	}
	payload, _ := json.Marshal(c)
	raw := tokenHeader + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(secret)
	t.Hash = Hash(raw)
	return raw, t, nil
}

// Hash is the key a token is stored under.
func Hash(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// Bearer extracts the token of an Authorization header, "" when there is none.
func Bearer(header string) string {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// wellFormed rejects what cannot be one of our tokens before any storage read.
func wellFormed(raw string) bool {
	parts := strings.Split(raw, ".")
	if len(raw) > 1024 || len(parts) != 3 || parts[0] == "" {
		return false
	}
	secret, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(secret) != 32 {
		return false
	}
	_, err = base64.RawURLEncoding.DecodeString(parts[1])
	return err == nil
}

// Store finds a stored token by hash; a missing token is (nil, nil).
type Store interface {
	GetToken(ctx context.Context, hash string) (*Token, error)
}

// Authenticate turns an Authorization header into a user id. Every failure, whatever its cause,
// is apperr.ErrUnauthenticated, except a storage outage, which is returned as is.
func Authenticate(ctx context.Context, tokens Store, header string, now time.Time) (int64, error) {
	raw := Bearer(header)
	if raw == "" || !wellFormed(raw) {
		return 0, apperr.ErrUnauthenticated
	}
	t, err := tokens.GetToken(ctx, Hash(raw))
	if err != nil {
		return 0, err
	}
	if t == nil || t.Revoked || (!t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt)) || t.UserID <= 0 {
		return 0, apperr.ErrUnauthenticated
	}
	return t.UserID, nil
}
