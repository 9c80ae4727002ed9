package tagstore

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/decodetest"
)

// The tag item's hand decoder answers what guregu's reflective decoder answers, through the
// kernel's page reads (store.UnmarshalItem).
func TestTagDecoderMatchesReflection(t *testing.T) {
	decodetest.MatchesReflection(t, store.UnmarshalItem,
		decodetest.Case{Name: "tag", Hand: func() any { return new(tagItem) }, Reflected: func() any { return new(reflectedTag) }})
}
