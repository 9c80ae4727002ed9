package locstore

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/decodetest"
)

// The location item's hand decoder answers what guregu's reflective decoder answers, through
// the kernel's page reads (store.UnmarshalItem).
func TestLocationDecoderMatchesReflection(t *testing.T) {
	decodetest.MatchesReflection(t, store.UnmarshalItem,
		decodetest.Case{Name: "location", Hand: func() any { return new(locationItem) }, Reflected: func() any { return new(reflectedLocation) }})
}
