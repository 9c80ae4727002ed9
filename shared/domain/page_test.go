package domain

import (
	"slices"
	"testing"
)

// PageOf pages a list held in memory as the store pages its ranges: by page number, or right
// after the cursor's record, with real cursors.
func TestPageOfCutsByPageNumberAndByCursor(t *testing.T) {
	t.Parallel()
	items := []int64{2, 3, 5, 8, 13}
	id := func(v *int64) int64 { return *v }
	for _, c := range []struct {
		name string
		req  PageRequest
		want []int64
		next int64 // 0: no next page
	}{
		{"first page", PageRequest{Page: 1, Limit: 2}, []int64{2, 3}, 3},
		{"second page by number", PageRequest{Page: 2, Limit: 2}, []int64{5, 8}, 8},
		{"last page", PageRequest{Page: 3, Limit: 2}, []int64{13}, 0},
		{"past the end", PageRequest{Page: 9, Limit: 2}, []int64{}, 0},
		{"after a cursor", PageRequest{Page: 2, Limit: 2, Cursor: EncodeCursor(3)}, []int64{5, 8}, 8},
		{"after a cursor of a record gone", PageRequest{Page: 2, Limit: 2, Cursor: EncodeCursor(4)}, []int64{5, 8}, 8},
		{"a bad cursor counts pages", PageRequest{Page: 2, Limit: 2, Cursor: "%%"}, []int64{5, 8}, 8},
	} {
		got := PageOf(items, c.req, id)
		if !slices.Equal(got.Items, c.want) && !(len(got.Items) == 0 && len(c.want) == 0) {
			t.Errorf("%s: items %v, want %v", c.name, got.Items, c.want)
		}
		if got.Total != len(items) {
			t.Errorf("%s: total %d", c.name, got.Total)
		}
		wantNext := ""
		if c.next != 0 {
			wantNext = EncodeCursor(c.next)
		}
		if got.Next != wantNext || len(got.Cursors) != len(got.Items) {
			t.Errorf("%s: next %q (want %q), cursors %v", c.name, got.Next, wantNext, got.Cursors)
		}
	}
}
