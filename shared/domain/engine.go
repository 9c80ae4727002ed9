package domain

import (
	"strconv"

	"github.com/lorekeep/lorekeep/shared/calendar"
)

// The one place the calendar engine's verdicts (its Problems, and dates it refuses) become
// field errors: a calendar's structure, its current date and its moves, an event's date, and
// the day view's range.

// check builds the engine of the merged calendar and reports its problems and a current date
// that does not exist in it.
func (c *Calendar) check(r *Reader) {
	eng, err := c.Engine()
	if err != nil {
		if ve, ok := err.(*calendar.ValidationError); ok {
			for _, p := range ve.Problems {
				r.Errs.Add(p.Field, p.Message)
			}
			return
		}
		r.Errs.Add("month_name", "The calendar is invalid.")
		return
	}
	d := c.Date
	switch {
	case eng.Valid(d):
		return
	case d.Month < 1 || d.Month > eng.MonthCount():
		r.Errs.Add("current_month", "The current month must be a month of the calendar.")
	case eng.DaysInMonth(d.Year, d.Month) == 0:
		r.Errs.Add("current_year", "The current year does not exist in the calendar.")
	case d.Day > eng.DaysInMonth(d.Year, d.Month):
		r.Errs.Add("current_day", "The current day must be a day of the current month.")
	default:
		r.Errs.Add("current_year", "The current year is out of range.")
	}
}

// Move shifts the current date by days (back when negative); a date beyond the calendar's
// range is refused, naming the days.
func (c *Calendar) Move(days int64) error {
	eng, err := c.Engine()
	if err != nil {
		return err
	}
	d, err := eng.AddDays(c.Date, days)
	if err != nil {
		return Invalid("days", "The days would move the current date out of the calendar's range.")
	}
	c.Date = d
	return nil
}

// CheckOnCalendar validates what depends on the event's calendar c (nil when there is none):
// the caller may see it, the date exists in that year, a moon recurrence names a moon of it,
// and recurring_until is not before the start.
func (ev *Event) CheckOnCalendar(c *Calendar, a Access) error {
	if c == nil || !a.CanSee(c.IsPrivate) {
		return Invalid("calendar_id", "The selected calendar id is invalid.")
	}
	cal, err := c.Engine()
	if err != nil {
		return err
	}
	var f FieldErrors
	switch {
	case ev.Date.Month < 1 || ev.Date.Month > cal.MonthCount():
		f.Add("month", "The selected month is invalid.")
	case !cal.Valid(ev.Date):
		if ev.Date.Year == 0 && cal.Definition().SkipYearZero {
			f.Add("year", "The year does not exist in this calendar.")
		} else {
			f.Add("day", "The day does not exist in that month of that year.")
		}
	}
	if err := cal.CheckRecurrence(ev.Recurrence); err != nil {
		f.Add("recurring_periodicity", "The selected recurring periodicity is invalid.")
	}
	if ev.RecurringUntil != nil && *ev.RecurringUntil < ev.Date.Year {
		f.Add("recurring_until", "The recurring until must be at least the year of the event.")
	}
	return f.Err()
}

// DayRange reads the day view's from and to (Y-M-D; from defaults to the current date, to to
// from) as day numbers of eng, c's engine: dates of the calendar, to not before from, at most
// maxDays days in all.
func (c *Calendar) DayRange(eng *calendar.Calendar, fromText, toText string, maxDays int) (from, to int64, err error) {
	var errs FieldErrors
	read := func(name, text string) (int64, bool) {
		d := c.Date
		if text != "" {
			var perr error
			if d, perr = calendar.ParseDate(text); perr != nil {
				errs.Add(name, "The "+name+" must be a date written Y-M-D.")
				return 0, false
			}
		}
		n, derr := eng.DayNumber(d)
		if derr != nil {
			errs.Add(name, "The "+name+" must be a date of the calendar.")
			return 0, false
		}
		return n, true
	}
	from, okFrom := read("from", fromText)
	to, okTo := from, okFrom
	if toText != "" {
		to, okTo = read("to", toText)
	}
	switch {
	case !okFrom || !okTo:
	case to < from:
		errs.Add("to", "The to must be a date after or equal to from.")
	case uint64(to-from) >= uint64(maxDays):
		errs.Add("to", "The to must be at most "+strconv.Itoa(maxDays)+" days from from, both included.")
	}
	return from, to, errs.Err()
}

// TooManyDayEvents refuses a day view whose days hold more than max event occurrences.
func TooManyDayEvents(max int) error {
	return Invalid("to", "The days hold more than "+strconv.Itoa(max)+" event occurrences; ask for fewer days.")
}

// DaysTooLarge refuses a day view whose answer would pass max bytes: last is the last date
// that fits after from, or "" when the first day alone does not.
func DaysTooLarge(max int, last string) error {
	msg := "The days would answer more than " + strconv.Itoa(max) + " bytes; "
	if last == "" {
		return Invalid("to", msg+"the first day alone holds too many events and moons to answer.")
	}
	return Invalid("to", msg+"ask for to at most "+last+".")
}

// EngineProblems turns the engine's verdict on a definition (an imported calendar's, whose
// problems name the export's fields) into field errors; other errors pass through.
func EngineProblems(err error) error {
	ve, ok := err.(*calendar.ValidationError)
	if !ok {
		return err
	}
	var f FieldErrors
	for _, p := range ve.Problems {
		f.Add(p.Field, p.Message)
	}
	return f.Err()
}
