package httpapi

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// MaxPageBytes bounds the rows of one list page, measured as Lambda sends them: its response
// is a JSON document in which our body is a string, so every ", \ and control escape grows by
// a byte and every <, > and & (Go's encoder escapes HTML) becomes six bytes. Lambda refuses
// answers over 6 MB; this leaves room for links, meta and headers. A page whose rows would pass
// it ends early, and its next link continues right after its last row.
const MaxPageBytes = 5 << 20

// envelopeSize is how many bytes b takes once quoted inside Lambda's JSON response.
func envelopeSize(b []byte) int {
	n := len(b)
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"' || c == '\\':
			n++
		case c == '<' || c == '>' || c == '&':
			n += 5
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == '\u2028' || r == '\u2029' || r == utf8.RuneError && size == 1 {
				n += 6 - size
			}
			i += size
			continue
		}
		i++
	}
	return n
}

// fitRows renders items as JSON rows (as writeJSON would) and keeps those that fit in
// MaxPageBytes, at least one: a single row is bounded by the record limits.
func fitRows[T any](items []T) ([]json.RawMessage, error) { return renderRows(items, MaxPageBytes) }

// fitRowsAll renders every item.
func fitRowsAll[T any](items []T) ([]json.RawMessage, error) { return renderRows(items, -1) }

func renderRows[T any](items []T, budget int) ([]json.RawMessage, error) {
	rows := make([]json.RawMessage, 0, len(items))
	used := 0
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		buf.Reset()
		if err := enc.Encode(it); err != nil {
			return nil, err
		}
		row := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		size := envelopeSize(row) + 1 // the comma
		if budget >= 0 && len(rows) > 0 && used+size > budget {
			break
		}
		used += size
		rows = append(rows, append(json.RawMessage(nil), row...))
	}
	return rows, nil
}
