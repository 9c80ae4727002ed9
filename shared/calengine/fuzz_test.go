package calengine

import (
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// randomDefinition builds a small valid calendar from a seed: short months
// so that dates wrap often, sometimes intercalary months, leap years with a
// small or a huge start, skipped year zero, moons with awkward periods.
func randomDefinition(seed uint64) Definition {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	def := Definition{StartOffset: r.IntN(21) - 10, SkipYearZero: r.IntN(2) == 0}
	for i := range 2 + r.IntN(5) {
		m := Month{Name: "M" + strconv.Itoa(i), Length: 1 + r.IntN(12), Type: Standard}
		if r.IntN(4) == 0 {
			m.Type = Intercalary
		}
		if r.IntN(10) == 0 {
			m.Length = 1 + r.IntN(1000)
		}
		def.Months = append(def.Months, m)
	}
	for i := range 2 + r.IntN(6) {
		def.Weekdays = append(def.Weekdays, "W"+strconv.Itoa(i))
	}
	if r.IntN(3) != 0 {
		def.HasLeapYear = true
		def.LeapYearAmount = 1 + r.IntN(5)
		def.LeapYearMonth = 1 + r.IntN(len(def.Months))
		def.LeapYearOffset = 1 + r.IntN(6)
		def.LeapYearStart = int64(r.IntN(21) - 10)
		switch r.IntN(8) {
		case 0:
			def.LeapYearStart = math.MaxInt64 - int64(r.IntN(100))
		case 1:
			def.LeapYearStart = math.MinInt64 + int64(r.IntN(100))
		case 2:
			def.LeapYearOffset = MaxLeapOffset - r.IntN(3)
		}
	}
	intervals := []string{"4", "400,!100,4", "!5,4", "3,!2", "+7,!3,2", "1", "!6,!10,15,2", "2", "12,!6,4,!3,2", "1000000000"}
	for range r.IntN(4) {
		m := 1 + r.IntN(len(def.Months))
		l := LeapDay{
			Name: "L" + strconv.Itoa(len(def.LeapDays)), Month: m, Interval: intervals[r.IntN(len(intervals))],
			Offset: int64(r.IntN(21) - 10), Intercalary: r.IntN(3) == 0, Amount: r.IntN(3),
		}
		if r.IntN(2) == 0 {
			day := r.IntN(def.Months[m-1].Length + 1)
			l.Day = &day
		}
		if r.IntN(3) == 0 {
			from := int64(r.IntN(41) - 20)
			switch r.IntN(6) {
			case 0:
				from = math.MaxInt64 - int64(r.IntN(100))
			case 1:
				from = math.MinInt64 + int64(r.IntN(100))
			}
			l.FromYear = &from
		}
		if r.IntN(8) == 0 {
			l.Offset = math.MinInt64 + int64(r.IntN(100))
		}
		def.LeapDays = append(def.LeapDays, l)
	}
	periods := []string{"29.5", "2.5", "1", "0.5", "7.25", "3.3333333333", "100", "0.3", "8"}
	offsets := []string{"", "0", "-20", "13", "2.5", "-0.75", "-7.3333333333", "1000000000", "-999999999.9999999999"}
	for i := range r.IntN(4) {
		def.Moons = append(def.Moons, Moon{
			ID: i + 1, Name: "Moon" + strconv.Itoa(i),
			Fullmoon: periods[r.IntN(len(periods))], Offset: offsets[r.IntN(len(offsets))],
		})
	}
	for i := range r.IntN(4) {
		m := 1 + r.IntN(len(def.Months))
		def.Seasons = append(def.Seasons, Season{Name: "S" + strconv.Itoa(i), Month: m, Day: 1 + r.IntN(def.Months[m-1].Length)})
	}
	return def
}

// Reference rules, written independently of the closed forms and only used
// for small years.
func refLeap(def Definition, y int64) bool {
	if !def.HasLeapYear || (def.SkipYearZero && y == 0) {
		return false
	}
	// The difference of two int64 fits in a uint64 when y >= start.
	return y >= def.LeapYearStart && (uint64(y)-uint64(def.LeapYearStart))%uint64(def.LeapYearOffset) == 0
}

// refMonthDays lays out month m of year y day by day: true for the days
// that advance the week. Kanka's days go after the last day; each rule's
// days go after its day (stable in definition order), so later ones push
// the rest along.
func refMonthDays(def Definition, y int64, m int) []bool {
	if def.SkipYearZero && y == 0 {
		return nil
	}
	std := def.Months[m-1].Type == Standard
	type block struct {
		after, n int
		std      bool
	}
	var blocks []block
	if refLeap(def, y) && m == def.LeapYearMonth {
		blocks = append(blocks, block{def.Months[m-1].Length, def.LeapYearAmount, std})
	}
	for _, l := range def.LeapDays {
		if l.Month == m && refRuleLeap(l, y) {
			after := def.Months[m-1].Length
			if l.Day != nil {
				after = *l.Day
			}
			blocks = append(blocks, block{after, max(l.Amount, 1), std && !l.Intercalary})
		}
	}
	sort.SliceStable(blocks, func(i, j int) bool { return blocks[i].after < blocks[j].after })
	var days []bool
	for i := 0; i <= def.Months[m-1].Length; i++ {
		for _, b := range blocks {
			if b.after == i {
				for range b.n {
					days = append(days, b.std)
				}
			}
		}
		if i < def.Months[m-1].Length {
			days = append(days, std)
		}
	}
	return days
}

func refMonthLen(def Definition, y int64, m int) int { return len(refMonthDays(def, y, m)) }

// refCount counts the days (or only the week days) from day 0 to the date
// by walking whole years, then months.
func refCount(def Definition, dt Date, weekOnly bool) int64 {
	count := func(days []bool) int64 {
		var n int64
		for _, std := range days {
			if std || !weekOnly {
				n++
			}
		}
		return n
	}
	yearDays := func(y int64) int64 {
		var n int64
		for m := range def.Months {
			n += count(refMonthDays(def, y, m+1))
		}
		return n
	}
	first := int64(0)
	if def.SkipYearZero {
		first = 1
	}
	var n int64
	for y := first; y < dt.Year; y++ {
		if !(def.SkipYearZero && y == 0) {
			n += yearDays(y)
		}
	}
	for y := dt.Year; y < first; y++ {
		if !(def.SkipYearZero && y == 0) {
			n -= yearDays(y)
		}
	}
	for m := 1; m < dt.Month; m++ {
		n += count(refMonthDays(def, dt.Year, m))
	}
	return n + count(refMonthDays(def, dt.Year, dt.Month)[:dt.Day-1])
}

func refNext(def Definition, dt Date) Date {
	if dt.Day < refMonthLen(def, dt.Year, dt.Month) {
		return Date{dt.Year, dt.Month, dt.Day + 1}
	}
	if dt.Month < len(def.Months) {
		return Date{dt.Year, dt.Month + 1, 1}
	}
	y := dt.Year + 1
	if def.SkipYearZero && y == 0 {
		y = 1
	}
	return Date{y, 1, 1}
}

func refPrev(def Definition, dt Date) Date {
	if dt.Day > 1 {
		return Date{dt.Year, dt.Month, dt.Day - 1}
	}
	if dt.Month > 1 {
		return Date{dt.Year, dt.Month - 1, refMonthLen(def, dt.Year, dt.Month-1)}
	}
	y := dt.Year - 1
	if def.SkipYearZero && y == 0 {
		y = -1
	}
	n := len(def.Months)
	return Date{y, n, refMonthLen(def, y, n)}
}

func pickDate(def Definition, y int64, month, day uint8) Date {
	if def.SkipYearZero && y == 0 {
		y = 1
	}
	m := int(month)%len(def.Months) + 1
	return Date{y, m, int(day)%refMonthLen(def, y, m) + 1}
}

func checkDate(t *testing.T, c *Calendar, def Definition, dt Date, delta int64) {
	t.Helper()
	n, err := c.DayNumber(dt)
	if err != nil {
		if c.Valid(dt) {
			t.Fatalf("DayNumber(%v) failed but Valid: %v", dt, err)
		}
		return // beyond the int64 day range
	}
	if !c.Valid(dt) {
		t.Fatalf("%v has a day number but is not Valid", dt)
	}
	if back := c.DateOf(n); back != dt {
		t.Fatalf("DateOf(DayNumber(%v) = %d) = %v", dt, n, back)
	}
	if n < math.MaxInt64 {
		next := refNext(def, dt)
		if got := c.DateOf(n + 1); got != next {
			t.Fatalf("DateOf(%d+1) = %v; want %v (after %v)", n, got, next, dt)
		}
		if nn, err := c.DayNumber(next); err != nil || nn != n+1 {
			t.Fatalf("DayNumber(%v) = %d, %v; want %d", next, nn, err, n+1)
		}
		w1, ok1 := c.Weekday(dt)
		w2, ok2 := c.Weekday(next)
		if ok1 && ok2 && w2 != (w1+1)%len(def.Weekdays) {
			t.Fatalf("weekday %v = %d, %v = %d", dt, w1, next, w2)
		}
	}
	if n > math.MinInt64 {
		prev := refPrev(def, dt)
		if got := c.DateOf(n - 1); got != prev {
			t.Fatalf("DateOf(%d-1) = %v; want %v (before %v)", n, got, prev, dt)
		}
	}
	if moved, err := c.AddDays(dt, delta); err == nil {
		if back, err := c.AddDays(moved, -delta); err != nil || back != dt {
			t.Fatalf("AddDays(AddDays(%v, %d), %d) = %v, %v", dt, delta, -delta, back, err)
		}
	}
	if dt.Year > -1000 && dt.Year < 1000 {
		if want := refCount(def, dt, false); n != want {
			t.Fatalf("DayNumber(%v) = %d; reference %d (def %+v)", dt, n, want, def)
		}
		w, ok := c.Weekday(dt)
		if std := refMonthDays(def, dt.Year, dt.Month)[dt.Day-1]; ok != std {
			t.Fatalf("Weekday(%v) ok = %v", dt, ok)
		}
		if ok {
			nw := int64(len(def.Weekdays))
			want := ((refCount(def, dt, true)+int64(def.StartOffset))%nw + nw) % nw
			if int64(w) != want {
				t.Fatalf("Weekday(%v) = %d; reference %d", dt, w, want)
			}
		}
	}
}

func FuzzDayNumberRoundTrip(f *testing.F) {
	f.Add(uint64(1), int64(0), uint8(0), uint8(0), int64(1))
	f.Add(uint64(2), int64(-1), uint8(3), uint8(200), int64(-1000))
	f.Add(uint64(3), int64(1_000_000_000), uint8(1), uint8(1), int64(123456789))
	f.Add(uint64(4), int64(-1_000_000_000), uint8(5), uint8(7), int64(-987654321))
	f.Add(uint64(5), int64(math.MaxInt64/4), uint8(2), uint8(9), int64(math.MaxInt64))
	f.Add(uint64(6), int64(math.MinInt64), uint8(2), uint8(9), int64(math.MinInt64))
	f.Add(uint64(7), int64(17), uint8(255), uint8(255), int64(10_000_000))
	for s := uint64(8); s < 40; s++ {
		f.Add(s, int64(s*37)-600, uint8(s), uint8(s*7), int64(s*s*s)-5000)
	}
	f.Fuzz(func(t *testing.T, seed uint64, year int64, month, day uint8, delta int64) {
		def := randomDefinition(seed)
		c, err := New(def)
		if err != nil {
			t.Fatalf("New(%+v): %v", def, err)
		}
		checkDate(t, c, def, pickDate(def, year, month, day), delta)
		checkDate(t, c, def, pickDate(def, year%1000, month, day), delta%100000)
		// Every int64 is a day number.
		dt := c.DateOf(delta)
		if n, err := c.DayNumber(dt); err != nil || n != delta {
			t.Fatalf("DayNumber(DateOf(%d) = %v) = %d, %v", delta, dt, n, err)
		}
	})
}

// refPhaseDays lists, per day in [from, to], the phase events j beginning on
// it, computing floor(offset + j·P/8) with big.Rat for every j in range.
func refPhaseDays(t *testing.T, m Moon, from, to int64) (map[int64][]int64, bool) {
	p, ok := new(big.Rat).SetString(m.Fullmoon)
	if !ok {
		t.Fatalf("bad period %q", m.Fullmoon)
	}
	off := new(big.Rat)
	if m.Offset != "" {
		if _, ok := off.SetString(m.Offset); !ok {
			t.Fatalf("bad offset %q", m.Offset)
		}
	}
	step := new(big.Rat).Quo(p, big.NewRat(8, 1))
	floor := func(x *big.Rat) *big.Int {
		return new(big.Int).Div(x.Num(), x.Denom()) // Euclidean = floor for a positive divisor
	}
	jAt := func(day int64) *big.Int { // the index of the last event before day
		return floor(new(big.Rat).Quo(new(big.Rat).Sub(big.NewRat(day, 1), off), step))
	}
	lo, hi := jAt(from), jAt(to+1)
	if n := new(big.Int).Sub(hi, lo); !n.IsInt64() || n.Int64() > 50000 || !lo.IsInt64() || !hi.IsInt64() {
		return nil, false
	}
	jLo, jHi := lo.Int64()-2, hi.Int64()+2
	out := map[int64][]int64{}
	for j := jLo; j <= jHi; j++ {
		x := new(big.Rat).Mul(big.NewRat(j, 1), step)
		x.Add(x, off)
		if day := floor(x).Int64(); day >= from && day <= to {
			out[day] = append(out[day], j)
		}
	}
	return out, true
}

func FuzzMoonPhases(f *testing.F) {
	f.Add(uint32(29), uint64(5), uint8(1), int32(0), int64(-100), uint16(300))
	f.Add(uint32(2), uint64(5), uint8(1), int32(-7), int64(-1000), uint16(50))
	f.Add(uint32(1), uint64(0), uint8(0), int32(3), int64(0), uint16(20))
	f.Add(uint32(0), uint64(5), uint8(1), int32(0), int64(10), uint16(20))
	f.Add(uint32(3), uint64(3333333333), uint8(10), int32(11), int64(1_000_000_000_000), uint16(100))
	f.Add(uint32(27), uint64(321661), uint8(6), int32(-40000), int64(-5_000_000_000), uint16(500))
	f.Fuzz(func(t *testing.T, whole uint32, frac uint64, decimals uint8, offset int32, from int64, span uint16) {
		decimals %= 11
		whole %= 1000
		from %= 1 << 50
		period := strconv.FormatUint(uint64(whole), 10)
		if decimals > 0 {
			fs := strconv.FormatUint(frac, 10)
			if len(fs) > int(decimals) {
				fs = fs[:decimals]
			}
			period += "." + strings.Repeat("0", int(decimals)-len(fs)) + fs
		}
		moon := Moon{ID: 1, Name: "M", Fullmoon: period, Offset: strconv.Itoa(int(offset))}
		if offFrac := uint64(span) % 7; offFrac > 0 { // a decimal shift: offset.fff
			moon.Offset += "." + strconv.FormatUint(offFrac*1234567, 10)[:offFrac]
		}
		c, err := New(Definition{
			Months: []Month{{Name: "A", Length: 10}, {Name: "B", Length: 10}}, Weekdays: []string{"x", "y"},
			Moons: []Moon{moon},
		})
		if err != nil {
			if p, ok := new(big.Rat).SetString(period); ok && p.Sign() == 0 {
				return // zero periods are rightly rejected
			}
			t.Fatalf("period %q rejected: %v", period, err)
		}
		to := from + int64(span%400)
		ref, ok := refPhaseDays(t, moon, from, to)
		if !ok {
			return
		}
		var want []MoonDay
		for day := from; day <= to; day++ {
			js := ref[day]
			if len(js) == 0 {
				continue
			}
			var phases []string
			for _, j := range js[:min(len(js), 8)] {
				phases = append(phases, PhaseNames[((j%8)+8)%8])
			}
			want = append(want, MoonDay{Day: day, MoonID: 1, Name: "M", Phase: phases[0], Phases: phases, PhaseIndex: int(((js[0] % 8) + 8) % 8), PhaseCount: 8})
		}
		if got := c.MoonPhases(from, to); !reflect.DeepEqual(got, want) {
			t.Fatalf("period %s offset %d: MoonPhases(%d, %d) =\n%v\nwant\n%v", period, offset, from, to, got, want)
		}
		for p, name := range PhaseNames {
			var wantDays []int64
			for day := from; day <= to; day++ {
				for _, j := range ref[day] {
					if ((j%8)+8)%8 == int64(p) {
						wantDays = append(wantDays, day)
						break
					}
				}
			}
			var got []int64
			c.moons[0].phaseDays(p, from, to, func(d int64) bool {
				got = append(got, d)
				return true
			})
			if !reflect.DeepEqual(got, wantDays) {
				t.Fatalf("period %s offset %d: PhaseDays(%s, %d, %d) = %v; want %v", period, offset, name, from, to, got, wantDays)
			}
		}
	})
}

// FuzzOccurrences compares Occurrences, NextOccurrence and PrevOccurrence
// with a day-by-day scan applying the recurrence rules literally.
func FuzzOccurrences(f *testing.F) {
	f.Add(uint64(1), int16(0), uint8(0), uint8(0), uint8(1), uint8(0), int16(-3), uint16(100), int8(-1))
	f.Add(uint64(2), int16(3), uint8(2), uint8(30), uint8(40), uint8(1), int16(2), uint16(300), int8(3))
	f.Add(uint64(3), int16(-2), uint8(1), uint8(5), uint8(3), uint8(2), int16(-4), uint16(200), int8(0))
	f.Add(uint64(4), int16(1), uint8(3), uint8(9), uint8(90), uint8(3), int16(0), uint16(150), int8(5))
	f.Add(uint64(5), int16(7), uint8(4), uint8(11), uint8(2), uint8(7), int16(8), uint16(400), int8(-1))
	for s := uint64(6); s < 30; s++ {
		f.Add(s, int16(s)-15, uint8(s), uint8(s*3), uint8(s*5), uint8(s), int16(s%7)-3, uint16(s*40), int8(s%9)-2)
	}
	f.Fuzz(func(t *testing.T, seed uint64, anchorYear int16, month, day, length, kind uint8, fromYear int16, span uint16, untilOff int8) {
		def := randomDefinition(seed)
		c, err := New(def)
		if err != nil {
			t.Fatal(err)
		}
		ev := Event{Start: pickDate(def, int64(anchorYear%20), month, day), Length: 1 + int(length)%60}
		switch kind % 4 {
		case 1:
			ev.Recurrence.Kind = RecurYearly
		case 2:
			ev.Recurrence.Kind = RecurMonthly
		case 3:
			if len(def.Moons) == 0 {
				return
			}
			ev.Recurrence = Recurrence{Kind: RecurMoon, MoonID: 1 + int(kind/4)%len(def.Moons), Phase: PhaseNames[int(kind/16)%8]}
		}
		if untilOff >= 0 {
			u := ev.Start.Year + int64(untilOff%10)
			ev.Until = &u
		}
		from := pickDate(def, int64(fromYear%20), 0, 0)
		fromN, _ := c.DayNumber(from)
		toN := fromN + int64(span%600)
		to := c.DateOf(toN)
		anchor, _ := c.DayNumber(ev.Start)

		scanLo, scanHi := fromN-int64(ev.Length)+1-2000, toN+2000
		var phase map[int64][]int64
		if ev.Recurrence.Kind == RecurMoon {
			var ok bool
			if phase, ok = refPhaseDays(t, def.Moons[ev.Recurrence.MoonID-1], scanLo, scanHi); !ok {
				return
			}
		}
		p, _ := PhaseIndex(ev.Recurrence.Phase)
		isStart := func(n int64) bool {
			dt := c.DateOf(n)
			if n < anchor || (ev.Until != nil && ev.Recurrence.Kind != RecurNone && dt.Year > *ev.Until) {
				return false
			}
			switch ev.Recurrence.Kind {
			case RecurYearly:
				return dt.Month == ev.Start.Month && dt.Day == ev.Start.Day
			case RecurMonthly:
				return dt.Day == ev.Start.Day
			case RecurMoon:
				for _, j := range phase[n] {
					if ((j%8)+8)%8 == int64(p) {
						return true
					}
				}
				return false
			}
			return n == anchor
		}
		var want []Occurrence
		for n := fromN - int64(ev.Length) + 1; n <= toN; n++ {
			if isStart(n) {
				want = append(want, Occurrence{Start: c.DateOf(n), End: c.DateOf(n + int64(ev.Length) - 1)})
			}
		}
		got, err := c.Occurrences(ev, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 || len(want) != 0 {
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("event %+v until %v in %v..%v:\ngot  %v\nwant %v\ndef %+v", ev, ev.Until, from, to, got, want, def)
			}
		}
	})
}
