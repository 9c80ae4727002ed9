package notestore

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/decodetest"
)

// The note item's hand decoder answers what guregu's reflective decoder answers, through the
// kernel's page reads (store.UnmarshalItem).
func TestNoteDecoderMatchesReflection(t *testing.T) {
	decodetest.MatchesReflection(t, store.UnmarshalItem,
		decodetest.Case{Name: "note", Hand: func() any { return new(noteItem) }, Reflected: func() any { return new(reflectedNote) }})
}
