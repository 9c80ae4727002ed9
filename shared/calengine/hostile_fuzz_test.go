package calengine

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// The engine and importer targets of issue 16: whatever the rules, a range or an export, the
// engine answers a value or a problem naming a field, never panics, and its work is bounded by
// the limits (counted here in days walked and rule terms, never timed).

// checkDayWalk walks from..to with Days and compares every day with the closed forms: the
// days are consecutive, each once, with DateOf's date, Weekday's weekday and LeapDay's rule.
func checkDayWalk(t *testing.T, c *Calendar, from, to int64) {
	t.Helper()
	want := from
	err := c.Days(context.Background(), from, to, func(d DayInfo) bool {
		if d.Number != want {
			t.Fatalf("day %d visited, want %d", d.Number, want)
		}
		want++
		if dt := c.DateOf(d.Number); d.Date != dt {
			t.Fatalf("day %d: date %v, DateOf %v", d.Number, d.Date, dt)
		}
		w, ok := c.Weekday(d.Date)
		if !ok {
			w = -1
		}
		if d.Weekday != w {
			t.Fatalf("day %d (%v): weekday %d, Weekday %d", d.Number, d.Date, d.Weekday, w)
		}
		name, leap := c.LeapDay(d.Date)
		if d.LeapDay != leap || d.LeapName != name {
			t.Fatalf("day %d (%v): leap %v %q, LeapDay %v %q", d.Number, d.Date, d.LeapDay, d.LeapName, leap, name)
		}
		return true
	})
	if err != nil || want != to+1 {
		t.Fatalf("Days(%d, %d) stopped at %d: %v", from, to, want, err)
	}
}

// FuzzDayView checks the day view's walk against the closed forms on random calendars, near
// day 0 and far from it.
func FuzzDayView(f *testing.F) {
	f.Add(uint64(1), int64(0), uint16(999))
	f.Add(uint64(2), int64(-500), uint16(999))
	f.Add(uint64(3), int64(math.MaxInt64-999), uint16(999))
	f.Add(uint64(4), int64(math.MinInt64), uint16(999))
	f.Add(uint64(5), int64(1<<53-1), uint16(400))
	for s := uint64(6); s < 30; s++ {
		f.Add(s, int64(s*s*977)-50_000, uint16(s*41))
	}
	f.Fuzz(func(t *testing.T, seed uint64, from int64, span uint16) {
		def := randomDefinition(seed)
		c, err := New(def)
		if err != nil {
			t.Fatalf("New(%+v): %v", def, err)
		}
		to := from + int64(span%1000)
		if to < from { // past the last day
			from, to = math.MaxInt64-int64(span%1000), math.MaxInt64
		}
		checkDayWalk(t, c, from, to)
	})
}

// leapRulesDefinition is a calendar of two 30-day months with n copies of one leap rule,
// placed in either month, at different offsets.
func leapRulesDefinition(interval string, n int, offset int64) Definition {
	def := Definition{Months: []Month{{Name: "A", Length: 30}, {Name: "B", Length: 30}}, Weekdays: []string{"X", "Y", "Z"}}
	for i := range n {
		def.LeapDays = append(def.LeapDays, LeapDay{Name: "L", Month: 1 + i%2, Interval: interval, Offset: offset + int64(i), Intercalary: i%3 == 0})
	}
	return def
}

// FuzzLeapRules feeds any interval text, repeated in up to MaxLeapDays rules: New refuses it
// with problems naming the rules' fields, or accepts it with at most MaxLeapTerms terms in
// all, and then the day walk, advance and retreat agree with the closed forms.
func FuzzLeapRules(f *testing.F) {
	hostile := "37,31,29,23,19,17,13,11,7,5,3,2"
	f.Add(hostile, uint8(100), int64(0), int64(1), uint16(967))
	f.Add(hostile, uint8(1), int64(0), int64(1<<53-5), uint16(999))
	f.Add("400,!100,4", uint8(85), int64(0), int64(-1), uint16(999))
	f.Add("13,11,7,5,3,2", uint8(4), int64(1), int64(1<<53-1), uint16(999))
	f.Add("8,7,5,3", uint8(16), int64(-7), int64(2000), uint16(500))
	f.Add("!2,+3,4,!0", uint8(2), int64(3), int64(0), uint16(10))
	f.Add("1000000000,999999999,999999998", uint8(3), int64(math.MaxInt64), int64(math.MinInt64/2), uint16(999))
	f.Add(",,,", uint8(0), int64(0), int64(0), uint16(0))
	f.Fuzz(func(t *testing.T, interval string, rules uint8, offset, year int64, span uint16) {
		n := 1 + int(rules)%MaxLeapDays
		c, err := New(leapRulesDefinition(interval, n, offset))
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("New: %v, want problems", err)
			}
			for _, p := range ve.Problems {
				if !strings.HasPrefix(p.Field, "leap_days") || p.Message == "" {
					t.Fatalf("problem %+v does not name a rule's field", p)
				}
			}
			return
		}
		terms := 0
		for _, l := range c.leaps {
			terms += len(l.terms)
		}
		if terms > MaxLeapTerms {
			t.Fatalf("%d rules of %q: %d terms, more than %d", n, interval, terms, MaxLeapTerms)
		}
		start := Date{Year: year, Month: 1, Day: 1}
		if year == 0 || !c.Valid(start) {
			return
		}
		from, _ := c.DayNumber(start)
		to := from + int64(span%1000)
		if to < from {
			return
		}
		checkDayWalk(t, c, from, to)
		checkMove(t, c, start, int64(span)*37)
	})
}

// checkMove advances d by n days and retreats again: the day numbers differ by n and the
// retreat lands on d; a move out of range is refused both ways alike.
func checkMove(t *testing.T, c *Calendar, d Date, n int64) {
	t.Helper()
	dn, err := c.DayNumber(d)
	if err != nil {
		t.Fatalf("DayNumber(%v): %v", d, err)
	}
	fwd, err := c.AddDays(d, n)
	if err != nil {
		if dn <= math.MaxInt64-n {
			t.Fatalf("AddDays(%v, %d) refused within range: %v", d, n, err)
		}
		return
	}
	if fn, err := c.DayNumber(fwd); err != nil || fn != dn+n {
		t.Fatalf("AddDays(%v, %d) = %v, day %d (%v), want day %d", d, n, fwd, fn, err, dn+n)
	}
	back, err := c.AddDays(fwd, -n)
	if err != nil || back != d {
		t.Fatalf("retreat of %d from %v = %v, %v; want %v", n, fwd, back, err, d)
	}
}

// FuzzAdvance moves random dates of random calendars forth and back by up to the API's
// MaxMoveDays and by extreme amounts.
func FuzzAdvance(f *testing.F) {
	f.Add(uint64(1), int64(4), uint8(2), uint8(28), int64(1))
	f.Add(uint64(2), int64(-11106), uint8(2), uint8(21), int64(1_000_000))
	f.Add(uint64(3), int64(1<<53-1), uint8(1), uint8(1), int64(-1_000_000))
	f.Add(uint64(4), int64(math.MaxInt64/3), uint8(9), uint8(9), int64(math.MaxInt64))
	f.Add(uint64(5), int64(math.MinInt64/3), uint8(3), uint8(3), int64(math.MinInt64+1))
	for s := uint64(6); s < 24; s++ {
		f.Add(s, int64(s*s)-100, uint8(s), uint8(s*3), int64(s*99991)-700_000)
	}
	f.Fuzz(func(t *testing.T, seed uint64, year int64, month, day uint8, n int64) {
		def := randomDefinition(seed)
		c, err := New(def)
		if err != nil {
			t.Fatal(err)
		}
		if n == math.MinInt64 {
			n++
		}
		d := pickDate(def, year, month, day)
		if !c.Valid(d) {
			return
		}
		checkMove(t, c, d, n)
		checkMove(t, c, d, n%1_000_001)
	})
}

// TestDaysStopsWithItsContext: a walk whose context has ended does no more days.
func TestDaysStopsWithItsContext(t *testing.T) {
	t.Parallel()
	c, err := New(leapRulesDefinition("400,!100,4", 10, 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	visited := 0
	err = c.Days(ctx, 0, 1_000_000, func(DayInfo) bool {
		if visited++; visited == 10 {
			cancel()
		}
		return true
	})
	if !errors.Is(err, context.Canceled) || visited > daysCheckEvery {
		t.Fatalf("after cancelling: %d days visited, %v", visited, err)
	}
}

// TestLeapTermsAreCapped: rules whose intervals expand past MaxLeapTerms are refused naming the
// rule that passes it, alone or together; the 100 rules of 12 coprime intervals are.
func TestLeapTermsAreCapped(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		def      Definition
		field    string // "" when accepted
		maxTerms int
	}{
		{"12 coprime intervals", leapRulesDefinition("37,31,29,23,19,17,13,11,7,5,3,2", 1, 0), "leap_days.0.interval", 0},
		{"100 such rules", leapRulesDefinition("37,31,29,23,19,17,13,11,7,5,3,2", 100, 0), "leap_days.0.interval", 0},
		{"8 coprime intervals: 255 terms", leapRulesDefinition("19,17,13,11,7,5,3,2", 1, 0), "", 255},
		{"two of them pass the cap together", leapRulesDefinition("19,17,13,11,7,5,3,2", 2, 0), "leap_days.1.interval", 0},
		{"85 Gregorian rules: 255 terms", leapRulesDefinition("400,!100,4", 85, 0), "", 255},
		{"86 Gregorian rules", leapRulesDefinition("400,!100,4", 86, 0), "leap_days.85.interval", 0},
		{"dividing intervals merge into one term", leapRulesDefinition("4096,2048,1024,512,256,128,64,32,16,8,4,2", 2, 0), "", 2},
		{"but take 4,095 steps each", leapRulesDefinition("4096,2048,1024,512,256,128,64,32,16,8,4,2", 100, 0), "leap_days.2.interval", 0},
		{"Fibonacci's eleven intervals: 229 terms", leapRulesDefinition("233,!144,+89,55,!34,+21,13,+!8,!5,3,2", 1, 0), "", 229},
	}
	for _, tc := range cases {
		c, err := New(tc.def)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			terms := 0
			for _, l := range c.leaps {
				terms += len(l.terms)
			}
			if terms != tc.maxTerms {
				t.Errorf("%s: %d terms, want %d", tc.name, terms, tc.maxTerms)
			}
			continue
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Problems[0].Field != tc.field || !strings.Contains(ve.Problems[0].Message, "256 terms") {
			t.Errorf("%s: %v, want a problem naming %s and the limit", tc.name, err, tc.field)
		}
	}
}

// FuzzImportFantasyCalendar reads any bytes as an export: an import whose calendar the engine
// accepts with its current date, or problems each naming a field of the export, never a panic.
// The corpus holds the exports: numbers of a million digits of exponent, a 100,000-digit
// integer, 100 leap days of 12 coprime intervals.
func FuzzImportFantasyCalendar(f *testing.F) {
	f.Add([]byte(`{"name":"X","static_data":{"year_data":{"global_week":["a","b"],"timespans":[{"name":"A","length":3},{"name":"B","length":"2"}],"leap_days":[{"name":"L","timespan":0,"interval":"400,!100,4"}]},"moons":[{"name":"M","cycle":"29.5","shift":2}]},"dynamic_data":{"year":4,"timespan":0,"day":4}}`))
	f.Add([]byte(`{"name":"X","static_data":{"year_data":{"global_week":["a","b"],"timespans":[{"name":"A","length":1},{"name":"B","length":1}]},"moons":[{"name":"M","cycle":"1e999999"}]}}`))
	f.Add([]byte(`{"name":"X","static_data":{"year_data":{"global_week":["a","b"],"timespans":[{"name":"A","length":1e40},{"name":"B","length":0x10}]}},"dynamic_data":{"year":-1E-41}}`))
	// Issue 21: events of each mapped kind and hostile ones, weather, moon rounding.
	f.Add([]byte(`{"name":"X","static_data":{"year_data":{"global_week":["a","b"],"timespans":[{"name":"A","length":30},{"name":"B","length":30}]},"moons":[{"name":"M","cycle":29.5,"shift":3,"granularity":24,"cycle_rounding":"ceil"}],` +
		`"seasons":{"data":[{"name":"S","timespan":0,"day":1}],"locations":[{"seasons":[{"weather":{"temp_low":-1e3,"temp_high":1e3,"precipitation":2,"precipitation_intensity":-1}}]}],"global_settings":{"enable_weather":true,"seed":1e300}},` +
		`"event_data":{"categories":[{"id":"x","name":"<b>C</b>"}],"events":[{"name":"Y","event_category_id":"x","data":{"conditions":[["Month","0",["1"]],["&&"],["Day","0",["30"]]]}},` +
		`{"name":"E","data":{"has_duration":true,"duration":"99999999999","conditions":[["Epoch","6",["1e9","-5"]]]}},{"name":"W","data":{"conditions":[["Weekday","0",["b"]],["&&"],["Weekday","8",["-1"]]]}},` +
		`{"name":"L","data":{"limited_repeat":true,"limited_repeat_num":"3","conditions":[["Year","6",["4","9007199254740993"]],["&&"],["Month","0",["0"]],["&&"],["Day","0",["1"]]]}},` +
		`{"name":"M","data":{"conditions":[["Moons","0",["0","12"]]]}},{"name":"D","data":{"conditions":[["Date","0",[-1e20,0,1]]]}},{"data":{"conditions":[[[["Day","0",["1"]]]]]}}]}},` +
		`"dynamic_data":{"year":1,"timespan":0,"day":1,"location":"0","custom_location":true}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := ImportFantasyCalendar(data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("import: %v, want problems", err)
			}
			for _, p := range ve.Problems {
				root, _, _ := strings.Cut(p.Field, ".")
				if (root != "name" && root != "static_data" && root != "dynamic_data") || p.Message == "" {
					t.Fatalf("problem %+v does not name a field of the export", p)
				}
			}
			return
		}
		c, err := New(im.Definition)
		if err != nil || !c.Valid(im.Date) {
			t.Fatalf("imported %+v, date %v: %v", im.Definition, im.Date, err)
		}
		if len(im.Events) > MaxImportEvents {
			t.Fatalf("%d events imported", len(im.Events))
		}
		for _, ev := range im.Events { // each event a reminder the calendar accepts
			if _, err := c.DayNumber(ev.Start); err != nil || ev.Length < 1 || ev.Length > MaxImportEventLength ||
				(ev.Rule != nil && len(c.CheckRule(*ev.Rule, ev.Start)) > 0) || (ev.Rule != nil && ev.Recurrence.Kind != RecurNone) {
				t.Fatalf("imported event %+v", ev)
			}
			if _, err := c.Occurrences(Event{Start: ev.Start, Length: ev.Length, Recurrence: ev.Recurrence, Rule: ev.Rule, Until: ev.RecurringUntil}, ev.Start, ev.Start); err != nil {
				t.Fatalf("imported event %+v: %v", ev, err)
			}
		}
		if im.Climate != nil && len(ClimateProblems(*im.Climate, len(im.Definition.Seasons), "c")) > 0 {
			t.Fatalf("imported climate %+v", im.Climate)
		}
		if len(im.Events) > MaxImportEvents {
			t.Fatalf("%d events imported", len(im.Events))
		}
		for _, ev := range im.Events { // each event a reminder the calendar accepts
			if _, err := c.DayNumber(ev.Start); err != nil || ev.Length < 1 || ev.Length > MaxImportEventLength ||
				(ev.Rule != nil && len(c.CheckRule(*ev.Rule, ev.Start)) > 0) || (ev.Rule != nil && ev.Recurrence.Kind != RecurNone) {
				t.Fatalf("imported event %+v", ev)
			}
			if _, err := c.Occurrences(Event{Start: ev.Start, Length: ev.Length, Recurrence: ev.Recurrence, Rule: ev.Rule, Until: ev.RecurringUntil}, ev.Start, ev.Start); err != nil {
				t.Fatalf("imported event %+v: %v", ev, err)
			}
		}
		if im.Climate != nil && len(ClimateProblems(*im.Climate, len(im.Definition.Seasons), "c")) > 0 {
			t.Fatalf("imported climate %+v", im.Climate)
		}
		terms := 0
		for _, l := range c.leaps {
			terms += len(l.terms)
		}
		if terms > MaxLeapTerms {
			t.Fatalf("imported rules of %d terms", terms)
		}
		n, _ := c.DayNumber(im.Date)
		if n <= math.MaxInt64-9 {
			checkDayWalk(t, c, n, n+9)
		}
	})
}
