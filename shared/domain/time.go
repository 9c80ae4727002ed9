package domain

import (
	"strings"
	"time"
)

// TimeLayout is the one timestamp format of the API: UTC, six fraction digits, trailing Z.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return string(AppendTime(make([]byte, 0, len(TimeLayout)), t)) }

// AppendTime appends t in TimeLayout, as time's AppendFormat does (TestAppendTimeIsAppendFormat):
// digits written here for years 0-9999 (every record's answer has two stamps, and the layout's
// interpretation was a tenth of a list page's rendering), AppendFormat otherwise.
func AppendTime(b []byte, t time.Time) []byte {
	u := t.UTC()
	y, mo, d := u.Date()
	if y < 0 || y > 9999 {
		return u.AppendFormat(b, TimeLayout)
	}
	h, mi, s := u.Clock()
	us := u.Nanosecond() / 1000 // the layout's six digits truncate, as AppendFormat does
	var out [len(TimeLayout)]byte
	out[4], out[7], out[10], out[13], out[16], out[19], out[26] = '-', '-', 'T', ':', ':', '.', 'Z'
	digits := func(at, width, n int) {
		for i := at + width - 1; i >= at; i-- {
			out[i] = byte('0' + n%10)
			n /= 10
		}
	}
	digits(0, 4, y)
	digits(5, 2, int(mo))
	digits(8, 2, d)
	digits(11, 2, h)
	digits(14, 2, mi)
	digits(17, 2, s)
	digits(20, 6, us)
	return append(b, out[:]...)
}

// Time is a timestamp that marshals to TimeLayout.
type Time time.Time

func (t Time) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, len(TimeLayout)+2), '"')
	return append(AppendTime(b, time.Time(t)), '"'), nil
}

// MaxSyncScan is how many leading bytes of a lastSync value are examined: the longest accepted
// spelling (RFC 3339 with nine fraction digits and an offset) is 35 bytes.
const MaxSyncScan = 40

// syncLayouts are the spellings Kanka clients send: "2019-03-21T19:17:42.207577Z", RFC 3339
// with any fraction or offset, "2019-03-21 19:17:42.207577" (UTC assumed), a bare date.
var syncLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02"}

// ParseSyncTime reads a client's lastSync value as Kanka's MySQL does: the longest leading part
// that is a timestamp counts and the rest is ignored, so Java's "...Z[UTC]" and a value that
// swallowed the next query parameter ("...Z?related=1") both read as their timestamp. ok is
// false when no prefix is a timestamp; callers then ignore the value, as Kanka does.
func ParseSyncTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if len(s) > MaxSyncScan {
		s = s[:MaxSyncScan]
	}
	for n := len(s); n >= len("2006-01-02"); n-- {
		for _, layout := range syncLayouts {
			if t, err := time.Parse(layout, s[:n]); err == nil {
				return t.UTC(), true
			}
		}
	}
	return time.Time{}, false
}
