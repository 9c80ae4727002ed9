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
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// UserIDKey is the key under which the authorizer Lambda hands the caller's user id to the
// functions (API Gateway's authorizer context): the authorizer writes it, lambdaapi reads it.
const UserIDKey = "user_id"

// FieldSetKey is the key under which the authorizer Lambda hands the functions the field set
// the caller's token is bound to (absent: FieldsAll).
const FieldSetKey = "field_set"

// FieldSet is the set of fields a token's answers carry. A client written against one era of
// Kanka's API that refuses fields it does not know (firelilith/pykanka's dataclasses) gets a
// token bound to that era's field set: the API then leaves every other field out of the answers
// of the routes that era had (httpapi.Fields2022). What a request may send is the same for all.
type FieldSet string

const (
	// FieldsAll is every field Lorekeep answers, the 2022 API's and today's Kanka's: a token's
	// default.
	FieldsAll FieldSet = ""
	// Fields2022 is the 2022 API's fields only (the spec's field tables).
	Fields2022 FieldSet = "2022"
)

// ParseFieldSet reads a field set's name: "2022", or "all" (or "") for every field.
func ParseFieldSet(s string) (FieldSet, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "all":
		return FieldsAll, nil
	case string(Fields2022):
		return Fields2022, nil
	}
	return FieldsAll, errors.New(`unknown field set "` + s + `" (want "all" or "2022")`)
}

// Token is what the server keeps of an API token: only its SHA-256, never the token itself.
type Token struct {
	Hash      string
	UserID    int64
	JTI       string
	IssuedAt  time.Time
	ExpiresAt time.Time // zero: never expires
	Revoked   bool
	// FieldSet is carried in the token's payload (its `field_set` claim), not stored: the hash
	// covers the whole token, so a payload changed by a client is an unknown token (401), and
	// the claim of a token Authenticate accepted is the one it was minted with (FieldSetOf).
	FieldSet FieldSet
}

type tokenClaims struct {
	Sub      string `json:"sub"`
	JTI      string `json:"jti"`
	Iat      int64  `json:"iat"`
	Exp      int64  `json:"exp"`
	FieldSet string `json:"field_set,omitempty"`
}

// NoExpiryLifetime is the `exp` written into a token that never expires: Kanka clients decode
// the payload and treat a missing `exp` as expired, so such a token carries one far ahead.
// Authentication itself never reads the payload.
const NoExpiryLifetime = 100 * 365 * 24 * time.Hour

var tokenHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))

// New mints a JWT-shaped token (header.payload.secret, base64url): Kanka clients may decode
// the payload, but authenticity rests on the 256 random bits of the third part. ttl 0 never
// expires. Its answers carry every field (FieldsAll).
func New(userID int64, ttl time.Duration, now time.Time) (string, Token, error) {
	return NewWithFieldSet(userID, ttl, FieldsAll, now)
}

// NewWithFieldSet is New for a token bound to field set fs (its payload's `field_set` claim).
func NewWithFieldSet(userID int64, ttl time.Duration, fs FieldSet, now time.Time) (string, Token, error) {
	secret := make([]byte, 32)
	jti := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return "", Token{}, err
	}
	if _, err := rand.Read(jti); err != nil {
		return "", Token{}, err
	}
	t := Token{UserID: userID, JTI: hex.EncodeToString(jti), IssuedAt: now.UTC(), FieldSet: fs}
	c := tokenClaims{Sub: strconv.FormatInt(userID, 10), JTI: t.JTI, Iat: now.Unix(), Exp: now.Add(NoExpiryLifetime).Unix(), FieldSet: string(fs)}
	if ttl > 0 {
		t.ExpiresAt = now.Add(ttl).UTC()
		c.Exp = t.ExpiresAt.Unix()
	}
	payload, _ := json.Marshal(c)
	raw := tokenHeader + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(secret)
	t.Hash = Hash(raw)
	return raw, t, nil
}

// FieldSetOf is the field set raw (a token, as Bearer extracts it) is bound to: its payload's
// `field_set` claim, FieldsAll when it has none (or one this version does not know). Only the
// field set of a token Authenticate accepted means anything: the stored hash covers the
// payload, so it is the one the token was minted with.
func FieldSetOf(raw string) FieldSet {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return FieldsAll
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return FieldsAll
	}
	var c tokenClaims
	if json.Unmarshal(payload, &c) != nil {
		return FieldsAll
	}
	fs, err := ParseFieldSet(c.FieldSet)
	if err != nil {
		return FieldsAll
	}
	return fs
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
