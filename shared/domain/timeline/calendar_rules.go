package timeline

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Lorekeep's calendar modelling beyond Kanka (DESIGN.md section 5): leap-day rules, eras,
// presets and imported calendars. Kanka's five leap fields and `leap_days` describe one set of
// rules: a calendar uses either Kanka's fields (LeapDays empty) or its rules, and the fields
// are kept answering whenever the rules fit them.

// MaxEras bounds a calendar's eras.
const MaxEras = MaxEpochs

// applyPreset fills every structure from the preset named in the body; body fields read after
// it win. A new calendar also takes the preset's current date.
func (c *Calendar) applyPreset(r *domain.Reader) {
	f := r.String("preset", domain.MaxNameLength)
	if !f.Present() || r.Errs.Has("preset") {
		return
	}
	p, ok := calengine.PresetByKey(strings.TrimSpace(f.Value))
	if !ok {
		r.Fail("preset", "The selected preset is invalid.")
		return
	}
	c.UseDefinition(p.Definition)
	if c.Date.Month == 0 {
		c.Date = p.Date
	}
}

// UseDefinition replaces every structure of c with def's (a preset's, an import's).
func (c *Calendar) UseDefinition(def calengine.Definition) {
	c.Months, c.Weekdays, c.Seasons, c.Moons = def.Months, def.Weekdays, def.Seasons, def.Moons
	for i := range c.Months { // as a create's month_type defaults them: answered standard, not ""
		if c.Months[i].Type == "" {
			c.Months[i].Type = calengine.Standard
		}
	}
	for i := range c.Moons {
		if c.Moons[i].Colour == "" {
			c.Moons[i].Colour = DefaultMoonColour
		}
	}
	c.Years = def.Years
	if c.Years == nil {
		c.Years = map[int64]string{}
	}
	c.Suffix, c.StartOffset, c.SkipYearZero, c.WeekRestart = def.Suffix, def.StartOffset, def.SkipYearZero, def.WeekRestart
	c.PeriodicSeasons, c.SeasonOffset = def.PeriodicSeasons, def.SeasonOffset
	c.HasLeapYear, c.LeapYearAmount, c.LeapYearMonth, c.LeapYearOffset, c.LeapYearStart =
		def.HasLeapYear, def.LeapYearAmount, def.LeapYearMonth, def.LeapYearOffset, def.LeapYearStart
	c.LeapDays = def.LeapDays
	c.setEras(def.Eras)
	c.Clock, c.Cycles, c.CycleFormat, c.Format = def.Clock, def.Cycles, def.CycleFormat, def.DateFormat
	if c.Clock == nil {
		c.Time = calengine.Time{}
	}
}

// setEras replaces the eras; Kanka's epochs are their names.
func (c *Calendar) setEras(eras []calengine.Era) {
	c.Eras = eras
	c.Epochs = make([]string, len(eras))
	for i, e := range eras {
		c.Epochs[i] = e.Name
	}
}

// kankaLeapFields are the inputs of Kanka's one leap rule.
var kankaLeapFields = []string{"has_leap_year", "leap_year_amount", "leap_year_month", "leap_year_offset", "leap_year_start"}

// readObjects reads the list field of at most max objects, each with read (which reports its
// own problems under field.N): sent says whether the field was given, ok whether every item
// was read (the list is used whole or not at all).
func readObjects[T any](r *domain.Reader, field string, max int, read func(*domain.Reader, string, any) (T, bool)) (out []T, sent, ok bool) {
	items, f := r.List(field, max)
	if !f.Set || r.Errs.Has(field) {
		return nil, f.Set, false
	}
	out, ok = make([]T, 0, len(items)), true
	for i, it := range items {
		v, good := read(r, field+"."+strconv.Itoa(i), it)
		ok = ok && good
		out = append(out, v)
	}
	return out, true, ok
}

// applyRules reads leap_days and eras, then settles which leap description the calendar uses.
// Called after the Kanka fields were read.
func (c *Calendar) applyRules(r *domain.Reader) {
	sentRules := false
	if rules, sent, ok := readObjects(r, "leap_days", calengine.MaxLeapDays, readLeapDay); ok {
		c.LeapDays, sentRules = rules, true
	} else if !sent {
		for _, k := range kankaLeapFields {
			if r.Has(k) { // Kanka's fields sent alone: they describe the rules again
				c.LeapDays = nil
				break
			}
		}
	}
	if eras, _, ok := readObjects(r, "eras", MaxEras, readEra); ok {
		c.setEras(eras)
	}
	if len(c.LeapDays) > 0 || sentRules {
		// The rules decide (none: no leap years); Kanka's fields answer them when they fit, else
		// say no leap years.
		amount, month, offset, start, fits := calengine.KankaFields(c.Months, c.LeapDays)
		c.HasLeapYear, c.LeapYearAmount, c.LeapYearMonth, c.LeapYearOffset, c.LeapYearStart = fits, amount, month, offset, start
	} else if c.HasLeapYear && c.LeapYearMonth == 0 {
		c.LeapYearMonth = 1 // Kanka clamps a missing leap month to the first
	}
}

// object reads one element of a list of objects as its own domain.Input.
func object(r *domain.Reader, field string, v any) (domain.Input, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		r.Errs.Add(field, "The "+domain.Label(field)+" must be an object.")
		return nil, false
	}
	return domain.Input(m), true
}

// sub reads the fields of one object, reporting failures under prefix ("leap_days.0.month").
func sub(r *domain.Reader, prefix string, in domain.Input, read func(s *domain.Reader)) bool {
	s := domain.NewReader(in)
	read(s)
	for _, f := range s.Errs.Fields() {
		for _, m := range s.Errs.Messages(f) {
			r.Errs.Add(prefix+"."+f, m)
		}
	}
	return s.Errs.Empty()
}

func readLeapDay(r *domain.Reader, prefix string, v any) (calengine.LeapDay, bool) {
	in, ok := object(r, prefix, v)
	if !ok {
		return calengine.LeapDay{}, false
	}
	var l calengine.LeapDay
	return l, sub(r, prefix, in, func(s *domain.Reader) {
		if f := s.String("name", domain.MaxNameLength); f.Present() {
			l.Name = strings.TrimSpace(f.Value)
		}
		if f := s.Int("month", 1, MaxMonths); f.Present() {
			l.Month = int(f.Value)
		}
		s.Required("month", s.Has("month") && l.Month != 0)
		if f := s.Int("day", 0, maxInt32); f.Present() {
			d := int(f.Value)
			l.Day = &d
		}
		switch v := in["interval"].(type) {
		case string:
			l.Interval = strings.TrimSpace(v)
		case json.Number: // a single interval sent as a number
			l.Interval = string(v)
		case nil:
		default:
			s.Fail("interval", "The :attribute must be a string such as 400,!100,4.")
		}
		s.Required("interval", l.Interval != "" || s.Errs.Has("interval"))
		if f := s.Int("offset", -domain.MaxID, domain.MaxID); f.Present() {
			l.Offset = f.Value
		}
		if f := s.Int("from_year", -domain.MaxID, domain.MaxID); f.Present() {
			y := f.Value
			l.FromYear = &y
		}
		if f := s.Bool("intercalary"); f.Present() {
			l.Intercalary = f.Value
		}
		if f := s.Int("amount", 1, calengine.MaxLeapAmount); f.Present() {
			l.Amount = int(f.Value)
		}
		if f := s.String("weekday", domain.MaxNameLength); f.Present() {
			l.Weekday = strings.TrimSpace(f.Value)
		}
		if f := s.Bool("not_numbered"); f.Present() {
			l.NotNumbered = f.Value
		}
	})
}

func readEra(r *domain.Reader, prefix string, v any) (calengine.Era, bool) {
	in, ok := object(r, prefix, v)
	if !ok {
		return calengine.Era{}, false
	}
	var e calengine.Era
	return e, sub(r, prefix, in, func(s *domain.Reader) {
		if f := s.String("name", domain.MaxNameLength); f.Present() {
			e.Name = strings.TrimSpace(f.Value)
		}
		s.Required("name", e.Name != "")
		if f := s.String("abbreviation", domain.MaxNameLength); f.Present() {
			e.Abbreviation = strings.TrimSpace(f.Value)
		}
		if f := s.Int("year", -domain.MaxID, domain.MaxID); f.Present() {
			e.Year = f.Value
		} else {
			s.Required("year", false)
		}
		if f := s.Bool("restart"); f.Present() {
			e.Restart = f.Value
		}
		if f := s.Int("month", 0, MaxMonths); f.Present() {
			e.Month = int(f.Value)
		}
		if f := s.Int("day", 0, maxInt32); f.Present() {
			e.Day = int(f.Value)
		}
		if f := s.Bool("ends_year"); f.Present() {
			e.EndsYear = f.Value
		}
	})
}

// offsetElem reads a moon offset as the exact decimal text sent (a number or a numeric string;
// null or "" is 0), never through a float: up to 10 decimals, within a billion days.
func offsetElem(v any) (string, bool, string) {
	if v == nil {
		return "", false, ""
	}
	s, ok := domain.NumberText(v)
	if !ok {
		return "", false, "The :attribute must be a number."
	}
	if s == "" {
		return "", false, ""
	}
	if calengine.CheckOffset(s) != nil {
		return "", false, "The :attribute must be a number between -" + strconv.Itoa(calengine.MaxMoonOffset) +
			" and " + strconv.Itoa(calengine.MaxMoonOffset) + " with at most " + strconv.Itoa(calengine.MaxMoonDecimals) + " decimal places."
	}
	return s, true, ""
}

// DefinitionInput writes def and a current date and time as the body of a create, so that an
// imported calendar is read and judged like any other (names, lengths, colours, sizes).
func DefinitionInput(def calengine.Definition, date calengine.Date, t calengine.Time) domain.Input {
	num := func(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }
	in := domain.Input{
		"start_offset": num(int64(def.StartOffset)), "skip_year_zero": def.SkipYearZero,
		"current_year": num(date.Year), "current_month": num(int64(date.Month)), "current_day": num(int64(date.Day)),
	}
	var names, lengths, types, weekdays []any
	for _, m := range def.Months {
		names, lengths, types = append(names, m.Name), append(lengths, num(int64(m.Length))), append(types, string(m.Type))
	}
	for _, w := range def.Weekdays {
		weekdays = append(weekdays, w)
	}
	in["month_name"], in["month_length"], in["month_type"], in["weekday"] = names, lengths, types, weekdays
	structureInput(in, def)
	moonInput(in, def)
	if len(def.Seasons) > 0 {
		var sn, sm, sd []any
		for _, x := range def.Seasons {
			sn, sm, sd = append(sn, x.Name), append(sm, num(int64(x.Month))), append(sd, num(int64(x.Day)))
		}
		in["season_name"], in["season_month"], in["season_day"] = sn, sm, sd
		seasonInput(in, def)
	}
	in["periodic_seasons"], in["season_offset"] = def.PeriodicSeasons, json.Number(strconv.FormatInt(def.SeasonOffset, 10))
	if len(def.Moons) > 0 {
		var mn, mf, mo, mc, mi []any
		for _, m := range def.Moons {
			mn, mf, mo = append(mn, m.Name), append(mf, json.Number(m.Fullmoon)), append(mo, m.Offset)
			mc, mi = append(mc, m.Colour), append(mi, num(int64(m.ID)))
		}
		in["moon_name"], in["moon_fullmoon"], in["moon_offset"], in["moon_colour"], in["moon_id"] = mn, mf, mo, mc, mi
	}
	rules := make([]any, len(def.LeapDays))
	for i, l := range def.LeapDays {
		m := map[string]any{"name": l.Name, "month": num(int64(l.Month)), "interval": l.Interval,
			"offset": num(l.Offset), "intercalary": l.Intercalary}
		if l.Day != nil {
			m["day"] = num(int64(*l.Day))
		}
		if l.FromYear != nil {
			m["from_year"] = num(*l.FromYear)
		}
		if l.Amount > 0 {
			m["amount"] = num(int64(l.Amount))
		}
		if l.Weekday != "" {
			m["weekday"] = l.Weekday
		}
		if l.NotNumbered {
			m["not_numbered"] = true
		}
		rules[i] = m
	}
	in["leap_days"] = rules
	eras := make([]any, len(def.Eras))
	for i, e := range def.Eras {
		eras[i] = map[string]any{"name": e.Name, "abbreviation": e.Abbreviation, "year": num(e.Year), "restart": e.Restart, "ends_year": e.EndsYear,
			"month": num(int64(e.Month)), "day": num(int64(e.Day))}
	}
	in["eras"] = eras
	if k := def.Clock; k != nil {
		in["clock_hours"], in["clock_minutes"], in["clock_offset"] = num(int64(k.Hours)), num(int64(k.Minutes)), num(int64(k.Offset))
		in["current_hour"], in["current_minute"] = num(int64(t.Hour)), num(int64(t.Minute))
	}
	cycles := make([]any, len(def.Cycles))
	for i, cy := range def.Cycles {
		names := make([]any, len(cy.Names))
		for j, n := range cy.Names {
			names[j] = n
		}
		cycles[i] = map[string]any{"length": num(cy.Length), "offset": num(cy.Offset), "names": names}
	}
	in["cycles"], in["cycle_format"] = cycles, def.CycleFormat
	if def.DateFormat != "" {
		in["format"] = def.DateFormat
	}
	if def.Suffix != "" {
		in["suffix"] = def.Suffix
	}
	if len(def.Years) > 0 {
		var numbers, names []any
		for y, n := range def.Years {
			numbers, names = append(numbers, num(y)), append(names, n)
		}
		in["year_number"], in["year_name"] = numbers, names
	}
	return in
}
