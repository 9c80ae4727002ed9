package calengine

import (
	"strings"
	"testing"
)

func TestFormatDate(t *testing.T) {
	t.Parallel()
	months := []Month{{Name: "Hammer", Length: 30}, {Name: "Alturiak", Length: 30}}
	years := map[int64]string{1492: "Year of Three Ships Sailing"}
	cases := []struct {
		name, format, suffix string
		d                    Date
		want                 string
	}{
		{"Kanka's default", "", "DR", Date{Year: 311, Month: 2, Day: 3}, "3 Alturiak, 311 DR"},
		{"Kanka's default spelt out", "d M, y s", "DR", Date{Year: 311, Month: 2, Day: 3}, "3 Alturiak, 311 DR"},
		{"no suffix: no trailing space", "", "", Date{Year: 311, Month: 2, Day: 3}, "3 Alturiak, 311"},
		{"a named year", "", "DR", Date{Year: 1492, Month: 1, Day: 1}, "1 Hammer, Year of Three Ships Sailing DR"},
		{"Y is the number even when named", "Y-m-d", "", Date{Year: 1492, Month: 1, Day: 9}, "1492-1-9"},
		{"negative year", "d/m/y", "", Date{Year: -44, Month: 1, Day: 15}, "15/1/-44"},
		{"literal text and escapes", `\da\y d \o\f M`, "", Date{Year: 5, Month: 1, Day: 2}, "day 2 of Hammer"},
		{"a trailing backslash writes nothing", `d\`, "", Date{Year: 5, Month: 1, Day: 2}, "2"},
		{"unicode passes through", "d · M", "", Date{Year: 5, Month: 1, Day: 2}, "2 · Hammer"},
		{"a month outside the calendar has no name", "M|d", "", Date{Year: 5, Month: 7, Day: 2}, "|2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatDate(tc.format, PartsOf(months, years, tc.suffix, tc.d)); got != tc.want {
				t.Errorf("FormatDate(%q) = %q, want %q", tc.format, got, tc.want)
			}
		})
	}
}

func TestDateFormatOnTheCalendar(t *testing.T) {
	t.Parallel()
	def := Definition{Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}}, Weekdays: []string{"x", "y"},
		Suffix: "AR", DateFormat: "M d, y s"}
	c := mustNew(t, def)
	if got := c.FormatDate(Date{Year: 3, Month: 2, Day: 4}); got != "B 4, 3 AR" {
		t.Errorf("got %q", got)
	}
	def.DateFormat = strings.Repeat("d", MaxDateFormatSize+1)
	_, err := New(def)
	if ve, ok := err.(*ValidationError); !ok || len(ve.Problems) != 1 || ve.Problems[0].Field != "format" {
		t.Errorf("a format past %d characters: %v", MaxDateFormatSize, err)
	}
	def.DateFormat = strings.Repeat("é", MaxDateFormatSize) // characters, not bytes
	if _, err := New(def); err != nil {
		t.Errorf("a format of %d characters: %v", MaxDateFormatSize, err)
	}
}
