package calengine

import (
	"testing"
)

// jdnGregorian and jdnJulian are the Julian Day Numbers of proleptic dates
// with astronomical years (Fliegel & Van Flandern's integer formulas,
// floor division): an independent reference for day counts and weekdays
// (JDN mod 7 is 0 on a Monday).
func jdnGregorian(y int64, m, d int) int64 {
	a := int64((14 - m) / 12)
	yy := y + 4800 - a
	mm := int64(m) + 12*a - 3
	return int64(d) + (153*mm+2)/5 + 365*yy + floorDiv(yy, 4) - floorDiv(yy, 100) + floorDiv(yy, 400) - 32045
}

func jdnJulian(y int64, m, d int) int64 {
	a := int64((14 - m) / 12)
	yy := y + 4800 - a
	mm := int64(m) + 12*a - 3
	return int64(d) + (153*mm+2)/5 + 365*yy + floorDiv(yy, 4) - 32083
}

func preset(t *testing.T, key string) (*Calendar, Preset) {
	t.Helper()
	p, ok := PresetByKey(key)
	if !ok {
		t.Fatalf("no preset %q", key)
	}
	c, err := New(p.Definition)
	if err != nil {
		t.Fatalf("preset %s: %v", key, err)
	}
	if !c.Valid(p.Date) {
		t.Fatalf("preset %s: date %v invalid", key, p.Date)
	}
	return c, p
}

func TestPresetsAreValidAndDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range Presets() {
		if p.Key == "" || p.Name == "" || p.Description == "" || seen[p.Key] {
			t.Errorf("preset %+v: key, name and description required, keys unique", p)
		}
		seen[p.Key] = true
		preset(t, p.Key)
	}
	for _, k := range []string{"gregorian", "julian", "harptos", "golarion", "exandria", "eberron"} {
		if !seen[k] {
			t.Errorf("preset %s missing", k)
		}
	}
	// Presets hand out copies.
	a, _ := PresetByKey("gregorian")
	a.Definition.Months[0].Name = "Changed"
	if b, _ := PresetByKey("gregorian"); b.Definition.Months[0].Name != "January" {
		t.Error("a preset's months are shared")
	}
}

// TestGregorianAndJulianPresetsMatchJDN walks every day of years -1000..3000
// in steps, comparing day differences and weekdays with the JDN formulas.
func TestGregorianAndJulianPresetsMatchJDN(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		key string
		jdn func(int64, int, int) int64
	}{{"gregorian", jdnGregorian}, {"julian", jdnJulian}} {
		c, p := preset(t, tt.key)
		origin := tt.jdn(0, 1, 1)
		check := func(dt Date) {
			n, err := c.DayNumber(dt)
			if err != nil {
				t.Fatalf("%s: DayNumber(%v): %v", tt.key, dt, err)
			}
			want := tt.jdn(dt.Year, dt.Month, dt.Day) - origin
			if n != want {
				t.Fatalf("%s: DayNumber(%v) = %d; JDN says %d", tt.key, dt, n, want)
			}
			w, ok := c.Weekday(dt)
			if wantW := ((want+origin)%7 + 7) % 7; !ok || int64(w) != wantW {
				t.Fatalf("%s: Weekday(%v) = %s; JDN says %s", tt.key, dt, p.Definition.Weekdays[w], p.Definition.Weekdays[wantW])
			}
			if back := c.DateOf(n); back != dt {
				t.Fatalf("%s: DateOf(%d) = %v; want %v", tt.key, n, back, dt)
			}
		}
		for y := int64(-1000); y <= 3000; y++ {
			for m := 1; m <= 12; m++ {
				check(Date{y, m, 1})
				check(Date{y, m, c.DaysInMonth(y, m)})
			}
		}
		// Far years, where only the closed forms can answer.
		for _, y := range []int64{-1_000_000_000, 123_456_789, 1_000_000_000_000} {
			check(Date{y, 2, c.DaysInMonth(y, 2)})
			check(Date{y, 3, 1})
		}
	}
	g, _ := preset(t, "gregorian")
	for y, want := range map[int64]bool{1900: false, 2000: true, 2024: true, 2100: false, 0: true, -100: false, -400: true} {
		if got := g.Valid(Date{y, 2, 29}); got != want {
			t.Errorf("gregorian %d-2-29 exists: %v; want %v", y, got, want)
		}
	}
	if w, _ := g.Weekday(Date{1, 1, 1}); w != 0 {
		t.Errorf("gregorian 1-1-1 is %s; want Monday", g.def.Weekdays[w])
	}
	if name, ok := g.LeapDay(Date{2024, 2, 29}); !ok || name != "Leap Day" {
		t.Errorf("2024-2-29 leap day = %q, %v", name, ok)
	}
	j, _ := preset(t, "julian")
	if !j.Valid(Date{1900, 2, 29}) || !j.Valid(Date{2100, 2, 29}) {
		t.Error("julian 1900 and 2100 are leap years")
	}
}

// TestGregorianMoon: the mean moon is full within a day of published full
// moons: the total lunar eclipses of 2000-01-21, 2022-11-08 and 2019-01-21,
// and the full moons of 2023-08-31, 2024-01-25 and 2024-02-24 (the true
// moon wanders about half a day either side of the mean).
func TestGregorianMoon(t *testing.T) {
	t.Parallel()
	c, _ := preset(t, "gregorian")
	for _, dt := range []Date{{2000, 1, 21}, {2023, 8, 31}, {2024, 1, 25}, {2024, 2, 24}, {2022, 11, 8}, {2019, 1, 21}} {
		n, _ := c.DayNumber(dt)
		found := false
		for _, p := range c.MoonPhases(n-1, n+1) {
			if p.Phase == "full" || p.Phases[0] == "full" {
				found = true
			}
		}
		if !found {
			t.Errorf("no full moon within a day of %v", dt)
		}
	}
}

func TestHarptosPreset(t *testing.T) {
	t.Parallel()
	c, p := preset(t, "harptos")
	for _, y := range []int64{1372, 1376, 1488, 1492, 0, -4} {
		if c.DaysInYear(y) != 366 || c.DaysInMonth(y, 10) != 2 {
			t.Errorf("%d DR is a Shieldmeet year", y)
		}
		if name, ok := c.LeapDay(Date{y, 10, 2}); !ok || name != "Shieldmeet" {
			t.Errorf("Midsummer 2, %d DR: %q %v; want Shieldmeet", y, name, ok)
		}
		if _, ok := c.Weekday(Date{y, 10, 2}); ok {
			t.Errorf("Shieldmeet %d has a weekday", y)
		}
	}
	for _, y := range []int64{1371, 1373, 1490, 1491} {
		if c.DaysInYear(y) != 365 || c.Valid(Date{y, 10, 2}) {
			t.Errorf("%d DR has no Shieldmeet", y)
		}
	}
	// Festivals are outside the tendays, so every month begins on First-day.
	for y := int64(1480); y <= 1500; y++ {
		for m, month := range p.Definition.Months {
			w, ok := c.Weekday(Date{y, m + 1, 1})
			if month.Type == Intercalary {
				if ok {
					t.Errorf("%s %d has a weekday", month.Name, y)
				}
			} else if !ok || w != 0 {
				t.Errorf("1 %s %d DR is day %d of the tenday", month.Name, y, w)
			}
		}
	}
	if s, _ := c.Season(Date{1492, 8, 20}); s.Name != "Summer" {
		t.Errorf("Kythorn 20 is in %s", s.Name)
	}
}

func TestGolarionPreset(t *testing.T) {
	t.Parallel()
	c, p := preset(t, "golarion")
	// Published: 4712 AR is a leap year, 4716 is not (leap years divisible by 8).
	if !c.Valid(Date{4712, 2, 29}) || c.Valid(Date{4716, 2, 29}) || c.Valid(Date{4700 + 2, 2, 29}) {
		t.Error("Calistril 29 in years divisible by 8 only")
	}
	// 12 Gozran 4711 AR is 12 April 2011 AD (Tuesday); the weeks run on from
	// there: 4707-1-1 AR falls with 2007-1-1 AD as long as the leap days
	// agree (no leap day 4708 vs 2008: the calendars part after Calistril 4708).
	anchor, _ := c.DayNumber(Date{4711, 4, 12})
	ja := jdnGregorian(2011, 4, 12)
	for _, dt := range []Date{{4711, 4, 12}, {4711, 12, 31}, {4712, 3, 1}, {4712, 2, 28}, {4720, 6, 6}} {
		n, _ := c.DayNumber(dt)
		w, _ := c.Weekday(dt)
		want := (((n - anchor + ja) % 7) + 7) % 7
		if int64(w) != want {
			t.Errorf("%v: %s; want %s", dt, p.Definition.Weekdays[w], p.Definition.Weekdays[want])
		}
	}
	if w, _ := c.Weekday(Date{4711, 4, 12}); p.Definition.Weekdays[w] != "Toilday" {
		t.Errorf("12 Gozran 4711 AR is a %s; want Toilday", p.Definition.Weekdays[w])
	}
	if e, n, ok := c.EraOf(4725); !ok || e.Abbreviation != "AR" || n != 4725 {
		t.Errorf("era of 4725: %+v %d %v", e, n, ok)
	}
}

func TestExandriaAndEberronPresets(t *testing.T) {
	t.Parallel()
	ex, _ := preset(t, "exandria")
	eb, p := preset(t, "eberron")
	for y := int64(-10); y <= 1000; y += 7 {
		if ex.DaysInYear(y) != 328 || ex.MonthCount() != 11 {
			t.Errorf("Exandrian year %d: %d days", y, ex.DaysInYear(y))
		}
		if eb.DaysInYear(y) != 336 {
			t.Errorf("Galifar year %d: %d days", y, eb.DaysInYear(y))
		}
		// Four whole weeks a month: every month begins on Sul.
		for m := 1; m <= 12; m++ {
			if w, _ := eb.Weekday(Date{y, m, 1}); p.Definition.Weekdays[w] != "Sul" {
				t.Errorf("1 %s %d YK is a %s", p.Definition.Months[m-1].Name, y, p.Definition.Weekdays[w])
			}
		}
	}
}
