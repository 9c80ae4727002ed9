package domain

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
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
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	raw, tok, err := NewToken(7, 0, now)
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

func TestVisibilityIDsAreKankas(t *testing.T) {
	want := map[Visibility]int{VisibilityAll: 1, VisibilityAdmin: 2, VisibilitySelfAdmin: 3, VisibilitySelf: 4, VisibilityMember: 5, "": 1}
	for v, id := range want {
		if got := v.ID(); got != id {
			t.Errorf("%q.ID() = %d, want %d", v, got, id)
		}
		if v == "" {
			continue
		}
		if back, ok := ParseVisibility(string(rune('0' + id))); !ok || back != v {
			t.Errorf("visibility_id %d parses to %q, want %q", id, back, v)
		}
	}
}

// An event of a calendar's entity, by an admin: the calendar is the default one.
func fieldErrors(err error) *apperr.FieldErrors {
	if e, ok := err.(*apperr.Error); ok {
		return e.Fields
	}
	return nil
}
