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
var (
	onCalendar = &Entity{ID: 2, Type: "calendar", ChildID: 1}
	admin      = Access{UserID: 1, CampaignID: 1, Role: RoleAdmin}
)

func TestEventTypesAcceptedAndLifeEvents(t *testing.T) {
	cases := []struct {
		typeID       any
		ok           bool
		starts, ends bool
	}{
		{1.0, true, false, false},
		{2.0, true, true, false},
		{3.0, true, false, true},
		{4.0, true, false, false},
		{5.0, true, true, false},
		{6.0, false, false, false},
		{nil, true, false, false},
	}
	for _, c := range cases {
		ev := &Event{}
		_, err := ev.Apply(Input{"name": "x", "day": 1.0, "month": 1.0, "year": 1.0, "length": 1.0, "type_id": c.typeID}, onCalendar, admin)
		if (err == nil) != c.ok {
			t.Errorf("type_id %v: err %v, want ok %v", c.typeID, err, c.ok)
			continue
		}
		if err == nil && (ev.StartsLife() != c.starts || ev.EndsLife() != c.ends) {
			t.Errorf("type_id %v: starts %v ends %v, want %v %v", c.typeID, ev.StartsLife(), ev.EndsLife(), c.starts, c.ends)
		}
	}
}

func TestReminderBodyNeedsNoNameAndDefaultsLength(t *testing.T) {
	ev := &Event{}
	if _, err := ev.ApplyReminder(Input{"calendar_id": 3.0, "day": 2.0, "month": 1.0, "year": 10.0}, onCalendar, admin); err != nil {
		t.Fatalf("reminder without name and length: %v", err)
	}
	if ev.Length != 1 || ev.Name != "" || ev.CalendarID != 3 {
		t.Fatalf("reminder read as %+v", ev)
	}
	// An update keeps the stored length when none is sent.
	ev.ID, ev.Length = 9, 4
	if _, err := ev.ApplyReminder(Input{"comment": "x"}, onCalendar, admin); err != nil || ev.Length != 4 {
		t.Fatalf("update: err %v length %d", err, ev.Length)
	}
	// The 2022 route still requires a name on create and length stays required.
	_, err := (&Event{}).Apply(Input{"day": 2.0, "month": 1.0, "year": 10.0}, onCalendar, admin)
	if fe := fieldErrors(err); fe == nil || !fe.Has("name") || !fe.Has("length") {
		t.Fatalf("entity event without name and length: %v", err)
	}
	// A nameless reminder can be updated through the 2022 route without inventing a name.
	ev2 := &Event{Meta: Meta{ID: 5}, Date: ev.Date, Length: 1}
	if _, err := ev2.Apply(Input{"comment": "y"}, onCalendar, admin); err != nil {
		t.Fatalf("2022 update of a nameless reminder: %v", err)
	}
	if _, err := ev2.Apply(Input{"name": ""}, onCalendar, admin); fieldErrors(err) == nil || !fieldErrors(err).Has("name") {
		t.Fatalf("2022 update that clears the name: %v", err)
	}
}

func fieldErrors(err error) *apperr.FieldErrors {
	if e, ok := err.(*apperr.Error); ok {
		return e.Fields
	}
	return nil
}
