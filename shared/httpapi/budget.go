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
	rows := NewRows(budget, true)
	for _, it := range items {
		if fits, err := rows.Add(it); err != nil {
			return nil, err
		} else if !fits {
			break
		}
	}
	return rows.rows, nil
}

// Rows renders an answer's rows one at a time within a byte budget (MaxPageBytes, as Lambda
// counts them), for answers built a row at a time that must stop as soon as the budget ends
// rather than build what they cannot send.
type Rows struct {
	rows      []json.RawMessage
	used      int
	budget    int // negative: none
	keepFirst bool
	buf       bytes.Buffer
	enc       *json.Encoder
}

// NewRows starts rows within budget bytes (negative: no budget); keepFirst keeps a first row
// that alone passes it (a list's row is bounded by the record limits).
func NewRows(budget int, keepFirst bool) *Rows {
	r := &Rows{rows: []json.RawMessage{}, budget: budget, keepFirst: keepFirst}
	r.enc = json.NewEncoder(&r.buf)
	r.enc.SetEscapeHTML(false)
	return r
}

// Add renders v as writeJSON would and keeps it when it fits; false: it does not (nothing is
// kept, and no later row should be added).
func (r *Rows) Add(v any) (bool, error) {
	r.buf.Reset()
	if err := r.enc.Encode(v); err != nil {
		return false, err
	}
	row := bytes.TrimSuffix(r.buf.Bytes(), []byte("\n"))
	size := envelopeSize(row) + 1 // the comma
	if r.budget >= 0 && r.used+size > r.budget && (len(r.rows) > 0 || !r.keepFirst) {
		return false, nil
	}
	r.used += size
	r.rows = append(r.rows, append(json.RawMessage(nil), row...))
	return true, nil
}

// Len is the number of rows kept.
func (r *Rows) Len() int { return len(r.rows) }

// Reply answers {"data": [rows]}.
func (r *Rows) Reply() Reply { return One(r.rows) }
