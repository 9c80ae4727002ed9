package timeline

import (
	"errors"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

var (
	onCalendar = &domain.Entity{ID: 2, Type: "calendar", ChildID: 1}
	admin      = domain.Access{UserID: 1, CampaignID: 1, Role: domain.RoleAdmin}
)

func TestEventTypesAcceptedAndLifeEvents(t *testing.T) {
	t.Parallel()
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
		_, err := ev.Apply(domain.Input{"name": "x", "day": 1.0, "month": 1.0, "year": 1.0, "length": 1.0, "type_id": c.typeID}, onCalendar, admin)
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
	t.Parallel()
	ev := &Event{}
	if _, err := ev.ApplyReminder(domain.Input{"calendar_id": 3.0, "day": 2.0, "month": 1.0, "year": 10.0}, onCalendar, admin); err != nil {
		t.Fatalf("reminder without name and length: %v", err)
	}
	if ev.Length != 1 || ev.Name != "" || ev.CalendarID != 3 {
		t.Fatalf("reminder read as %+v", ev)
	}
	// An update keeps the stored length when none is sent.
	ev.ID, ev.Length = 9, 4
	if _, err := ev.ApplyReminder(domain.Input{"comment": "x"}, onCalendar, admin); err != nil || ev.Length != 4 {
		t.Fatalf("update: err %v length %d", err, ev.Length)
	}
	// The 2022 route still requires a name on create and length stays required.
	_, err := (&Event{}).Apply(domain.Input{"day": 2.0, "month": 1.0, "year": 10.0}, onCalendar, admin)
	if fe := fieldErrors(err); fe == nil || !fe.Has("name") || !fe.Has("length") {
		t.Fatalf("entity event without name and length: %v", err)
	}
	// A nameless reminder can be updated through the 2022 route without inventing a name.
	ev2 := &Event{Meta: domain.Meta{ID: 5}, Date: ev.Date, Length: 1}
	if _, err := ev2.Apply(domain.Input{"comment": "y"}, onCalendar, admin); err != nil {
		t.Fatalf("2022 update of a nameless reminder: %v", err)
	}
	if _, err := ev2.Apply(domain.Input{"name": ""}, onCalendar, admin); fieldErrors(err) == nil || !fieldErrors(err).Has("name") {
		t.Fatalf("2022 update that clears the name: %v", err)
	}
}

func fieldErrors(err error) *apperr.FieldErrors {
	if e := (*apperr.Error)(nil); errors.As(err, &e) {
		return e.Fields
	}
	return nil
}
