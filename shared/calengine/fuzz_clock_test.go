package calengine

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"testing"
)

// FuzzClock: moving a date and time by any number of minutes on any clock conserves the
// minutes exactly (counted as day numbers times the day's minutes plus the time of day) and
// lands on a time of the clock; a year's cycle names repeat every length × names years.
func FuzzClock(f *testing.F) {
	f.Add(uint64(1), uint16(24), uint16(60), uint16(0), uint16(0), int64(1), int64(0), uint32(1), int64(0), uint8(12))
	f.Add(uint64(2), uint16(1), uint16(1), uint16(0), uint16(0), int64(-1), int64(-5), uint32(2), int64(3), uint8(5))
	f.Add(uint64(3), uint16(1000), uint16(1000), uint16(999), uint16(999), int64(math.MaxInt64), int64(math.MinInt64/2), uint32(1_000_000_000), int64(math.MinInt64), uint8(1))
	f.Add(uint64(4), uint16(7), uint16(13), uint16(6), uint16(12), int64(math.MinInt64), int64(math.MaxInt64/3), uint32(12), int64(math.MaxInt64), uint8(255))
	f.Add(uint64(5), uint16(0), uint16(0), uint16(3), uint16(3), int64(100_000), int64(1<<40), uint32(0), int64(-1), uint8(0))
	for s := uint64(6); s < 30; s++ {
		f.Add(s, uint16(s*7), uint16(s*11), uint16(s), uint16(s*3), int64(s*s*s*1000)-7_000_000, int64(s*s)-300, uint32(s), int64(s)-15, uint8(s))
	}
	f.Fuzz(func(t *testing.T, seed uint64, hours, minutes, hour, minute uint16, n, day int64, length uint32, offset int64, names uint8) {
		def := randomDefinition(seed)
		k := Clock{Hours: 1 + int(hours)%MaxClockHours, Minutes: 1 + int(minutes)%MaxClockMinutes}
		def.Clock = &k
		cy := Cycle{Length: 1 + int64(length)%MaxCycleLength, Offset: offset, Names: make([]string, 1+int(names))}
		for i := range cy.Names {
			cy.Names[i] = strconv.Itoa(i)
		}
		def.Cycles = []Cycle{cy}
		c, err := New(def)
		if err != nil {
			t.Skip() // randomDefinition's rare invalid calendars are FuzzLeapRules' business
		}
		d := c.DateOf(day)
		tm := Time{Hour: int(hour) % k.Hours, Minute: int(minute) % k.Minutes}
		nd, nt, err := c.AddMinutes(d, tm, n)
		perDay := big.NewInt(int64(k.Hours) * int64(k.Minutes))
		at := func(dn int64, x Time) *big.Int {
			v := new(big.Int).Mul(big.NewInt(dn), perDay)
			return v.Add(v, big.NewInt(int64(x.Hour)*int64(k.Minutes)+int64(x.Minute)))
		}
		want := new(big.Int).Add(at(day, tm), big.NewInt(n))
		dayOfWant := new(big.Int).Div(want, perDay) // Euclidean: the day holding the minute
		if !dayOfWant.IsInt64() {
			if err == nil {
				t.Fatalf("a move past the last day answered %v %v", nd, nt)
			}
			return
		}
		if err != nil {
			t.Fatalf("%v %v + %d minutes: %v", d, tm, n, err)
		}
		if !c.ValidTime(nt) {
			t.Fatalf("time %v is not of the clock %+v", nt, k)
		}
		dn, err := c.DayNumber(nd)
		if err != nil {
			t.Fatal(err)
		}
		if got := at(dn, nt); got.Cmp(want) != 0 {
			t.Fatalf("%v %v + %d minutes = %v %v: minute %v, want %v", d, tm, n, nd, nt, got, want)
		}
		y := d.Year
		idx := c.CycleIndices(y)
		if idx[0] < 0 || idx[0] >= len(cy.Names) {
			t.Fatalf("index %d of %d names", idx[0], len(cy.Names))
		}
		period := cy.Length * int64(len(cy.Names))
		if y > 0 && y < math.MaxInt64-period || y < 0 && y-period < 0 && y > math.MinInt64+period {
			if y+period != 0 || !def.SkipYearZero {
				if got := c.CycleIndices(y + period); !reflect.DeepEqual(got, idx) && (y > 0) == (y+period > 0) {
					t.Fatalf("year %d index %v, year %d index %v", y, idx, y+period, got)
				}
			}
		}
	})
}

// FuzzExportRoundTrip: any calendar the engine accepts, with a clock and a year cycle, comes
// back from its Fantasy-Calendar export unchanged, with its current date and time.
func FuzzExportRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint16(24), uint16(60), int64(0), uint32(12), int64(0))
	f.Add(uint64(2), uint16(1), uint16(1), int64(-1000), uint32(1), int64(-7))
	f.Add(uint64(3), uint16(999), uint16(1000), int64(math.MaxInt64/1024), uint32(1_000_000_000), int64(math.MinInt64))
	for s := uint64(4); s < 40; s++ {
		f.Add(s, uint16(s*13), uint16(s*17), int64(s*s*s)-20_000, uint32(s), int64(s*31)-400)
	}
	f.Fuzz(func(t *testing.T, seed uint64, hours, minutes uint16, day int64, length uint32, offset int64) {
		def := randomDefinition(seed)
		k := Clock{Hours: 1 + int(hours)%MaxClockHours, Minutes: 1 + int(minutes)%MaxClockMinutes}
		k.Offset = int(seed % uint64(k.Hours))
		def.Clock = &k
		def.Cycles = []Cycle{{Length: 1 + int64(length)%MaxCycleLength, Offset: offset, Names: []string{"a&b", "<c>"}}}
		def.CycleFormat = "{{1}} & $1"
		c, err := New(def)
		if err != nil {
			t.Skip()
		}
		d := c.DateOf(day)
		if d.Year < -(1<<53-1) || d.Year > 1<<53-1 {
			return // beyond the years an API calendar holds
		}
		tm := Time{Hour: int(seed % uint64(k.Hours)), Minute: int(seed % uint64(k.Minutes))}
		ex, err := c.ExportFantasyCalendar("Round & trip", d, tm)
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.Marshal(ex)
		if err != nil {
			t.Fatal(err)
		}
		im, err := ImportFantasyCalendar(body)
		if err != nil {
			t.Fatalf("import of the export: %v\n%s", err, body)
		}
		if im.Name != "Round & trip" || im.Date != d || im.Time != tm {
			t.Fatalf("name %q, date %v (want %v), time %v (want %v)", im.Name, im.Date, d, im.Time, tm)
		}
		if got, want := canonical(t, im.Definition), canonical(t, def); !reflect.DeepEqual(got, want) {
			t.Fatalf("definition changed by the round trip\n got %+v\nwant %+v", got, want)
		}
	})
}
