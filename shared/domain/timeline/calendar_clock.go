package timeline

import (
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// A calendar's clock and year cycles (DESIGN.md section 5, "Clock and year cycles"): Kanka has
// neither, so their inputs follow Kanka's style of flat fields (clock_hours, clock_minutes,
// clock_offset, current_hour, current_minute) and objects for the cycles, like the eras.

// MaxMoveHours and MaxMoveMinutes bound one advance or retreat's hours and minutes, as
// MaxMoveDays bounds its days: the move costs the same whatever they are.
const (
	MaxMoveHours   = 1_000_000
	MaxMoveMinutes = 1_000_000
)

// applyClock reads the clock, the current time and the year cycles. A null clock_hours removes
// the clock (and the time); hours sent to a calendar without one start a clock of 60-minute
// hours unless clock_minutes says otherwise.
func (c *Calendar) applyClock(r *domain.Reader) {
	hours := r.Int("clock_hours", 1, calengine.MaxClockHours)
	minutes := r.Int("clock_minutes", 1, calengine.MaxClockMinutes)
	offset := r.Int("clock_offset", 0, calengine.MaxClockHours-1)
	switch {
	case hours.Set && hours.Null:
		c.Clock, c.Time = nil, calengine.Time{}
	case hours.Present() && !r.Errs.Has("clock_hours"):
		k := calengine.Clock{Hours: int(hours.Value), Minutes: 60}
		if c.Clock != nil {
			k.Minutes, k.Offset = c.Clock.Minutes, c.Clock.Offset
		}
		c.Clock = &k
	}
	if c.Clock == nil {
		for _, f := range []string{"clock_minutes", "clock_offset", "current_hour", "current_minute"} {
			if r.Has(f) && !r.Errs.Has(f) && !r.Errs.Has("clock_hours") {
				r.Fail(f, "The :attribute needs a clock: send clock_hours too.")
			}
		}
	} else {
		k := *c.Clock
		if minutes.Present() && !r.Errs.Has("clock_minutes") {
			k.Minutes = int(minutes.Value)
		}
		if offset.Present() && !r.Errs.Has("clock_offset") {
			k.Offset = int(offset.Value)
		}
		c.Clock = &k
		if f := r.Int("current_hour", 0, calengine.MaxClockHours-1); f.Present() {
			c.Time.Hour = int(f.Value)
		}
		if f := r.Int("current_minute", 0, calengine.MaxClockMinutes-1); f.Present() {
			c.Time.Minute = int(f.Value)
		}
	}
	if f := r.String("cycle_format", calengine.MaxCycleFormatSize); f.Set && !r.Errs.Has("cycle_format") {
		c.CycleFormat = strings.TrimSpace(f.Value)
	}
	if cycles, _, ok := readObjects(r, "cycles", calengine.MaxCycles, readCycle); ok {
		c.Cycles = cycles
	}
}

func readCycle(r *domain.Reader, prefix string, v any) (calengine.Cycle, bool) {
	in, ok := object(r, prefix, v)
	if !ok {
		return calengine.Cycle{}, false
	}
	cy := calengine.Cycle{Length: 1}
	return cy, sub(r, prefix, in, func(s *domain.Reader) {
		if f := s.Int("length", 1, calengine.MaxCycleLength); f.Present() {
			cy.Length = f.Value
		}
		if f := s.Int("offset", -domain.MaxID, domain.MaxID); f.Present() {
			cy.Offset = f.Value
		}
		p := newParallel(s, "names", calengine.MaxCycleNames)
		if names := column(p, "names", nameElem, false); p.done() {
			cy.Names = names.vals
		}
		s.Required("names", len(cy.Names) > 0 || s.Errs.Has("names"))
	})
}

// checkTime reports a current time the clock does not have (the engine judged the clock).
func (c *Calendar) checkTime(eng *calengine.Calendar, r *domain.Reader) {
	if c.Clock == nil || eng.ValidTime(c.Time) {
		return
	}
	if c.Time.Hour >= c.Clock.Hours {
		r.Errs.Add("current_hour", "The current hour must be an hour of the clock (0 to "+strconv.Itoa(c.Clock.Hours-1)+").")
	}
	if c.Time.Minute >= c.Clock.Minutes {
		r.Errs.Add("current_minute", "The current minute must be a minute of the clock (0 to "+strconv.Itoa(c.Clock.Minutes-1)+").")
	}
}

// MoveTime shifts the current date and time by days, hours and minutes (back when negative);
// hours and minutes need a clock (422 naming them otherwise). Bounds and refusals are Move's.
func (c *Calendar) MoveTime(days, hours, minutes int64) error {
	if hours == 0 && minutes == 0 {
		return c.Move(days)
	}
	if c.Clock == nil {
		var f apperr.FieldErrors
		for name, n := range map[string]int64{"hours": hours, "minutes": minutes} {
			if n != 0 {
				f.Add(name, "The calendar has no clock: move it by days.")
			}
		}
		return f.Err()
	}
	eng, err := c.Engine()
	if err != nil {
		return err
	}
	k := int64(c.Clock.Minutes)
	// Each part is at most a million and a day at most a million minutes: no overflow.
	total := days*int64(c.Clock.Hours)*k + hours*k + minutes
	d, t, err := eng.AddMinutes(c.Date, c.Time, total)
	if err != nil || d.Year < -domain.MaxID || d.Year > domain.MaxID {
		return apperr.Invalid("days", "The move would take the current year out of its range, "+
			strconv.FormatInt(-domain.MaxID, 10)+" to "+strconv.FormatInt(domain.MaxID, 10)+".")
	}
	c.Date, c.Time = d, t
	return nil
}
