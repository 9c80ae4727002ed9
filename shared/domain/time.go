package domain

import (
	"strings"
	"time"
)

// TimeLayout is the one timestamp format of the API: UTC, six fraction digits, trailing Z.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// Time is a timestamp that marshals to TimeLayout.
type Time time.Time

func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + FormatTime(time.Time(t)) + `"`), nil
}

// ParseSyncTime reads a client's lastSync value. Kanka clients send several spellings:
// "2019-03-21T19:17:42.207577Z", RFC 3339 with any fraction or offset,
// "2019-03-21 19:17:42.207577" (UTC assumed) and Java's "...Z[UTC]".
func ParseSyncTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		s = s[:i]
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
