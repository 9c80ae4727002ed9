package token

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

type memoryTokens map[string]*Token

func (m memoryTokens) GetToken(_ context.Context, hash string) (*Token, error) { return m[hash], nil }

// A token's field set is its payload's claim: read back as minted, covered by the stored hash
// (a client that edits it holds an unknown token), absent from every token minted without one.
func TestAFieldSetIsAClaimTheHashCovers(t *testing.T) {
	t.Parallel()
	now := time.Now()
	bound, tb, err := NewWithFieldSet(5, 0, Fields2022, now)
	if err != nil {
		t.Fatal(err)
	}
	plain, tp, err := New(5, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	store := memoryTokens{tb.Hash: &tb, tp.Hash: &tp}
	// The claim edited away (or added): the same secret, another token.
	parts := strings.Split(bound, ".")
	var claims map[string]any
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	_ = json.Unmarshal(payload, &claims)
	delete(claims, "field_set")
	edited, _ := json.Marshal(claims)
	unbound := parts[0] + "." + base64.RawURLEncoding.EncodeToString(edited) + "." + parts[2]
	pparts := strings.Split(plain, ".")
	payload, _ = base64.RawURLEncoding.DecodeString(pparts[1])
	_ = json.Unmarshal(payload, &claims)
	claims["field_set"] = "2022"
	edited, _ = json.Marshal(claims)
	rebound := pparts[0] + "." + base64.RawURLEncoding.EncodeToString(edited) + "." + pparts[2]

	for _, c := range []struct {
		name   string
		raw    string
		fields FieldSet
		ok     bool
	}{
		{"bound to 2022", bound, Fields2022, true},
		{"every field", plain, FieldsAll, true},
		{"the claim edited away", unbound, FieldsAll, false},
		{"a claim edited in", rebound, Fields2022, false},
		{"not a token", "x", FieldsAll, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := FieldSetOf(c.raw); got != c.fields {
				t.Errorf("FieldSetOf = %q, want %q", got, c.fields)
			}
			uid, err := Authenticate(context.Background(), store, "Bearer "+c.raw, now)
			if c.ok && (err != nil || uid != 5) {
				t.Errorf("Authenticate = %d, %v; want user 5", uid, err)
			}
			if !c.ok && !errors.Is(err, apperr.ErrUnauthenticated) {
				t.Errorf("Authenticate = %d, %v; want unauthenticated", uid, err)
			}
		})
	}
	if tb.FieldSet != Fields2022 || tp.FieldSet != FieldsAll {
		t.Errorf("minted %q and %q", tb.FieldSet, tp.FieldSet)
	}
	if _, has := tokenClaimsOf(t, plain)["field_set"]; has {
		t.Errorf("a token of every field carries a field_set claim: %v", tokenClaimsOf(t, plain))
	}
}

func TestParseFieldSet(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want FieldSet
		ok   bool
	}{{"", FieldsAll, true}, {"all", FieldsAll, true}, {" ALL ", FieldsAll, true}, {"2022", Fields2022, true}, {"2023", FieldsAll, false}, {"today", FieldsAll, false}} {
		got, err := ParseFieldSet(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseFieldSet(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}
