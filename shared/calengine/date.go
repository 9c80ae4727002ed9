package calengine

import (
	"errors"
	"strconv"
	"strings"
)

// Date is a calendar date. Month and Day are 1-based; years may be zero or
// negative. Whether a Date exists depends on the calendar (see Calendar.Valid).
type Date struct {
	Year       int64
	Month, Day int
}

// ParseDate parses "Y-M-D" as the API writes dates: decimal integers, the
// year optionally negative ("-12-3-4"), month and day unsigned. Leading
// zeros are accepted; signs other than the year's minus, spaces and empty
// parts are not. It checks syntax only: use Calendar.Valid for existence.
func ParseDate(s string) (Date, error) {
	rest, neg := strings.CutPrefix(s, "-")
	parts := strings.Split(rest, "-")
	if len(parts) != 3 {
		return Date{}, errors.New("calendar: date must be Y-M-D")
	}
	for _, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return Date{}, errors.New("calendar: date must be Y-M-D with decimal integers")
		}
	}
	ys := parts[0]
	if neg {
		ys = "-" + ys // parse with the sign so the most negative int64 fits
	}
	y, err := strconv.ParseInt(ys, 10, 64)
	if err != nil {
		return Date{}, errors.New("calendar: year out of range")
	}
	m, err1 := strconv.ParseInt(parts[1], 10, 32)
	d, err2 := strconv.ParseInt(parts[2], 10, 32)
	if err1 != nil || err2 != nil {
		return Date{}, errors.New("calendar: month or day out of range")
	}
	return Date{Year: y, Month: int(m), Day: int(d)}, nil
}

// String formats the date as "Y-M-D" without zero padding.
func (d Date) String() string {
	b := make([]byte, 0, 24)
	b = strconv.AppendInt(b, d.Year, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(d.Month), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(d.Day), 10)
	return string(b)
}

// Age is Kanka's age in whole years from birth to death, or to current
// when death is nil: the difference of the years, less one when the end's
// (month, day) comes before the birth's. The same rule holds when the end
// precedes the birth, so a birth 9.6 years ahead is -10 (birth 1009-12-1 on
// 1000-5-5), the floor of the exact difference. Years are plain integers
// here; Calendar.Age accounts for a skipped year zero.
func Age(birth Date, death *Date, current Date) int64 {
	end := current
	if death != nil {
		end = *death
	}
	n := end.Year - birth.Year
	if end.Month < birth.Month || (end.Month == birth.Month && end.Day < birth.Day) {
		n--
	}
	return n
}
