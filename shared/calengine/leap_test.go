package calengine

import (
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// refRuleLeap applies a rule's definition literally: of the intervals,
// largest first (written order among equals), the first dividing
// y - offset decides. Parsed here independently of parseInterval.
func refRuleLeap(l LeapDay, y int64) bool {
	if l.FromYear != nil && y < *l.FromYear {
		return false
	}
	type iv struct {
		n          int64
		excl, noOf bool
	}
	var ivs []iv
	for _, p := range strings.Split(l.Interval, ",") {
		p = strings.TrimSpace(p)
		v := iv{excl: strings.Contains(p, "!"), noOf: strings.Contains(p, "+")}
		v.n, _ = strconv.ParseInt(strings.Trim(p, "!+"), 10, 64)
		ivs = append(ivs, v)
	}
	sort.SliceStable(ivs, func(i, j int) bool { return ivs[i].n > ivs[j].n })
	for _, v := range ivs {
		off := l.Offset
		if v.noOf {
			off = 0
		}
		if ((y%v.n-off%v.n)%v.n+v.n)%v.n == 0 { // no overflow for extreme offsets
			return !v.excl
		}
	}
	return false
}

func TestParseInterval(t *testing.T) {
	t.Parallel()
	good := map[string][]interval{
		"4":          {{n: 4}},
		"400,!100,4": {{n: 400}, {n: 100, exclude: true}, {n: 4}},
		"4,!100,400": {{n: 400}, {n: 100, exclude: true}, {n: 4}},
		" 7 , +!3":   {{n: 7}, {n: 3, exclude: true, noOffset: true}},
		"!+2,5":      {{n: 5}, {n: 2, exclude: true, noOffset: true}},
	}
	for in, want := range good {
		got, err := parseInterval(in)
		if err != nil || len(got) != len(want) {
			t.Errorf("parseInterval(%q) = %v, %v; want %v", in, got, err, want)
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("parseInterval(%q)[%d] = %+v; want %+v", in, i, got[i], want[i])
			}
		}
	}
	for _, in := range []string{"", ",", "0", "-4", "4,", "!4", "!4,!100", "4.5", "a", "4;100", "1000000001",
		"1,2,3,4,5,6,7,8,9,10,11,12,13", "++", "4 4"} {
		if got, err := parseInterval(in); err == nil {
			t.Errorf("parseInterval(%q) = %v; want an error", in, got)
		}
	}
}

// TestExpandMatchesFirstMatchRule checks the congruence terms and their
// counts against the literal rule, year by year, for written and random
// interval strings and offsets.
func TestExpandMatchesFirstMatchRule(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 11))
	specs := []string{"4", "400,!100,4", "!1000,746,!373,!5,4", "!2203,!400,+!100,4,!2", "233,!144,+89,55,!34,+21,13,+!8,!5,3,2",
		"1", "!6,!10,15,2", "3,!2", "+7,!3,2", "12,!6,4,!3,2"}
	for range 60 {
		var parts []string
		for range 1 + r.IntN(5) {
			p := strconv.Itoa(1 + r.IntN(30))
			if r.IntN(3) == 0 {
				p = "!" + p
			}
			if r.IntN(5) == 0 {
				p = "+" + p
			}
			parts = append(parts, p)
		}
		parts = append(parts, strconv.Itoa(1+r.IntN(9)))
		specs = append(specs, strings.Join(parts, ","))
	}
	for _, spec := range specs {
		for _, offset := range []int64{0, 1, -3, 17, 1_000_000_007} {
			ld := LeapDay{Interval: spec, Offset: offset, Month: 1}
			l, ok := newLeapCalc(Definition{Months: []Month{{Name: "A", Length: 3}}}, ld, 0, "x", nil, nil)
			if !ok {
				t.Fatalf("%q rejected", spec)
			}
			var count int64
			base := l.leapsBefore(-500)
			for y := int64(-500); y < 500; y++ {
				want := refRuleLeap(ld, y)
				if got := l.isLeap(y); got != want {
					t.Fatalf("%q offset %d: isLeap(%d) = %v; want %v (terms %v)", spec, offset, y, got, want, l.terms)
				}
				if want {
					count++
				}
				if got, _ := l.leapsBefore(y + 1).sub(base).int64(); got != count {
					t.Fatalf("%q offset %d: leap years in [-500, %d] = %d; want %d", spec, offset, y, got, count)
				}
			}
		}
	}
	// Gregorian is three terms.
	l, _ := newLeapCalc(Definition{Months: []Month{{Name: "A", Length: 3}}}, LeapDay{Interval: "400,!100,4", Month: 1}, 0, "x", nil, nil)
	if len(l.terms) != 3 {
		t.Errorf("Gregorian terms = %v", l.terms)
	}
}

func TestLeapDayValidation(t *testing.T) {
	t.Parallel()
	base := Definition{Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 5}}, Weekdays: []string{"x", "y"}}
	five := 5
	six := 6
	neg := -1
	tests := []struct {
		name  string
		rules []LeapDay
		field string
	}{
		{"bad interval syntax", []LeapDay{{Month: 1, Interval: "4,x"}}, "leap_days.0.interval"},
		{"only exclusions", []LeapDay{{Month: 1, Interval: "!4"}}, "leap_days.0.interval"},
		{"month out of range", []LeapDay{{Month: 1, Interval: "4"}, {Month: 3, Interval: "4"}}, "leap_days.1.month"},
		{"month zero", []LeapDay{{Month: 0, Interval: "4"}}, "leap_days.0.month"},
		{"day beyond the month", []LeapDay{{Month: 2, Interval: "4", Day: &six}}, "leap_days.0.day"},
		{"negative day", []LeapDay{{Month: 2, Interval: "4", Day: &neg}}, "leap_days.0.day"},
		{"cycle too long", []LeapDay{{Month: 2, Interval: "999999937,999999929,!999999893,2"}}, "leap_days.0.interval"},
		{"negative amount", []LeapDay{{Month: 2, Interval: "4", Amount: -1}}, "leap_days.0.amount"},
	}
	for _, tt := range tests {
		def := base
		def.LeapDays = tt.rules
		_, err := New(def)
		ve, ok := err.(*ValidationError)
		if !ok || len(ve.Problems) != 1 || ve.Problems[0].Field != tt.field {
			t.Errorf("%s: %v; want one problem on %s", tt.name, err, tt.field)
		}
	}
	def := base
	def.LeapDays = []LeapDay{{Month: 2, Interval: "4", Day: &five}, {Month: 1, Interval: "1000000000"}}
	if _, err := New(def); err != nil {
		t.Errorf("valid rules rejected: %v", err)
	}
}

// TestLeapDayPlacement: a rule placed after day N of a month puts its day
// at N+1 and shifts the later days; an intercalary one has no weekday and
// does not advance the week; rules in the same month stack in day order.
func TestLeapDayPlacement(t *testing.T) {
	t.Parallel()
	ten, zero := 10, 0
	c := mustNew(t, Definition{
		Months:   []Month{{Name: "A", Length: 20}, {Name: "B", Length: 20}},
		Weekdays: []string{"w0", "w1", "w2", "w3", "w4"},
		LeapDays: []LeapDay{
			{Name: "Feast", Month: 1, Day: &ten, Interval: "2", Intercalary: true},
			{Name: "Dawn", Month: 1, Day: &zero, Interval: "3"},
			{Name: "Tail", Month: 2, Interval: "6", Amount: 2},
		},
	})
	// Year 0 takes all three rules; year 1 none; year 2 Feast; year 3 Dawn.
	for y, want := range map[int64][2]int{0: {22, 22}, 1: {20, 20}, 2: {21, 20}, 3: {21, 20}, 6: {22, 22}} {
		if got := [2]int{c.DaysInMonth(y, 1), c.DaysInMonth(y, 2)}; got != want {
			t.Errorf("year %d month lengths %v; want %v", y, got, want)
		}
	}
	leap := func(dt Date) string {
		n, ok := c.LeapDay(dt)
		if !ok {
			return "-"
		}
		return n
	}
	tests := []struct {
		date    Date
		leap    string
		weekday int // -1: none
	}{
		// Year 0: Dawn is day 1, days 2..11 are the old 1..10, Feast is 12.
		{d(0, 1, 1), "Dawn", 0},
		{d(0, 1, 2), "-", 1},
		{d(0, 1, 11), "-", 0},
		{d(0, 1, 12), "Feast", -1},
		{d(0, 1, 13), "-", 1}, // the week resumes where it stopped
		{d(0, 1, 22), "-", 0},
		// Month A has 21 weekday-advancing days (Feast is outside the week).
		{d(0, 2, 20), "-", 0},
		{d(0, 2, 21), "Tail", 1},
		{d(0, 2, 22), "Tail", 2},
		{d(1, 1, 1), "-", 3},
		// Year 2: Feast only, at 11.
		{d(2, 1, 10), "-", 2},
		{d(2, 1, 11), "Feast", -1},
		{d(2, 1, 12), "-", 3},
	}
	for _, tt := range tests {
		if got := leap(tt.date); got != tt.leap {
			t.Errorf("LeapDay(%v) = %q; want %q", tt.date, got, tt.leap)
		}
		w, ok := c.Weekday(tt.date)
		if !ok {
			w = -1
		}
		if w != tt.weekday {
			t.Errorf("Weekday(%v) = %d; want %d", tt.date, w, tt.weekday)
		}
	}
	if c.Valid(d(1, 1, 21)) || !c.Valid(d(0, 1, 22)) || c.Valid(d(2, 2, 21)) {
		t.Error("month lengths do not follow the rules")
	}
	// Year 1 starts after 22+22 days of year 0.
	if n, _ := c.DayNumber(d(1, 1, 1)); n != 44 {
		t.Errorf("DayNumber(1-1-1) = %d; want 44", n)
	}
}

func TestLeapDayFromYear(t *testing.T) {
	t.Parallel()
	from := int64(8)
	c := mustNew(t, Definition{
		Months:   []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}},
		Weekdays: []string{"x", "y"},
		LeapDays: []LeapDay{{Month: 2, Interval: "4", FromYear: &from}},
	})
	for y, want := range map[int64]bool{-4: false, 0: false, 4: false, 7: false, 8: true, 10: false, 12: true} {
		if got := c.IsLeapYear(y); got != want {
			t.Errorf("IsLeapYear(%d) = %v; want %v", y, got, want)
		}
	}
	// Years before 8 are all 20 days long, either side of year 0.
	for y, want := range map[int64]int64{-10: -200, 8: 160, 9: 181, 13: 262} {
		if n, _ := c.DayNumber(d(y, 1, 1)); n != want {
			t.Errorf("DayNumber(%d-1-1) = %d; want %d", y, n, want)
		}
	}
}

func TestKankaFields(t *testing.T) {
	t.Parallel()
	months := []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10, Type: Intercalary}}
	kanka := KankaLeapDay(2, 1, 4, -3)
	amount, month, offset, start, ok := KankaFields(months, []LeapDay{kanka})
	if !ok || amount != 2 || month != 1 || offset != 4 || start != -3 {
		t.Errorf("KankaFields(Kanka's rule) = %d %d %d %d %v", amount, month, offset, start, ok)
	}
	ten, five := 10, 5
	from := int64(0)
	for name, rules := range map[string][]LeapDay{
		"two rules":        {kanka, kanka},
		"two intervals":    {{Month: 1, Interval: "400,!100,4", FromYear: &from}},
		"no from year":     {{Month: 1, Interval: "4"}},
		"named":            {{Name: "Leap", Month: 1, Interval: "4", FromYear: &from}},
		"mid-month":        {{Month: 1, Interval: "4", FromYear: &from, Day: &five}},
		"intercalary":      {{Month: 1, Interval: "4", FromYear: &from, Intercalary: true}},
		"from is not base": {{Month: 1, Interval: "4", FromYear: &from, Offset: 1}},
	} {
		if _, _, _, _, ok := KankaFields(months, rules); ok {
			t.Errorf("%s: fits Kanka's fields", name)
		}
	}
	for name, rules := range map[string][]LeapDay{
		"explicit last day":                {{Month: 1, Interval: "4", FromYear: &from, Day: &ten}},
		"intercalary in intercalary month": {{Month: 2, Interval: "4", FromYear: &from, Intercalary: true}},
	} {
		if _, _, _, _, ok := KankaFields(months, rules); !ok {
			t.Errorf("%s: does not fit Kanka's fields", name)
		}
	}
}

func TestEras(t *testing.T) {
	t.Parallel()
	def := Definition{
		Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}}, Weekdays: []string{"x", "y"},
		SkipYearZero: true,
		Eras: []Era{
			{Name: "Third Age", Abbreviation: "TA", Year: 100, Restart: true},
			{Name: "Before", Abbreviation: "BE", Year: -50},
			{Name: "Dawn", Abbreviation: "DA", Year: -10, Restart: true},
		},
	}
	c := mustNew(t, def)
	tests := []struct {
		year    int64
		era     string
		eraYear int64
		ok      bool
	}{
		{-51, "", 0, false},
		{-50, "Before", -50, true},
		{-11, "Before", -11, true},
		{-10, "Dawn", 1, true},
		{-1, "Dawn", 10, true},
		{1, "Dawn", 11, true}, // year 0 is skipped
		{99, "Dawn", 109, true},
		{100, "Third Age", 1, true},
		{2024, "Third Age", 1925, true},
	}
	for _, tt := range tests {
		e, n, ok := c.EraOf(tt.year)
		if ok != tt.ok || e.Name != tt.era || n != tt.eraYear {
			t.Errorf("EraOf(%d) = %q %d %v; want %q %d %v", tt.year, e.Name, n, ok, tt.era, tt.eraYear, tt.ok)
		}
	}
}
