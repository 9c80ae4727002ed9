package httpapi

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode/utf8"
)

// MaxPageBytes bounds the rows of one list page, measured as Lambda sends them: its response
// is a JSON document in which our body is a string, so every ", \ and control escape grows by
// a byte and every <, > and & (Go's encoder escapes HTML) becomes six bytes. Lambda refuses
// answers over 6 MB; this leaves room for links, meta and headers. A page whose rows would pass
// it ends early, and its next link continues right after its last row.
const MaxPageBytes = 5 << 20

// envelopeSize is how many bytes b takes once quoted inside Lambda's JSON response. Rows are
// valid UTF-8 but for strings that were not: for them, the bytes that grow are counted by
// bytes.Count (vectorised), not one by one (the byte loop was a fifth of a list page's own CPU).
func envelopeSize(b []byte) int {
	if !utf8.Valid(b) {
		return envelopeSizeSlow(b)
	}
	n := len(b) + bytes.Count(b, quote) + bytes.Count(b, backslash)
	n += 5 * (bytes.Count(b, lessThan) + bytes.Count(b, greaterThan) + bytes.Count(b, ampersand))
	if bytes.IndexByte(b, 0xe2) >= 0 { // U+2028 and U+2029 (e2 80 a8/a9) become \u2028
		n += 3 * (bytes.Count(b, lineSep) + bytes.Count(b, paraSep))
	}
	return n
}

var (
	quote, backslash                 = []byte{'"'}, []byte{'\\'}
	lessThan, greaterThan, ampersand = []byte{'<'}, []byte{'>'}, []byte{'&'}
	lineSep, paraSep                 = []byte("\u2028"), []byte("\u2029")
)

// envelopeSizeSlow is envelopeSize byte by byte, for b with invalid UTF-8 (each bad byte
// becomes \ufffd).
func envelopeSizeSlow(b []byte) int {
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
func fitRows[T any](items []T) (*Rows, error) { return renderRows(items, MaxPageBytes) }

// fitRowsAll renders every item.
func fitRowsAll[T any](items []T) (*Rows, error) { return renderRows(items, -1) }

func renderRows[T any](items []T, budget int) (*Rows, error) {
	rows := NewRows(budget, true)
	rows.Expect(len(items))
	for i := range items {
		// A pointer: a JSONAppender row is encoded in place, not copied into an interface
		// (encoding/json writes a pointer to a value as the value).
		if fits, err := rows.Add(&items[i]); err != nil {
			rows.release()
			return nil, err
		} else if !fits {
			break
		}
	}
	return rows, nil
}

// Rows renders an answer's rows one at a time within a byte budget (MaxPageBytes, as Lambda
// counts them), for answers built a row at a time that must stop as soon as the budget ends
// rather than build what they cannot send. The rows are encoded one after another into one
// buffer (ends says where each ends), not each into a copy of its own; the buffer is taken from
// a pool and given back once the reply holding the rows is written (Reply.release).
type Rows struct {
	buf       bytes.Buffer
	ends      []int
	used      int
	budget    int // negative: none
	keepFirst bool
	enc       *json.Encoder
	expect    int     // rows expected (Expect)
	pooled    *[]byte // the holder of buf's memory in bufPool
}

// Expect says about how many rows will be added: once the first is, the buffer makes room for
// the rest at once (guessed from the first, within the budget), rather than doubling its way
// there, copying each time.
func (r *Rows) Expect(n int) { r.expect = n }

// NewRows starts rows within budget bytes (negative: no budget); keepFirst keeps a first row
// that alone passes it (a list's row is bounded by the record limits).
func NewRows(budget int, keepFirst bool) *Rows {
	r := &Rows{budget: budget, keepFirst: keepFirst}
	var b []byte
	r.pooled, b = getBuf(0)
	r.buf = *bytes.NewBuffer(b)
	return r
}

// release gives the rows' buffer back to the pool: nothing may read the rows afterwards.
func (r *Rows) release() {
	if r == nil {
		return
	}
	putBuf(r.pooled, r.buf.Bytes())
	r.buf, r.ends, r.enc, r.pooled = bytes.Buffer{}, nil, nil, nil
}

// Add renders v as writeJSON would and keeps it when it fits; false: it does not (nothing is
// kept, and no later row should be added).
func (r *Rows) Add(v any) (bool, error) {
	start := r.buf.Len()
	if b, ok := appendRow(r.buf.AvailableBuffer(), v); ok {
		r.buf.Write(b) // in place unless b outgrew the buffer
	} else {
		if r.enc == nil { // encoding/json only for shapes without a hand encoder
			r.enc = json.NewEncoder(&r.buf)
			r.enc.SetEscapeHTML(false)
		}
		if err := r.enc.Encode(v); err != nil {
			r.buf.Truncate(start)
			return false, err
		}
		r.buf.Truncate(r.buf.Len() - 1) // the encoder's newline
	}
	size := envelopeSize(r.buf.Bytes()[start:]) + 1 // the comma
	if r.budget >= 0 && r.used+size > r.budget && (len(r.ends) > 0 || !r.keepFirst) {
		r.buf.Truncate(start)
		return false, nil
	}
	r.used += size
	r.ends = append(r.ends, r.buf.Len())
	if len(r.ends) == 1 && r.expect > 1 {
		more := r.buf.Len() * (r.expect - 1) * 5 / 4
		if r.budget >= 0 {
			more = min(more, r.budget)
		}
		r.buf.Grow(more)
	}
	return true, nil
}

// raw answers the kept rows, each a slice of the one buffer.
func (r *Rows) raw() []json.RawMessage {
	out := make([]json.RawMessage, len(r.ends))
	b, start := r.buf.Bytes(), 0
	for i, end := range r.ends {
		out[i] = b[start:end:end]
		start = end
	}
	return out
}

// Len is the number of rows kept.
func (r *Rows) Len() int { return len(r.ends) }

// Reply answers {"data": [rows]}.
func (r *Rows) Reply() Reply { return Reply{data: r.raw(), rows: r} }

// maxPooledBuf is the largest buffer the pool keeps: a page near MaxPageBytes is rare, and
// keeping its buffer would pin megabytes in a function of 256 MB for every later small page.
const maxPooledBuf = 256 << 10

// bufPool holds the byte buffers of rows and of response bodies, which a request fills and
// drops once written: a list page's rows and body are two buffers of tens of KB each. A buffer
// travels with its holder, so that giving it back allocates nothing.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// getBuf is an empty buffer from the pool, with room for at least n bytes, and its holder for
// putBuf.
func getBuf(n int) (*[]byte, []byte) {
	p := bufPool.Get().(*[]byte)
	if cap(*p) < n {
		*p = make([]byte, 0, n)
	}
	return p, (*p)[:0]
}

// putBuf gives b (the buffer of holder p, grown or not) back to the pool, unless it is too
// large to keep. Nothing may use b afterwards.
func putBuf(p *[]byte, b []byte) {
	if p == nil || cap(b) > maxPooledBuf {
		return
	}
	*p = b[:0]
	bufPool.Put(p)
}
