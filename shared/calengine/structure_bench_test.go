package calengine

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// worstStructure is the most costly structure the API's limits allow for the day view: 100
// months, 99 of them appearing by rules that together spend the leap terms, each with its own
// week of 100 names; 85 leap rules on the months; 100 moons of 40 phases (half of them custom
// cycles of 1000 days, the others rounded as Fantasy-Calendar does), 100 periodic seasons with
// times, 100 eras ending years of the walk early (more years a day, each one a cut to find).
func worstStructure() Definition {
	def := Definition{Weekdays: []string{"a", "b"}}
	for i := range 100 {
		m := Month{Name: "M" + strconv.Itoa(i), Length: 3}
		if i > 0 {
			m.Interval, m.Offset = "2", int64(i)
		}
		for k := range 100 {
			m.Weekdays = append(m.Weekdays, "W"+strconv.Itoa(k))
		}
		def.Months = append(def.Months, m)
	}
	for i := range 85 {
		def.LeapDays = append(def.LeapDays, LeapDay{Name: "L", Month: 1 + i, Interval: "400,!100,4"})
	}
	cyc := make([]int, MaxCustomCycle)
	for i := range cyc {
		cyc[i] = i % 40
	}
	for i := range 100 {
		m := Moon{ID: i + 1, Name: "Moon", Fullmoon: "0.0000000001", Granularity: 40}
		if i%2 == 0 {
			m.CustomCycle = cyc
		} else {
			m.Rounding = "round" // Fantasy-Calendar's, the costliest: a doubled step
		}
		def.Moons = append(def.Moons, m)
	}
	for i := range 100 { // eras ending each year of the walk after its second day
		def.Eras = append(def.Eras, Era{Name: "E", Year: 1_000_001 + int64(i)*3, Month: 1, Day: 2, EndsYear: true, Restart: true})
	}
	def.PeriodicSeasons = true
	for i := range 100 {
		def.Seasons = append(def.Seasons, Season{Name: "S", Duration: "1.5", Transition: "0.25", Sunrise: &Time{6, i % 60}, Sunset: &Time{18, 0}})
	}
	return def
}

// BenchmarkDayViewWorstStructure walks 1000 days of worstStructure as the day view does (the
// walk, the moons 32 days at a time, each day's season) and reports the cost per day.
func BenchmarkDayViewWorstStructure(b *testing.B) {
	c, err := New(worstStructure())
	if err != nil {
		b.Fatal(err)
	}
	from, _ := c.DayNumber(Date{Year: 1_000_001, Month: 1, Day: 1})
	const days = 1000
	b.ReportAllocs()
	cpu0 := cpuNow()
	for b.Loop() {
		var phases []MoonDay
		to := from - 1
		err := c.Days(context.Background(), from, from+days-1, func(di DayInfo) bool {
			if di.Number > to {
				to = di.Number + 31
				phases = c.MoonPhases(di.Number, to)
			}
			for len(phases) > 0 && phases[0].Day == di.Number {
				phases = phases[1:]
			}
			c.SeasonOn(di.Number, di.Date)
			return true
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	// CPU time, this process only: the machine's other load does not count.
	b.ReportMetric(float64(cpuNow()-cpu0)/float64(b.N)/days, "cpu-ns/day")
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
