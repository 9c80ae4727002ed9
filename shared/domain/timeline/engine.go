package timeline

import (
	"errors"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// The one place the calendar engine's verdicts (its Problems, and dates it refuses) become
// field errors: a calendar's structure, its current date and its moves, an event's date, and
// the day view's range.

// check builds the engine of the merged calendar and reports its problems and a current date
// that does not exist in it.
func (c *Calendar) check(r *domain.Reader) {
	eng, err := c.Engine()
	if err != nil {
		if ve := (*calengine.ValidationError)(nil); errors.As(err, &ve) {
			for _, p := range ve.Problems {
				// The engine names the clock as an object (clock.hours); the API's fields are flat.
				r.Errs.Add(strings.Replace(p.Field, "clock.", "clock_", 1), p.Message)
			}
			return
		}
		r.Errs.Add("month_name", "The calendar is invalid.")
		return
	}
	c.checkTime(eng, r)
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

// Move shifts the current date by days (back when negative). A date the calendar cannot hold,
// or whose year is beyond the current year's bound (what create, update and import accept, so
// a client can always write back the date it reads), is refused naming the days.
func (c *Calendar) Move(days int64) error {
	eng, err := c.Engine()
	if err != nil {
		return err
	}
	d, err := eng.AddDays(c.Date, days)
	if err != nil || d.Year < -domain.MaxID || d.Year > domain.MaxID {
		return apperr.Invalid("days", "The days would move the current year out of its range, "+
			strconv.FormatInt(-domain.MaxID, 10)+" to "+strconv.FormatInt(domain.MaxID, 10)+".")
	}
	c.Date = d
	return nil
}

// CheckOnCalendar validates what depends on the event's calendar c (nil when there is none):
// the caller may see it, the date exists in that year, a moon recurrence names a moon of it,
// and recurring_until is not before the start.
func (ev *Event) CheckOnCalendar(c *Calendar, a domain.Access) error {
	if c == nil || !a.CanSee(c.IsPrivate) {
		return apperr.Invalid("calendar_id", "The selected calendar id is invalid.")
	}
	cal, err := c.Engine()
	if err != nil {
		return err
	}
	var f apperr.FieldErrors
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
	ev.checkRuleAndTime(cal, &f)
	return f.Err()
}

// DayRange reads the day view's from and to (Y-M-D; from defaults to the current date, to to
// from) as day numbers of eng, c's engine: dates of the calendar, to not before from, at most
// maxDays days in all.
func (c *Calendar) DayRange(eng *calengine.Calendar, fromText, toText string, maxDays int) (from, to int64, err error) {
	var errs apperr.FieldErrors
	read := func(name, text string) (int64, bool) {
		d := c.Date
		if text != "" {
			var perr error
			if d, perr = calengine.ParseDate(text); perr != nil {
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
	return apperr.Invalid("to", "The days hold more than "+strconv.Itoa(max)+" event occurrences; ask for fewer days.")
}

// DaysTooLarge refuses a day view whose answer would pass max bytes: last is the last date
// that fits after from, or "" when the first day alone does not.
func DaysTooLarge(max int, last string) error {
	msg := "The days would answer more than " + strconv.Itoa(max) + " bytes; "
	if last == "" {
		return apperr.Invalid("to", msg+"the first day alone holds too many events and moons to answer.")
	}
	return apperr.Invalid("to", msg+"ask for to at most "+last+".")
}

// The engine's and the importer's problems become field errors here, and only here, so that
// every 422 of the calendars family has the shape the Reader gives the rest.

// EngineProblems turns the engine's verdict on a definition (an imported calendar's, whose
// problems name the export's fields) into field errors; other errors pass through.
func EngineProblems(err error) error {
	var ve *calengine.ValidationError
	ok := errors.As(err, &ve)
	if !ok {
		return err
	}
	var f apperr.FieldErrors
	for _, p := range ve.Problems {
		f.Add(p.Field, p.Message)
	}
	return f.Err()
}

// ImportProblems renames the create's field errors about what came from the export to the
// export's fields, through the converter's record of where each item came from; a field sent
// beside the export keeps its name. A message that names the create's field names the
// export's instead ("The month name.0 field is required." -> "The name field is required.").
func ImportProblems(err error, im *calengine.Import, beside map[string]bool) error {
	var e *apperr.Error
	if !errors.As(err, &e) || e.Fields == nil {
		return err
	}
	var out apperr.FieldErrors
	for _, f := range e.Fields.Fields() {
		root, _, _ := strings.Cut(f, ".")
		to := f
		if !beside[root] {
			to = im.ExportField(f)
		}
		for _, m := range e.Fields.Messages(f) {
			if to != f && !calengine.ExportList(f) { // a whole list's message keeps its words
				m = renameAttribute(m, f, to)
			}
			out.Add(to, m)
		}
	}
	return out.Err()
}

// renameAttribute rewrites a Laravel-style message about field (or its last part, as an
// object's subfield is named) to name the last named part of to.
func renameAttribute(msg, field, to string) string {
	parts := strings.Split(to, ".")
	name := parts[len(parts)-1]
	for i := len(parts) - 1; i >= 0; i-- {
		if _, err := strconv.Atoi(parts[i]); err != nil {
			name = parts[i]
			break
		}
	}
	sub := field[strings.LastIndex(field, ".")+1:]
	for _, old := range []string{field, sub} {
		if p := "The " + domain.Label(old) + " "; strings.HasPrefix(msg, p) {
			return "The " + domain.Label(name) + " " + msg[len(p):]
		}
	}
	return msg
}
