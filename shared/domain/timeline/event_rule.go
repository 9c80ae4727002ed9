package timeline

import (
	"slices"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// An event's recurrence beyond Kanka's (calengine.Rule) and its time of day, read from flat
// fields as the calendar's clock_* are: `recurrence` names the unit (null or "" removes the
// rule) and the recurrence_* fields its parts.
var ruleFields = []string{"recurrence", "recurrence_interval", "recurrence_weekday", "recurrence_ordinal",
	"recurrence_moon_id", "recurrence_phase", "recurrence_count", "recurrence_until"}

// ruleUnitNames are the values `recurrence` takes.
var ruleUnitNames = func() []string {
	out := make([]string, len(calengine.RuleUnits))
	for i, u := range calengine.RuleUnits {
		out[i] = string(u)
	}
	return out
}()

// readRule merges the sent recurrence fields into ev.Rule. Sending `recurrence` starts a new
// rule (interval 1, the other parts unset); recurrence_* alone change the event's rule, and
// need one. What depends on the calendar (the weekday, the moon, until) is CheckOnCalendar's.
func readRule(r *domain.Reader, ev *Event) {
	var next calengine.Rule
	if ev.Rule != nil {
		next = *ev.Rule
	}
	if f := r.String("recurrence", 64); f.Set {
		if r.Errs.Has("recurrence") {
			return
		}
		unit := strings.TrimSpace(f.Value)
		if unit == "" {
			ev.Rule = nil
			for _, name := range ruleFields[1:] {
				if r.Has(name) {
					r.Fail(name, "The :attribute field is prohibited when recurrence is empty.")
				}
			}
			return
		}
		if !slices.Contains(ruleUnitNames, unit) {
			r.Fail("recurrence", "The selected :attribute is invalid: it must be one of "+strings.Join(ruleUnitNames, ", ")+".")
			return
		}
		next = calengine.Rule{Unit: calengine.RuleUnit(unit), Interval: 1}
	} else if firstSent(r, ruleFields[1:]) == "" {
		return
	} else if ev.Rule == nil {
		r.Fail("recurrence", "The :attribute field is required when "+domain.Label(firstSent(r, ruleFields[1:]))+" is present.")
		return
	}
	if f := r.Int("recurrence_interval", 1, calengine.MaxRuleInterval); f.Present() {
		next.Interval = f.Value
	}
	if f := r.Int("recurrence_weekday", 0, 1<<20); f.Set && !r.Errs.Has("recurrence_weekday") {
		next.Weekday = int(f.Value)
	}
	if f := r.Int("recurrence_ordinal", -calengine.MaxRuleOrdinal, calengine.MaxRuleOrdinal); f.Set && !r.Errs.Has("recurrence_ordinal") {
		next.Ordinal = int(f.Value)
	}
	if f := r.Int("recurrence_moon_id", 1, 1<<31); f.Set && !r.Errs.Has("recurrence_moon_id") {
		next.MoonID = int(f.Value)
	}
	if f := r.OneOf("recurrence_phase", calengine.PhaseNames[:], nil); f.Set && !r.Errs.Has("recurrence_phase") {
		next.Phase = f.Value
	}
	if f := r.Int("recurrence_count", 1, calengine.MaxRuleCount); f.Set && !r.Errs.Has("recurrence_count") {
		next.Count = f.Value // null: no limit
	}
	if f := r.String("recurrence_until", 64); f.Set && !r.Errs.Has("recurrence_until") {
		next.Until = nil
		if f.Present() {
			d, err := calengine.ParseDate(strings.TrimSpace(f.Value))
			if err != nil {
				r.Fail("recurrence_until", "The :attribute must be a date written Y-M-D.")
			} else {
				next.Until = &d
			}
		}
	}
	for _, p := range calengine.RuleProblems(next) {
		if !r.Errs.Has(p.Field) {
			r.Errs.Add(p.Field, p.Message)
		}
	}
	ev.Rule = &next
}

// readTime merges `hour` and `minute` into ev.Time: a null hour removes the time, a minute
// needs an hour (sent or kept) and defaults to 0. Whether the calendar's clock has them is
// CheckOnCalendar's.
func readTime(r *domain.Reader, ev *Event) {
	hour := r.Int("hour", 0, calengine.MaxClockHours-1)
	minute := r.Int("minute", 0, calengine.MaxClockMinutes-1)
	if r.Errs.Has("hour") || r.Errs.Has("minute") {
		return
	}
	if hour.Set && !hour.Present() {
		if minute.Present() {
			r.Fail("hour", "The :attribute field is required when minute is present.")
			return
		}
		ev.Time = nil
		return
	}
	var t calengine.Time
	switch {
	case hour.Present():
		t.Hour = int(hour.Value)
	case ev.Time != nil:
		t = *ev.Time
	case minute.Present():
		r.Fail("hour", "The :attribute field is required when minute is present.")
		return
	default:
		return
	}
	if minute.Present() {
		t.Minute = int(minute.Value)
	} else if hour.Present() {
		t.Minute = 0
		if ev.Time != nil && !minute.Set {
			t.Minute = ev.Time.Minute // an hour alone keeps the minute
		}
	}
	ev.Time = &t
}

// firstSent is the first of names the body sends.
func firstSent(r *domain.Reader, names []string) string {
	for _, n := range names {
		if r.Has(n) {
			return n
		}
	}
	return ""
}

// checkRuleAndTime adds to f what the calendar says of the event's rule and time.
func (ev *Event) checkRuleAndTime(cal *calengine.Calendar, f *apperr.FieldErrors) {
	if ev.Rule != nil {
		for _, p := range cal.CheckRule(*ev.Rule, ev.Date) {
			f.Add(p.Field, p.Message)
		}
	}
	if ev.Time != nil && !cal.ValidTime(*ev.Time) {
		k, ok := cal.Clock()
		switch {
		case !ok:
			f.Add("hour", "The hour needs the calendar's clock: the calendar has none.")
		case ev.Time.Hour >= k.Hours:
			f.Add("hour", "The hour must be between 0 and "+strconv.Itoa(k.Hours-1)+" on the calendar's clock.")
		default:
			f.Add("minute", "The minute must be between 0 and "+strconv.Itoa(k.Minutes-1)+" on the calendar's clock.")
		}
	}
}
