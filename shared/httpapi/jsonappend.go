package httpapi

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// JSONAppender is a row shape with a hand-written encoder (issue 20: encoding/json's
// reflection was the largest part of the read path's own CPU). AppendJSON appends to b exactly
// the bytes writeJSON's encoding/json would write for the value (compact, HTML not escaped,
// fields in declaration order); ok false: it does not encode this value by hand (a part it
// leaves to encoding/json, such as ?related=1's arrays), and b is returned unchanged. Each
// shape's test compares its output with encoding/json's over randomised values
// (AppendJSONMatches). Embedded shapes (OwnerJSON, AuditJSON) append their fields under
// another method name, so that a shape embedding them never answers for the whole value.
type JSONAppender interface {
	AppendJSON(b []byte) ([]byte, bool)
}

// appendRow appends v's JSON to b by hand when v is a JSONAppender that encodes it.
func appendRow(b []byte, v any) ([]byte, bool) {
	if a, ok := v.(JSONAppender); ok {
		return a.AppendJSON(b)
	}
	return b, false
}

// AppendString appends s as encoding/json quotes it with HTML escaping off: ", \ and control
// characters escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// AppendOptString appends *s, or null.
func AppendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendString(b, *s)
}

// AppendInt appends n.
func AppendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// AppendOptInt appends *n, or null.
func AppendOptInt(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

// AppendBool appends v.
func AppendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// AppendInts appends ids as an array; a nil slice is null, as encoding/json writes it.
func AppendInts(b []byte, ids []int64) []byte {
	if ids == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return append(b, ']')
}

// AppendStrings appends ss as an array; a nil slice is null.
func AppendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// AppendFloat appends f as encoding/json writes a float64 (shortest form; exponent form below
// 1e-6 and from 1e21, without a leading zero in the exponent). f must be finite: encoding/json
// refuses NaN and infinities, so a caller declines them.
func AppendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 -> e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendTime appends t as domain.Time marshals it.
func AppendTime(b []byte, t domain.Time) []byte {
	return append(domain.AppendTime(append(b, '"'), time.Time(t)), '"')
}

// AppendAuditFields appends the fields of a (no braces, no leading comma).
func (a *AuditJSON) AppendAuditFields(b []byte) []byte {
	b = append(b, `"created_at":`...)
	b = AppendTime(b, a.CreatedAt)
	b = append(b, `,"created_by":`...)
	b = AppendInt(b, a.CreatedBy)
	b = append(b, `,"updated_at":`...)
	b = AppendTime(b, a.UpdatedAt)
	b = append(b, `,"updated_by":`...)
	return AppendInt(b, a.UpdatedBy)
}

// AppendOwnerFields appends the fields of o (no braces, no leading comma), its embedded audit
// fields included.
func (o *OwnerJSON) AppendOwnerFields(b []byte) []byte {
	b = append(b, `"id":`...)
	b = AppendInt(b, o.ID)
	b = append(b, `,"name":`...)
	b = AppendString(b, o.Name)
	b = append(b, `,"entry":`...)
	b = AppendString(b, o.Entry)
	b = append(b, `,"entry_parsed":`...)
	b = AppendOptString(b, o.EntryParsed)
	b = append(b, `,"type":`...)
	b = AppendString(b, o.Type)
	b = append(b, `,"image":`...)
	b = AppendString(b, o.Image)
	b = append(b, `,"image_full":`...)
	b = AppendString(b, o.ImageFull)
	b = append(b, `,"image_thumb":`...)
	b = AppendString(b, o.ImageThumb)
	b = append(b, `,"has_custom_image":`...)
	b = AppendBool(b, o.HasCustomImage)
	b = append(b, `,"is_private":`...)
	b = AppendBool(b, o.IsPrivate)
	b = append(b, `,"entity_id":`...)
	b = AppendInt(b, o.EntityID)
	b = append(b, `,"tags":`...)
	b = AppendInts(b, o.Tags)
	b = append(b, `,"entity_image_uuid":`...)
	b = AppendOptString(b, o.EntityImageUUID)
	b = append(b, `,"entity_header_uuid":`...)
	b = AppendOptString(b, o.EntityHeaderUUID)
	b = append(b, ',')
	return o.AuditJSON.AppendAuditFields(b)
}
