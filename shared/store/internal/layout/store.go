package layout

import (
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/awsdb"
)

func FormatTime(t time.Time) string { return t.UTC().Format(Timestamp) }

func ParseTime(s string) time.Time {
	if s == "" { // a link's copy of a record has no stamps: time.Parse would fail with an error value
		return time.Time{}
	}
	if t, ok := ParseStamp(s); ok {
		return t
	}
	t, _ := time.Parse(Timestamp, s)
	return t
}

// ParseStamp reads a timestamp as the store writes it ("2006-01-02T15:04:05.000000Z", every
// item has two) without time.Parse's general layout machinery, a visible part of a list
// page's decoding (issue 20); ok false for anything else, which time.Parse then answers.
func ParseStamp(s string) (time.Time, bool) {
	if len(s) != len(Timestamp) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[26] != 'Z' {
		return time.Time{}, false
	}
	num := func(from, to int) (int, bool) {
		n := 0
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	us, ok7 := num(20, 26)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, us*1000, time.UTC)
	if t.Day() != d { // past the month's end: time.Parse's error
		return time.Time{}, false
	}
	return t, true
}

// wrap turns SDK failures into domain errors (one mapping, in awsdb).
func Wrap(err error) error { return awsdb.Wrap(err) }

const Timestamp = domain.TimeLayout
