package layout

import (
	"strconv"
	"strings"
)

// SegmentWidth is the id width of one counter segment: SegmentWidth/BucketWidth buckets.
const SegmentWidth = 10000

// CountTarget is one attribute of one counter item that a count changes.
type CountTarget struct {
	Key  CounterKey
	Attr string
}

// CountTargets are the attributes a record of class with id adds to in the range counted by
// counter (sk) of partition pk: the class's total, the segment's total and the bucket. The
// writer, the migration's recount and Audit all count through it.
func CountTargets(pk, counter, class string, id int64) [3]CountTarget {
	seg := CounterKey{pk, SegmentSK(counter, id)}
	return [3]CountTarget{
		{CounterKey{pk, counter}, class},
		{seg, class},
		{seg, SegmentBucketAttr(class, id)},
	}
}

// SegmentBucketAttr names the bucket of id within its segment.
func SegmentBucketAttr(class string, id int64) string {
	return class + "_" + strconv.FormatInt((id%SegmentWidth)/BucketWidth, 10)
}

// tally adds d for a record of class with id in the range of counter (pk, sk) to tallies (the
// recount and Audit).
func Tally(tallies map[CounterKey]map[string]int, pk, counter, class string, id int64, d int) {
	for _, t := range CountTargets(pk, counter, class, id) {
		if tallies[t.Key] == nil {
			tallies[t.Key] = map[string]int{}
		}
		tallies[t.Key][t.Attr] += d
	}
}

// IsRangeCounter reports whether sk is a range counter item (total or segment); the count of
// a family's kind (store.DeclareKind: COUNT#WEBHOOK, "n") is a limit's count, not a range's.
func IsRangeCounter(sk string) bool {
	if !strings.HasPrefix(sk, CounterPrefix) {
		return false
	}
	k, ok := FamilyKindOf(strings.TrimPrefix(sk, CounterPrefix))
	return !ok || !k.LimitCount
}
