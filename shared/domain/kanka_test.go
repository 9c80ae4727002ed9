package domain

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

func TestVisibilityIDsAreKankas(t *testing.T) {
	t.Parallel()
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
