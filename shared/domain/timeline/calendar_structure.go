package timeline

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// The calendar's structure beyond Kanka (DESIGN.md section 5, "Calendar structure" and "Moon
// phases"): companions of Kanka's parallel arrays (month_interval, month_offset,
// month_weekdays; moon_granularity, moon_custom_cycle, moon_hidden), the week_restart setting,
// and the leap days' and eras' extra fields. The engine judges the values (naming the same
// fields); here only their types and sizes are read.

// intervalElem reads a month's interval: a string in the leap rules' grammar or a whole number;
// null or "" (every year).
func intervalElem(v any) (string, bool, string) {
	switch x := v.(type) {
	case nil:
		return "", false, ""
	case json.Number:
		return string(x), true, ""
	case string:
		s := strings.TrimSpace(x)
		if len(s) > maxIntervalLength {
			return "", false, "The :attribute must not be greater than " + strconv.Itoa(maxIntervalLength) + " characters."
		}
		return s, s != "", ""
	}
	return "", false, "The :attribute must be a string such as 400,!100,4."
}

// maxIntervalLength bounds an interval's text: 12 intervals of 10 digits with their prefixes.
const maxIntervalLength = 200

// namesElem reads a list of names (a month's own week): null or [] is none.
func namesElem(maxItems int) elem[[]string] {
	return func(v any) ([]string, bool, string) {
		if v == nil {
			return nil, false, ""
		}
		items, ok := v.([]any)
		if !ok {
			return nil, false, "The :attribute must be an array of names."
		}
		if len(items) > maxItems {
			return nil, false, "The :attribute must not have more than " + strconv.Itoa(maxItems) + " items."
		}
		out := make([]string, len(items))
		for i, it := range items {
			s, _, msg := nameElem(it)
			if msg != "" {
				return nil, false, "Item " + strconv.Itoa(i) + " of the :attribute: " + strings.ReplaceAll(msg, "The :attribute", "it")
			}
			out[i] = s
		}
		return out, len(out) > 0, ""
	}
}

// phasesElem reads a moon's custom cycle: whole numbers (phases), null or [] for none.
func phasesElem(v any) ([]int, bool, string) {
	if v == nil {
		return nil, false, ""
	}
	items, ok := v.([]any)
	if !ok {
		return nil, false, "The :attribute must be an array of phase numbers."
	}
	if len(items) > calengine.MaxCustomCycle {
		return nil, false, "The :attribute must not have more than " + strconv.Itoa(calengine.MaxCustomCycle) + " items."
	}
	out := make([]int, len(items))
	for i, it := range items {
		n, ok := domain.ToInt(it)
		if !ok || n < 0 || n >= 40 {
			return nil, false, "The :attribute must hold whole numbers from 0 to 39."
		}
		out[i] = int(n)
	}
	return out, len(out) > 0, ""
}

// boolElem reads true/false (1/0); null is false.
func boolElem(v any) (bool, bool, string) {
	switch x := v.(type) {
	case nil:
		return false, false, ""
	case bool:
		return x, true, ""
	case json.Number:
		if x == "0" || x == "1" {
			return x == "1", true, ""
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "1", "true":
			return true, true, ""
		case "0", "false", "":
			return false, true, ""
		}
	}
	return false, false, "The :attribute field must be true or false."
}

// monthColumns reads the months' companions beyond Kanka's into months (already built).
type monthColumns struct {
	intervals col[string]
	offsets   col[int64]
	weeks     col[[]string]
}

func readMonthColumns(p *parallel) monthColumns {
	return monthColumns{
		intervals: column(p, "month_interval", intervalElem, false),
		offsets:   column(p, "month_offset", optional(intElem(-domain.MaxID, domain.MaxID)), false),
		weeks:     column(p, "month_weekdays", namesElem(calengine.MaxMonthWeekdays), false),
	}
}

func (mc monthColumns) apply(m *calengine.Month, i int) {
	m.Interval, m.Offset, m.Weekdays = mc.intervals.at(i, ""), mc.offsets.at(i, 0), mc.weeks.at(i, nil)
}

type moonColumns struct {
	granularity col[int64]
	cycles      col[[]int]
	hidden      col[bool]
	rounding    col[string]
}

func readMoonColumns(p *parallel) moonColumns {
	return moonColumns{
		granularity: column(p, "moon_granularity", optional(intElem(1, 40)), false),
		cycles:      column(p, "moon_custom_cycle", phasesElem, false),
		hidden:      column(p, "moon_hidden", boolElem, false),
		rounding:    column(p, "moon_rounding", roundingElem, false),
	}
}

func (mc moonColumns) apply(m *calengine.Moon, i int) {
	m.Granularity, m.CustomCycle, m.Hidden = int(mc.granularity.at(i, 0)), mc.cycles.at(i, nil), mc.hidden.at(i, false)
	m.Rounding = mc.rounding.at(i, "")
}

// roundingElem reads a moon's rounding: round, floor or ceil (Fantasy-Calendar's); null or "":
// Lorekeep's own.
func roundingElem(v any) (string, bool, string) {
	switch x := v.(type) {
	case nil:
		return "", false, ""
	case string:
		s := strings.ToLower(strings.TrimSpace(x))
		if slices.Contains(calengine.MoonRoundings, s) {
			return s, s != "", ""
		}
	}
	return "", false, "The :attribute must be one of round, floor or ceil (or null)."
}

// applyStructureSettings reads week_restart.
func (c *Calendar) applyStructureSettings(r *domain.Reader) {
	if f := r.Bool("week_restart"); f.Set && !r.Errs.Has("week_restart") {
		c.WeekRestart = f.Value
	}
}

// structureInput writes def's structure beyond Kanka's into a create's body.
func structureInput(in domain.Input, def calengine.Definition) {
	num := func(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }
	used := def.WeekRestart
	for _, m := range def.Months {
		used = used || !calengine.MonthEveryYear(m) || len(m.Weekdays) > 0
	}
	if !used { // sent only when the calendar uses them, so a refusal names what it holds
		return
	}
	var intervals, offsets, weeks []any
	for _, m := range def.Months {
		w := make([]any, len(m.Weekdays))
		for i, n := range m.Weekdays {
			w[i] = n
		}
		intervals, offsets, weeks = append(intervals, m.Interval), append(offsets, num(m.Offset)), append(weeks, w)
	}
	in["month_interval"], in["month_offset"], in["month_weekdays"] = intervals, offsets, weeks
	in["week_restart"] = def.WeekRestart
}

// moonInput writes the moons' display beyond Kanka's into a create's body, when they use it.
func moonInput(in domain.Input, def calengine.Definition) {
	num := func(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }
	used := false
	for _, m := range def.Moons {
		used = used || m.Granularity != 0 || len(m.CustomCycle) > 0 || m.Hidden || m.Rounding != ""
	}
	if used {
		var gs, cs, hs, rs []any
		for _, m := range def.Moons {
			cyc := make([]any, len(m.CustomCycle))
			for i, p := range m.CustomCycle {
				cyc[i] = num(int64(p))
			}
			var g any
			if m.Granularity != 0 {
				g = num(int64(m.Granularity))
			}
			gs, cs, hs, rs = append(gs, g), append(cs, cyc), append(hs, m.Hidden), append(rs, m.Rounding)
		}
		in["moon_granularity"], in["moon_custom_cycle"], in["moon_hidden"], in["moon_rounding"] = gs, cs, hs, rs
	}
}

// decimalElem reads a season's duration or transition as exact decimal text (a number or a
// numeric string; null or "" is 0); the engine judges the value.
func decimalElem(v any) (string, bool, string) {
	if v == nil {
		return "", false, ""
	}
	s, ok := domain.NumberText(v)
	if !ok || len(s) > 40 {
		return "", false, "The :attribute must be a number of days."
	}
	return s, s != "", ""
}

// timeElem reads a time of day written "H:MM"; null or "" is none.
func timeElem(v any) (*calengine.Time, bool, string) {
	s, ok := v.(string)
	if v == nil || (ok && strings.TrimSpace(s) == "") {
		return nil, false, ""
	}
	t, good := calengine.ParseTimeOfDay(s)
	if !ok || !good {
		return nil, false, "The :attribute must be a time written H:MM."
	}
	return &t, true, ""
}

type seasonColumns struct {
	durations, transitions col[string]
	sunrises, sunsets      col[*calengine.Time]
}

func readSeasonColumns(p *parallel) seasonColumns {
	return seasonColumns{
		durations:   column(p, "season_duration", decimalElem, false),
		transitions: column(p, "season_transition", decimalElem, false),
		sunrises:    column(p, "season_sunrise", timeElem, false),
		sunsets:     column(p, "season_sunset", timeElem, false),
	}
}

func (sc seasonColumns) apply(s *calengine.Season, i int) {
	s.Duration, s.Transition = sc.durations.at(i, ""), sc.transitions.at(i, "")
	s.Sunrise, s.Sunset = sc.sunrises.at(i, nil), sc.sunsets.at(i, nil)
}

// applySeasonSettings reads periodic_seasons and season_offset.
func (c *Calendar) applySeasonSettings(r *domain.Reader) {
	if f := r.Bool("periodic_seasons"); f.Set && !r.Errs.Has("periodic_seasons") {
		c.PeriodicSeasons = f.Value
	}
	if f := r.Int("season_offset", -domain.MaxID, domain.MaxID); f.Present() {
		c.SeasonOffset = f.Value
	}
}

// seasonInput writes the seasons' durations and times into a create's body.
func seasonInput(in domain.Input, def calengine.Definition) {
	var ds, ts, rs, ss []any
	text := func(t *calengine.Time) any {
		if p := calengine.TimeOfDayText(t); p != nil {
			return *p
		}
		return nil
	}
	for _, s := range def.Seasons {
		ds, ts, rs, ss = append(ds, s.Duration), append(ts, s.Transition), append(rs, text(s.Sunrise)), append(ss, text(s.Sunset))
	}
	in["season_duration"], in["season_transition"], in["season_sunrise"], in["season_sunset"] = ds, ts, rs, ss
}
