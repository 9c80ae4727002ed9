package ops_test

import (
	"testing"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// The operations code links every family that declares a kind of its own, so the migration
// and the audit know those kinds' items (a webhook's count is a limit's, its partition its own)
// in any binary that runs them.
func TestOperationsKnowEveryFamilyKind(t *testing.T) {
	k, ok := layout.FamilyKindOf("WEBHOOK")
	if !ok || !k.LimitCount || !k.Partition {
		t.Fatalf("the webhooks' kind as the operations code sees it: %+v %v", k, ok)
	}
	if layout.IsRangeCounter("COUNT#WEBHOOK") {
		t.Fatal("COUNT#WEBHOOK is taken for a range counter")
	}
	// The calendars' share links: a limit's count, no partition.
	if k, ok := layout.FamilyKindOf("SHARELINK"); !ok || !k.LimitCount || k.Partition || layout.IsRangeCounter("COUNT#SHARELINK") {
		t.Fatalf("the share links' kind as the operations code sees it: %+v %v", k, ok)
	}
}
