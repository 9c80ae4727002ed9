package token

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestTokensAreJWTShapedWithReadableClaims(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	raw, tok, err := New(42, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(raw, ".")
	if len(parts) != 3 || !wellFormed(raw) {
		t.Fatalf("token %q is not header.payload.secret", raw)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	if claims["sub"] != "42" || claims["iat"] != float64(now.Unix()) || claims["exp"] != float64(now.Add(time.Hour).Unix()) || claims["jti"] != tok.JTI {
		t.Fatalf("claims %v", claims)
	}
	if tok.Hash != Hash(raw) || strings.Contains(tok.Hash, parts[2]) || tok.UserID != 42 || !tok.ExpiresAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("stored token %+v", tok)
	}
	raw2, _, _ := New(42, 0, now)
	if raw2 == raw {
		t.Fatal("two tokens are equal")
	}
}

func TestBearerTokenAndShapeChecks(t *testing.T) {
	t.Parallel()
	good, _, _ := New(1, 0, time.Now())
	cases := []struct {
		header string
		ok     bool
	}{
		{"Bearer " + good, true},
		{"bearer  " + good + " ", true},
		{"Basic " + good, false},
		{good, false},
		{"Bearer ", false},
		{"Bearer a.b.c", false},
		{"Bearer " + good + "x", false},
		{"Bearer " + strings.Repeat("a", 2000), false},
	}
	for _, c := range cases {
		if got := wellFormed(Bearer(c.header)); got != c.ok {
			t.Errorf("%.40q: well formed %v, want %v", c.header, got, c.ok)
		}
	}
}
