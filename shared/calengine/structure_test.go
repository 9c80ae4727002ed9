package calengine

import (
	"context"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// structureDefinition is randomDefinition with the structure's rules on top: months that
// appear every N years (leap-rule grammar, offsets), months with their own week, weeks
// restarting with each month, leap days adding a weekday or going unnumbered.
func structureDefinition(seed uint64) Definition {
	def := randomDefinition(seed)
	r := rand.New(rand.NewPCG(seed^0x51ed, seed))
	intervals := []string{"2", "3", "400,!100,4", "!5,4", "+7,!3,2", "5", "!2,3"}
	def.Months[0].Length = max(def.Months[0].Length, 2) // the months of every year have 2 days or more
	for i := 1; i < len(def.Months); i++ {
		if r.IntN(2) == 0 {
			def.Months[i].Interval = intervals[r.IntN(len(intervals))]
			def.Months[i].Offset = int64(r.IntN(21) - 10)
		}
	}
	for i := range def.Months {
		if r.IntN(4) == 0 {
			for k := range 2 + r.IntN(5) {
				def.Months[i].Weekdays = append(def.Months[i].Weekdays, "M"+strconv.Itoa(i)+"W"+strconv.Itoa(k))
			}
		}
	}
	def.WeekRestart = r.IntN(4) == 0
	for i := range def.LeapDays {
		switch r.IntN(4) {
		case 0:
			def.LeapDays[i].Weekday = "Extra" + strconv.Itoa(i)
		case 1:
			def.LeapDays[i].NotNumbered = true
		}
	}
	// Eras that end their year early (at most one a year), around the years the tests walk.
	if r.IntN(2) == 0 {
		ended := map[int64]bool{}
		for k := range 1 + r.IntN(4) {
			y := int64(r.IntN(91) - 50)
			m := 1 + r.IntN(len(def.Months))
			n := min(len(refMonthLayout(def, y, m)), def.Months[m-1].Length)
			if n == 0 || ended[y] {
				continue
			}
			ended[y] = true
			def.Eras = append(def.Eras, Era{Name: "End" + strconv.Itoa(k), Year: y, Month: m, Day: 1 + r.IntN(n), EndsYear: true, Restart: r.IntN(2) == 0})
		}
	}
	return def
}

// refDay is one day of the reference layout.
type refDay struct {
	week        bool   // counted in a week
	weekday     string // a leap day's own weekday
	notNumbered bool
	leapName    string
	leap        bool
}

// refMonthLayout lays out month m of year y day by day, literally: absent when its interval
// rule says so; each leap rule's days after its day, in definition order (Kanka's first).
func refMonthLayout(def Definition, y int64, m int) (days []refDay) {
	if def.SkipYearZero && y == 0 {
		return nil
	}
	mo := def.Months[m-1]
	if !MonthEveryYear(mo) && !refRuleLeap(LeapDay{Interval: mo.Interval, Offset: mo.Offset}, y) {
		return nil
	}
	for _, e := range def.Eras { // an era ending the year: nothing after its date
		if e.EndsYear && e.Year == y && m >= e.Month {
			if m > e.Month {
				return nil
			}
			defer func() { days = days[:e.Day] }()
		}
	}
	std := mo.Type == Standard
	type block struct {
		after, n int
		day      refDay
	}
	var blocks []block
	if refLeap(def, y) && m == def.LeapYearMonth {
		blocks = append(blocks, block{mo.Length, def.LeapYearAmount, refDay{week: std, leap: true}})
	}
	for _, l := range def.LeapDays {
		if l.Month == m && refRuleLeap(l, y) {
			after := mo.Length
			if l.Day != nil {
				after = *l.Day
			}
			in := std && !l.Intercalary && l.Weekday == ""
			blocks = append(blocks, block{after, max(l.Amount, 1), refDay{week: in, weekday: l.Weekday, notNumbered: l.NotNumbered, leapName: l.Name, leap: true}})
		}
	}
	sort.SliceStable(blocks, func(i, j int) bool { return blocks[i].after < blocks[j].after })
	for i := 0; i <= mo.Length; i++ {
		for _, b := range blocks {
			if b.after == i {
				for range b.n {
					days = append(days, b.day)
				}
			}
		}
		if i < mo.Length {
			days = append(days, refDay{week: std})
		}
	}
	return days
}

// refWalk visits the days of years lo..hi in order with their day number and weekday name,
// counting the calendar-wide week over the months that do not restart it, each of those
// counting its own from its first day.
func refWalk(def Definition, lo, hi int64, fn func(n int64, d Date, rd refDay, weekday string)) {
	first := int64(0)
	if def.SkipYearZero {
		first = 1
	}
	restarts := func(m int) bool { return def.WeekRestart || len(def.Months[m].Weekdays) > 0 }
	count := func(y int64) (days, week int64) {
		for m := range def.Months {
			for _, rd := range refMonthLayout(def, y, m+1) {
				days++
				if rd.week && !restarts(m) {
					week++
				}
			}
		}
		return
	}
	var n, g int64
	for y := first; y < lo; y++ {
		a, b := count(y)
		n, g = n+a, g+b
	}
	for y := lo; y < first; y++ {
		a, b := count(y)
		n, g = n-a, g-b
	}
	nw := int64(len(def.Weekdays))
	for y := lo; y <= hi; y++ {
		if def.SkipYearZero && y == 0 {
			continue
		}
		for m := range def.Months {
			local := 0
			for i, rd := range refMonthLayout(def, y, m+1) {
				name := rd.weekday
				if rd.week {
					if restarts(m) {
						wk := def.Months[m].Weekdays
						if len(wk) == 0 {
							wk = def.Weekdays
						}
						name = wk[local%len(wk)]
						local++
					} else {
						name = def.Weekdays[((g+int64(def.StartOffset))%nw+nw)%nw]
						g++
					}
				}
				fn(n, Date{y, m + 1, i + 1}, rd, name)
				n++
			}
		}
	}
}

// TestStructureMatchesDayByDayModel compares the closed forms and the walk with the literal
// model over every day of a span of years, negative ones included, for many random calendars
// mixing leap rules, month intervals, own weeks and restarting weeks.
func TestStructureMatchesDayByDayModel(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		def := structureDefinition(seed)
		c, err := New(def)
		if err != nil {
			t.Fatalf("seed %d: New: %v", seed, err)
		}
		lo := int64(int(seed%61) - 40)
		hi := lo + 12
		checkStructure(t, c, def, lo, hi)
	}
}

func checkStructure(t *testing.T, c *Calendar, def Definition, lo, hi int64) {
	t.Helper()
	var ref []DayInfo
	refWalk(def, lo, hi, func(n int64, d Date, rd refDay, weekday string) {
		if got, err := c.DayNumber(d); err != nil || got != n {
			t.Fatalf("DayNumber(%v) = %d, %v; reference %d (def %+v)", d, got, err, n, def)
		}
		if got := c.DateOf(n); got != d {
			t.Fatalf("DateOf(%d) = %v; reference %v", n, got, d)
		}
		if got := c.WeekdayName(d); got != weekday {
			t.Fatalf("WeekdayName(%v) = %q; reference %q (def %+v)", d, got, weekday, def)
		}
		if name, ok := c.LeapDay(d); ok != rd.leap || name != rd.leapName {
			t.Fatalf("LeapDay(%v) = %q, %v; reference %q, %v", d, name, ok, rd.leapName, rd.leap)
		}
		ref = append(ref, DayInfo{Number: n, Date: d, WeekdayName: weekday, LeapDay: rd.leap, LeapName: rd.leapName, NotNumbered: rd.notNumbered})
	})
	for m := range def.Months {
		for y := lo; y <= hi; y++ {
			want := len(refMonthLayout(def, y, m+1))
			if got := c.DaysInMonth(y, m+1); got != want {
				t.Fatalf("DaysInMonth(%d, %d) = %d; reference %d", y, m+1, got, want)
			}
		}
	}
	if len(ref) == 0 {
		return
	}
	// The walk, started anywhere, agrees with the model day for day.
	start := len(ref) / 3
	i := start
	err := c.Days(context.Background(), ref[start].Number, ref[len(ref)-1].Number, func(di DayInfo) bool {
		w := ref[i]
		if di.Number != w.Number || di.Date != w.Date || di.WeekdayName != w.WeekdayName || di.LeapDay != w.LeapDay ||
			di.LeapName != w.LeapName || di.NotNumbered != w.NotNumbered {
			t.Fatalf("Days: %+v; reference %+v", di, w)
		}
		if wi, ok := c.Weekday(di.Date); ok != (di.Weekday >= 0) || (ok && wi != di.Weekday) {
			t.Fatalf("Days weekday %d; Weekday(%v) = %d, %v", di.Weekday, di.Date, wi, ok)
		}
		i++
		return true
	})
	if err != nil || i != len(ref) {
		t.Fatalf("Days visited %d of %d: %v", i-start, len(ref)-start, err)
	}
}

// FuzzStructure checks random structured calendars against the day-by-day model around any
// year, and that every day number maps back.
func FuzzStructure(f *testing.F) {
	for s := uint64(0); s < 12; s++ {
		f.Add(s, int64(s*13)-80, int64(s*s*977))
	}
	f.Fuzz(func(t *testing.T, seed uint64, year, day int64) {
		def := structureDefinition(seed)
		c, err := New(def)
		if err != nil {
			t.Fatalf("New(%+v): %v", def, err)
		}
		year = year % 200
		checkStructure(t, c, def, year, year+2)
		d := c.DateOf(day)
		if n, err := c.DayNumber(d); err != nil || n != day {
			t.Fatalf("DayNumber(DateOf(%d) = %v) = %d, %v", day, d, n, err)
		}
	})
}

func TestStructureValidation(t *testing.T) {
	t.Parallel()
	base := func() Definition {
		return Definition{Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 5}}, Weekdays: []string{"x", "y"}}
	}
	cases := []struct {
		name  string
		edit  func(*Definition)
		field string
	}{
		{"bad interval", func(d *Definition) { d.Months[1].Interval = "4,x" }, "month_interval.1"},
		{"all excluded", func(d *Definition) { d.Months[1].Interval = "!4" }, "month_interval.1"},
		{"no month every year", func(d *Definition) { d.Months[0].Interval = "2"; d.Months[1].Interval = "3" }, "month_interval"},
		{"one day every year", func(d *Definition) { d.Months[0].Length = 1; d.Months[1].Interval = "3" }, "month_interval"},
		{"own week of one day", func(d *Definition) { d.Months[0].Weekdays = []string{"solo"} }, "month_weekdays.0"},
		{"too many terms with the month", func(d *Definition) {
			d.Months[1].Interval = "37,31,29,23,19,17,13,11"
			d.LeapDays = []LeapDay{{Month: 2, Interval: "7,5,3,2"}}
		}, "leap_days.0.interval"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			def := base()
			tc.edit(&def)
			_, err := New(def)
			ve, ok := err.(*ValidationError)
			if !ok {
				t.Fatalf("New: %v; want a validation error on %s", err, tc.field)
			}
			for _, p := range ve.Problems {
				if p.Field == tc.field {
					return
				}
			}
			t.Fatalf("problems %+v; want one on %s", ve.Problems, tc.field)
		})
	}
}

// TestMonthIntervalExample is the worked example: a month every 4 years from year 2, its leap
// day only when it appears, weeks restarting.
func TestMonthIntervalExample(t *testing.T) {
	t.Parallel()
	def := Definition{
		Months:   []Month{{Name: "A", Length: 3}, {Name: "Rare", Length: 2, Interval: "4", Offset: 2}, {Name: "B", Length: 3}},
		Weekdays: []string{"x", "y"},
		LeapDays: []LeapDay{{Name: "Odd", Month: 2, Interval: "1", Weekday: "Oddday"}},
	}
	c := mustNew(t, def)
	for _, tc := range []struct {
		y    int64
		days int64
	}{{1, 6}, {2, 9}, {6, 9}, {-2, 9}, {3, 6}} {
		if got := c.DaysInYear(tc.y); got != tc.days {
			t.Errorf("DaysInYear(%d) = %d; want %d", tc.y, got, tc.days)
		}
	}
	if c.Valid(Date{1, 2, 1}) || !c.Valid(Date{2, 2, 3}) {
		t.Errorf("Rare should exist in year 2 only")
	}
	if got := c.WeekdayName(Date{2, 2, 3}); got != "Oddday" {
		t.Errorf("leap day's weekday %q", got)
	}
	if c.IsLeapYear(1) || !c.IsLeapYear(2) {
		t.Errorf("a year is a leap year by its leap days, not by its months")
	}
}

func TestErasWithinTheYear(t *testing.T) {
	t.Parallel()
	eras := SortEras([]Era{{Name: "Late", Year: 5, Month: 2, Day: 3, Restart: true}, {Name: "Old", Year: -10}, {Name: "Same year", Year: 5}})
	for _, tc := range []struct {
		d    Date
		want string
		n    int64
	}{
		{Date{5, 1, 9}, "Same year", 5}, {Date{5, 2, 2}, "Same year", 5}, {Date{5, 2, 3}, "Late", 1},
		{Date{6, 1, 1}, "Late", 2}, {Date{4, 3, 1}, "Old", 4}, {Date{-11, 1, 1}, "", 0},
	} {
		e, n, ok := EraAt(eras, false, tc.d)
		if e.Name != tc.want || n != tc.n || ok != (tc.want != "") {
			t.Errorf("EraAt(%v) = %q, %d, %v; want %q, %d", tc.d, e.Name, n, ok, tc.want, tc.n)
		}
	}
	if e, _, _ := EraOf(eras, false, 5); e.Name != "Same year" {
		t.Errorf("year 5 as a whole belongs to %q", e.Name)
	}
	def := Definition{Months: []Month{{Name: "A", Length: 3}, {Name: "B", Length: 3}}, Weekdays: []string{"x", "y"}}
	for _, tc := range []struct {
		era   Era
		field string
	}{{Era{Name: "e", Day: 2}, "eras.0.month"}, {Era{Name: "e", Month: 3, Day: 1}, "eras.0.month"}, {Era{Name: "e", Month: 2, Day: 4}, "eras.0.day"}, {Era{Name: "e", Month: 2}, "eras.0.day"}} {
		d := def
		d.Eras = []Era{tc.era}
		_, err := New(d)
		if ve, ok := err.(*ValidationError); !ok || ve.Problems[0].Field != tc.field {
			t.Errorf("%+v: %v; want a problem on %s", tc.era, err, tc.field)
		}
	}
}

// structureCalendar has every structure beyond Kanka's, for round trips.
func structureCalendar() Definition {
	day := 2
	return Definition{
		Months: []Month{
			{Name: "First", Length: 10, Weekdays: []string{"Un", "Deux", "Trois"}},
			{Name: "Rare", Length: 5, Interval: "4", Offset: 3},
			{Name: "Ruled", Length: 3, Interval: "400,!100,4", Offset: -2},
			{Name: "Feast", Length: 2, Type: Intercalary},
			{Name: "Last", Length: 12},
		},
		Weekdays:    []string{"Mo", "Tu", "We", "Th"},
		WeekRestart: true,
		LeapDays: []LeapDay{
			{Name: "Extra", Month: 1, Interval: "2", Weekday: "Extraday", Day: &day},
			{Name: "Blank", Month: 5, Interval: "3", Intercalary: true, NotNumbered: true},
		},
		Moons: []Moon{
			{ID: 1, Name: "Fine", Fullmoon: "29.5", Offset: "-3", Colour: "#ffffff", Granularity: 24},
			{ID: 2, Name: "Odd", Fullmoon: "5", Offset: "0", Colour: "#ff0000", Granularity: 4, CustomCycle: []int{0, 1, 1, 2, 3}, Hidden: true},
		},
		Eras:         []Era{{Name: "Old", Year: -100}, {Name: "New", Abbreviation: "N", Year: 12, Month: 5, Day: 7, Restart: true}},
		SkipYearZero: true,
	}
}

func TestStructureRoundTripsThroughFantasyCalendar(t *testing.T) {
	t.Parallel()
	def := structureCalendar()
	c := mustNew(t, def)
	out := exportBytes(t, c, "Structured", Date{13, 5, 2}, Time{})
	im, err := ImportFantasyCalendar(out)
	if err != nil {
		t.Fatalf("import of the export: %v", err)
	}
	if got, want := canonical(t, im.Definition), canonical(t, def); !reflect.DeepEqual(got, want) {
		t.Errorf("round trip\n got %+v\nwant %+v", got, want)
	}
	for _, w := range im.Warnings {
		if strings.Contains(w, "Rare") || strings.Contains(w, "Extra") || strings.Contains(w, "Odd") || strings.Contains(w, "New") {
			t.Errorf("warning about a modelled field: %s", w)
		}
	}
	ex, _ := c.ExportFantasyCalendar("Structured", Date{13, 5, 2}, Time{})
	if !strings.Contains(strings.Join(ex.Warnings, "\n"), `Month "Ruled" appears by the rule 400,!100,4`) {
		t.Errorf("export warnings %v", ex.Warnings)
	}
}

// TestRandomStructuresRoundTrip: export then import gives back every random structured
// calendar of the property test.
func TestRandomStructuresRoundTrip(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		def := structureDefinition(seed)
		c := mustNew(t, def)
		out := exportBytes(t, c, "R", c.DateOf(0), Time{})
		im, err := ImportFantasyCalendar(out)
		if err != nil {
			t.Fatalf("seed %d: import of the export: %v", seed, err)
		}
		if got, want := canonical(t, im.Definition), canonical(t, def); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: round trip\n got %+v\nwant %+v", seed, got, want)
		}
	}
}

// TestErasEndingTheirYear pins Fantasy-Calendar's ends_year by hand: year -2 of a calendar
// skipping year zero ends on its 2-4, so year -1 starts the next day, everything after moves by
// the 16 days cut, the week runs on, and a restarting era counts its first full year as 1.
func TestErasEndingTheirYear(t *testing.T) {
	t.Parallel()
	def := Definition{
		Months:   []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}, {Name: "C", Length: 10}},
		Weekdays: []string{"Mo", "Tu", "We"}, SkipYearZero: true,
		Eras: []Era{{Name: "Cut", Year: -2, Month: 2, Day: 4, EndsYear: true, Restart: true}, {Name: "Huge", Year: 1 << 55, Month: 1, Day: 1, EndsYear: true}},
	}
	c := mustNew(t, def)
	for _, tc := range []struct {
		d    Date
		n    int64
		name string
	}{
		{Date{1, 1, 1}, 0, "Mo"},
		{Date{-1, 1, 1}, -30, "Mo"},
		{Date{-2, 2, 4}, -31, "We"},  // the cut year's last day
		{Date{-2, 1, 1}, -44, "Tu"},  // 14 days long
		{Date{-3, 3, 10}, -45, "Mo"}, // the years before keep their 30 days
		{Date{-3, 1, 1}, -74, "Tu"},
	} {
		if n, err := c.DayNumber(tc.d); err != nil || n != tc.n {
			t.Errorf("DayNumber(%v) = %d, %v; want %d", tc.d, n, err, tc.n)
		}
		if got := c.DateOf(tc.n); got != tc.d {
			t.Errorf("DateOf(%d) = %v; want %v", tc.n, got, tc.d)
		}
		if got := c.WeekdayName(tc.d); got != tc.name {
			t.Errorf("WeekdayName(%v) = %q; want %q", tc.d, got, tc.name)
		}
	}
	for _, gone := range []Date{{-2, 2, 5}, {-2, 3, 1}} {
		if c.Valid(gone) {
			t.Errorf("%v is after the era's date but valid", gone)
		}
	}
	if c.DaysInYear(-2) != 14 || c.DaysInMonth(-2, 2) != 4 || c.DaysInMonth(-2, 3) != 0 || c.DaysInYear(-3) != 30 {
		t.Errorf("lengths: year %d, months %d %d", c.DaysInYear(-2), c.DaysInMonth(-2, 2), c.DaysInMonth(-2, 3))
	}
	for _, tc := range []struct {
		d    Date
		want int64
	}{{Date{-2, 2, 3}, -2}, {Date{-2, 2, 4}, 0}, {Date{-1, 1, 1}, 1}, {Date{1, 1, 1}, 2}} {
		e, n, _ := c.EraAtDate(tc.d)
		if want := map[bool]string{true: "Cut", false: ""}[tc.want != -2]; e.Name != want || (want != "" && n != tc.want) {
			t.Errorf("EraAtDate(%v) = %q %d; want %q %d", tc.d, e.Name, n, want, tc.want)
		}
	}
	// A cut far away costs nothing near day 0 and its own year still maps both ways.
	huge := Date{1 << 55, 1, 1}
	n, err := c.DayNumber(huge)
	if err != nil || c.DateOf(n) != huge || c.DateOf(n+1) != (Date{1<<55 + 1, 1, 1}) {
		t.Errorf("the far cut: %d %v, next %v", n, err, c.DateOf(n+1))
	}
}
