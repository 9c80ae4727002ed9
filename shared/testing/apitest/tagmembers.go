package apitest

import (
	"fmt"
	"slices"
)

// TagMembers is a tag answer's entities and entities_count as text ("[3 5] n=4"), or
// "unsorted ..." when the ids are out of order; WantTagMembers spells what a test expects.
func TagMembers(row map[string]any) string {
	var ids []int64
	for _, x := range row["entities"].([]any) {
		ids = append(ids, int64(x.(float64)))
	}
	if !slices.IsSorted(ids) {
		return fmt.Sprintf("unsorted %v", ids)
	}
	return fmt.Sprintf("%v n=%v", ids, row["entities_count"])
}

// WantTagMembers is TagMembers' text for a tag of n members answering ids (in any order).
func WantTagMembers(n int, ids ...int64) string {
	if ids == nil {
		ids = []int64{}
	}
	slices.Sort(ids)
	return fmt.Sprintf("%v n=%d", ids, n)
}
