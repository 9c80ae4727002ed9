package locations

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// A location row's hand encoder writes what encoding/json writes, for random rows (HTML,
// mentions, unicode, invalid UTF-8, nulls, empty and nil arrays); ?related=1 rows are declined
// and go to encoding/json.
func TestLocationRowEncoderMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	apitest.AppendJSONMatches[locationJSON](t, 3000)
}

// BenchmarkLocationRows prints what rendering a list page of 45 locations costs, by hand and
// with encoding/json (the CPU the hand encoder takes off every list page and show).
func BenchmarkLocationRows(b *testing.B) {
	rows := make([]locationJSON, 45)
	for i := range rows {
		parent := int64(i)
		rows[i] = locationJSON{LocationID: &parent, ParentLocationID: &parent, Map: "https://example.org/map.png"}
		rows[i].ID, rows[i].Name, rows[i].Entry, rows[i].Type = int64(i+1), "Location <b>é</b>", "<p>An entry with [location:3] and some text.</p>", "city"
		rows[i].Tags = []int64{1, 2, 3}
	}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = buf[:0]
			for i := range rows {
				buf, _ = rows[i].AppendJSON(buf)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for b.Loop() {
			buf.Reset()
			for i := range rows {
				_ = enc.Encode(&rows[i])
			}
		}
	})
}
