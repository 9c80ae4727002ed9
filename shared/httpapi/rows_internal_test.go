package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// writeRows writes the bytes writeJSON writes for the same envelope: rows with HTML, escapes,
// non-ASCII and nesting, none, and a tail with or without fields.
func TestWriteRowsIsWriteJSON(t *testing.T) {
	t.Parallel()
	type tail struct {
		Meta map[string]any `json:"meta"`
		Sync string         `json:"sync"`
	}
	rows := NewRows(-1, true)
	for _, v := range []any{
		map[string]any{"entry": "<p>a & b</p>", "name": "Zoë \"q\" \u2028", "n": 1.5},
		[]any{1, nil, map[string]any{"x": []int{}}},
		"plain",
	} {
		if _, err := rows.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		rows []json.RawMessage
		rest any
	}{
		{"rows and tail", rows.raw(), tail{map[string]any{"total": 3, "path": "http://h/x?a=<b>"}, "2024-01-01T00:00:00.000000Z"}},
		{"no rows", []json.RawMessage{}, tail{Sync: "s"}},
		{"no tail", rows.raw(), struct{}{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			got := httptest.NewRecorder()
			writeRows(got, r, c.rows, c.rest)
			// What writeJSON writes for the same envelope, data first.
			want := httptest.NewRecorder()
			switch rest := c.rest.(type) {
			case tail:
				writeJSON(want, r, 200, struct {
					Data []json.RawMessage `json:"data"`
					tail
				}{c.rows, rest})
			default:
				writeJSON(want, r, 200, map[string]any{"data": c.rows})
			}
			if got.Body.String() != want.Body.String() || got.Header().Get("Content-Length") != want.Header().Get("Content-Length") || got.Code != 200 {
				t.Fatalf("writeRows:\n%s\nwriteJSON:\n%s", got.Body, want.Body)
			}
		})
	}
}

// BenchmarkEnvelope is a page of 45 rendered location-sized rows written by the envelope: spliced
// (writeRows, what Reply.write does) against encoding/json re-encoding the rows (before).
func BenchmarkEnvelope(b *testing.B) {
	rows := NewRows(-1, true)
	for i := 0; i < 45; i++ {
		_, _ = rows.Add(map[string]any{"id": i, "name": "Place", "entry": "<p>A place of the campaign, with a line of text.</p>",
			"entry_parsed": "<p>A place of the campaign, with a line of text.</p>", "tags": []int{}, "created_at": "2024-01-01T00:00:00.000000Z",
			"updated_at": "2024-01-01T00:00:00.000000Z", "type": "Town", "is_private": false, "parent_location_id": nil})
	}
	r := httptest.NewRequest("GET", "/", nil)
	rest := struct {
		Sync string `json:"sync"`
	}{"2024-01-01T00:00:00.000000Z"}
	b.Run("spliced", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			writeRows(httptest.NewRecorder(), r, rows.raw(), rest)
		}
	})
	b.Run("re-encoded", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			writeJSON(httptest.NewRecorder(), r, 200, struct {
				Data []json.RawMessage `json:"data"`
				Sync string            `json:"sync"`
			}{rows.raw(), rest.Sync})
		}
	})
}
