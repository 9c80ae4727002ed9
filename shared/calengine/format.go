package calengine

import (
	"strconv"
	"strings"
)

// Kanka's date format: a calendar's `format` says how its dates are written. Kanka documents
// the field ("the rendering format for the calendar dates") and its example, "d M, y s", which
// writes what Kanka's own date display wrote before the field existed ("3 February, 311 BC":
// day, month name, year or its name, suffix). The letters are PHP date()-like (DESIGN.md
// section 5, "Date format"); every other character is itself, and a backslash writes the next
// one as it is.
const (
	MaxDateFormatSize = 191
	DefaultDateFormat = "d M, y s"
)

func dateFormatProblems(format string) []Problem {
	if len([]rune(format)) > MaxDateFormatSize {
		return []Problem{{"format", "The format must not be greater than " + strconv.Itoa(MaxDateFormatSize) + " characters."}}
	}
	return nil
}

// DateParts are what a format may write of a date.
type DateParts struct {
	Date      Date
	MonthName string
	YearName  string // "" when the year has no name
	Suffix    string
}

// FormatDate writes p by format (DefaultDateFormat when empty): d the day, m the month's
// number, M its name, y the year's name when it has one and else its number (Kanka's display),
// Y the year's number, s the suffix. Spaces left at either end (an empty
// suffix) are trimmed. The answer grows with the format times a name: both are bounded.
func FormatDate(format string, p DateParts) string {
	if format == "" {
		format = DefaultDateFormat
	}
	var b strings.Builder
	escaped := false
	for _, r := range format {
		if escaped {
			b.WriteRune(r)
			escaped = false
			continue
		}
		switch r {
		case '\\':
			escaped = true
		case 'd':
			b.WriteString(strconv.Itoa(p.Date.Day))
		case 'm':
			b.WriteString(strconv.Itoa(p.Date.Month))
		case 'M':
			b.WriteString(p.MonthName)
		case 'y':
			if p.YearName != "" {
				b.WriteString(p.YearName)
			} else {
				b.WriteString(strconv.FormatInt(p.Date.Year, 10))
			}
		case 'Y':
			b.WriteString(strconv.FormatInt(p.Date.Year, 10))
		case 's':
			b.WriteString(p.Suffix)
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// FormatDate writes d, a date of c, by the calendar's format.
func (c *Calendar) FormatDate(d Date) string {
	return FormatDate(c.def.DateFormat, PartsOf(c.months, c.def.Years, c.def.Suffix, d))
}

// PartsOf are d's parts on a calendar of these months, year names and suffix: no engine needed
// (a list page writes each calendar's current date).
func PartsOf(months []Month, years map[int64]string, suffix string, d Date) DateParts {
	p := DateParts{Date: d, YearName: years[d.Year], Suffix: suffix}
	if d.Month >= 1 && d.Month <= len(months) {
		p.MonthName = months[d.Month-1].Name
	}
	return p
}
