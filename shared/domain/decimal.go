package domain

import (
	"encoding/json"
	"strconv"
	"strings"
)

// maxDecimalText bounds the text of a decimal before it is parsed (a long string of digits is
// refused, never parsed).
const maxDecimalText = 40

// Decimal reads a decimal number (a JSON number or its string, no exponent, no NaN or
// Infinity) as an integer count of 10^-digits units, rounded half away from zero, within
// [min, max] in those units.
func (r *Reader) Decimal(name string, digits int, min, max int64) Field[int64] {
	v, set, null := r.raw(name)
	if !set || null {
		return Field[int64]{Set: set, Null: null}
	}
	s, ok := NumberText(v)
	if ok && s == "" {
		if _, isStr := v.(string); isStr {
			return Field[int64]{Set: true, Null: true}
		}
	}
	n, ok2 := parseDecimal(s, digits)
	if !ok || !ok2 {
		r.Fail(name, "The :attribute must be a decimal number.")
		return Field[int64]{Set: true}
	}
	if n < min || n > max {
		r.Fail(name, "The :attribute must be between "+string(DecimalNumber(min, digits))+" and "+string(DecimalNumber(max, digits))+".")
		return Field[int64]{Set: true}
	}
	return Field[int64]{Set: true, Value: n}
}

// parseDecimal parses [+-]digits[.digits] into units of 10^-digits, rounded half away from
// zero; false on anything else or beyond 15 integral digits.
func parseDecimal(s string, digits int) (int64, bool) {
	if len(s) == 0 || len(s) > maxDecimalText {
		return 0, false
	}
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" && frac == "" || len(whole) > 15 || (hasDot && frac == "") {
		return 0, false
	}
	for _, part := range []string{whole, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
	}
	var n int64
	for _, c := range whole {
		n = n*10 + int64(c-'0')
	}
	for i := 0; i < digits; i++ {
		d := int64(0)
		if i < len(frac) {
			d = int64(frac[i] - '0')
		}
		n = n*10 + d
	}
	if len(frac) > digits && frac[digits] >= '5' {
		n++
	}
	if n > 1<<53 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// DecimalNumber writes n units of 10^-digits as a JSON number in its shortest form (10, 2.75,
// -0.5).
func DecimalNumber(n int64, digits int) json.Number {
	return json.Number(DecimalText(n, digits, false))
}

// DecimalText writes n units of 10^-digits; fixed keeps every fraction digit ("422.800").
func DecimalText(n int64, digits int, fixed bool) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := strconv.FormatInt(n, 10)
	for len(s) <= digits {
		s = "0" + s
	}
	whole, frac := s[:len(s)-digits], s[len(s)-digits:]
	if !fixed {
		frac = strings.TrimRight(frac, "0")
	}
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return out
}
