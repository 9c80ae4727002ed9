package token

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func tokenClaimsOf(t *testing.T, raw string) map[string]any {
	t.Helper()
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(raw, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return claims
}

func TestTokenWithoutExpiryCarriesAFarExp(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	raw, tok, err := New(7, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	exp, ok := tokenClaimsOf(t, raw)["exp"].(float64)
	if !ok {
		t.Fatalf("payload has no numeric exp: %v", tokenClaimsOf(t, raw))
	}
	if min := float64(now.AddDate(50, 0, 0).Unix()); exp < min {
		t.Fatalf("exp %v is not far in the future (want >= %v)", exp, min)
	}
	if !tok.ExpiresAt.IsZero() {
		t.Fatalf("a token without expiry is stored with expiry %v", tok.ExpiresAt)
	}
}
