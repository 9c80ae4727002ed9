package calengine

import (
	"bytes"
	"encoding/json"
	"html"
	"math/big"
	"reflect"
	"strconv"
	"strings"
)

// Bounds on an export's numbers, checked on their text before any exact (arbitrary-precision)
// arithmetic: "1e999999" would otherwise cost a 10^999999, and a 900 KB integer seconds of
// parsing. Every number a calendar holds fits in far fewer digits.
const (
	MaxImportDigits   = 40 // digits of a number, before its exponent
	MaxImportExponent = 40 // magnitude of a number's exponent
)

// Import is a calendar read from a Fantasy-Calendar export, and what could
// not be carried over.
type Import struct {
	Name       string
	Definition Definition
	Date       Date
	Time       Time // the current time, when Definition has a clock
	Warnings   []string
	// Climate is the weather of the export's current custom location, nil without one.
	Climate *Climate
	// Events are the export's events that map onto Lorekeep's recurrences (fantasy_events.go),
	// to be written as reminders on the calendar's entity.
	Events []ImportedEvent
	// From records, for each item of Definition's lists, the index of the export's item it came
	// from: the converter drops some (with a warning), so positions differ. Weekdays and months
	// are the export's global_week and timespans, one for one.
	From struct{ LeapDays, Moons, Seasons, Eras, Cycles []int }
}

// fcNumber is a JSON number or a string holding one, as exports carry
// both ("interval": "4", "offset": 0).
type fcNumber struct {
	s   string
	set bool
}

func (n *fcNumber) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
	} else {
		var num json.Number
		if err := json.Unmarshal(b, &num); err != nil {
			return err
		}
		s = num.String()
	}
	n.s, n.set = s, true
	return nil
}

// decimal reports whether the text is a decimal number ([+-]digits[.digits][e[+-]digits])
// within MaxImportDigits and MaxImportExponent: the only text rat reads.
func (n fcNumber) decimal() (ok, tooLarge bool) {
	s := strings.TrimLeft(n.s, "+-")
	if len(n.s)-len(s) > 1 {
		return false, false
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	ip, fp, _ := strings.Cut(mant, ".")
	digits := func(t string) bool { return strings.TrimLeft(t, "0123456789") == "" }
	if ip+fp == "" || !digits(ip) || !digits(fp) {
		return false, false
	}
	tooLarge = len(ip)+len(fp) > MaxImportDigits
	if hasExp {
		e := strings.TrimLeft(exp, "+-")
		if len(exp)-len(e) > 1 || e == "" || !digits(e) {
			return false, false
		}
		e = strings.TrimLeft(e, "0")
		v, err := strconv.Atoi(e)
		tooLarge = tooLarge || len(e) > 3 || err != nil && e != "" || v > MaxImportExponent
	}
	return true, tooLarge
}

// numberProblems names, under path, every number of v (an export's decoded part) whose text
// passes MaxImportDigits or MaxImportExponent, so that nothing past them reaches rat.
func numberProblems(v reflect.Value, path string, add func(field, msg string)) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			numberProblems(v.Elem(), path, add)
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			return // events, read on their own (fantasy_events.go): not walked byte by byte
		}
		for i := range v.Len() {
			numberProblems(v.Index(i), path+"."+strconv.Itoa(i), add)
		}
	case reflect.Struct:
		if n, ok := v.Interface().(fcNumber); ok {
			if _, big := n.decimal(); n.set && big {
				add(path, "The "+path[strings.LastIndex(path, ".")+1:]+" must be a number of at most "+strconv.Itoa(MaxImportDigits)+
					" digits with an exponent between -"+strconv.Itoa(MaxImportExponent)+" and "+strconv.Itoa(MaxImportExponent)+".")
			}
			return
		}
		t := v.Type()
		for i := range t.NumField() {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" && t.Field(i).IsExported() {
				numberProblems(v.Field(i), strings.TrimPrefix(path+"."+name, "."), add)
			}
		}
	}
}

// rat is the number exactly, or nil when it is not one (or not one within the bounds).
func (n fcNumber) rat() *big.Rat {
	if !n.set || n.s == "" {
		return nil
	}
	if ok, big := n.decimal(); !ok || big {
		return nil
	}
	r, ok := new(big.Rat).SetString(n.s)
	if !ok {
		return nil
	}
	return r
}

// integer is the number when it is a whole one within int64.
func (n fcNumber) integer() (int64, bool) {
	r := n.rat()
	if r == nil || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

type fcExport struct {
	Name       *string          `json:"name"`
	StaticData *fcStatic        `json:"static_data"`
	Dynamic    *json.RawMessage `json:"dynamic_data"`
	// Fantasy-Calendar's exports today carry the events and their categories beside
	// static_data (its PrepCalendarForExport); older ones and its presets in
	// static_data.event_data. The top-level lists win when present.
	Events     []json.RawMessage `json:"events"`
	Categories []json.RawMessage `json:"categories"`
}

type fcStatic struct {
	YearData *struct {
		FirstDay   fcNumber     `json:"first_day"`
		Overflow   *bool        `json:"overflow"`
		GlobalWeek []string     `json:"global_week"`
		Timespans  []fcTimespan `json:"timespans"`
		LeapDays   []fcLeapDay  `json:"leap_days"`
	} `json:"year_data"`
	Moons []fcMoon `json:"moons"`
	Clock *struct {
		Enabled *bool    `json:"enabled"`
		Hours   fcNumber `json:"hours"`
		Minutes fcNumber `json:"minutes"`
		Offset  fcNumber `json:"offset"`
	} `json:"clock"`
	Seasons *struct {
		Data      []fcSeason     `json:"data"`
		Locations []fcLocation   `json:"locations"`
		Global    map[string]any `json:"global_settings"`
	} `json:"seasons"`
	Eras     []fcEra        `json:"eras"`
	Settings map[string]any `json:"settings"`
	Cycles   *struct {
		Format string    `json:"format"`
		Data   []fcCycle `json:"data"`
	} `json:"cycles"`
	EventData *struct {
		Categories []json.RawMessage `json:"categories"`
		Events     []json.RawMessage `json:"events"`
	} `json:"event_data"`
	// Lorekeep's own, written by ExportFantasyCalendar and ignored by Fantasy-Calendar.
	Years  map[string]string `json:"years"`
	Suffix string            `json:"suffix"`
	Format string            `json:"format"` // Kanka's date format
}

type fcTimespan struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Length   fcNumber `json:"length"`
	Interval fcNumber `json:"interval"`
	Offset   fcNumber `json:"offset"`
	Week     []string `json:"week"`
	// Lorekeep's own, written by ExportFantasyCalendar and ignored by Fantasy-Calendar: an
	// interval in the leap rules' grammar, beyond Fantasy-Calendar's single number.
	IntervalRule *string `json:"interval_rule"`
}

type fcLeapDay struct {
	Name        string   `json:"name"`
	Intercalary bool     `json:"intercalary"`
	Timespan    fcNumber `json:"timespan"`
	AddsWeekDay bool     `json:"adds_week_day"`
	WeekDay     any      `json:"week_day"`
	Day         fcNumber `json:"day"`
	Interval    fcNumber `json:"interval"`
	Offset      fcNumber `json:"offset"`
	NotNumbered bool     `json:"not_numbered"`
	// Lorekeep's own, written by ExportFantasyCalendar and ignored by Fantasy-Calendar.
	AfterDay fcNumber `json:"after_day"`
	FromYear fcNumber `json:"from_year"`
	Amount   fcNumber `json:"amount"`
}

type fcMoon struct {
	Name        string   `json:"name"`
	Cycle       fcNumber `json:"cycle"`
	Shift       fcNumber `json:"shift"`
	Color       string   `json:"color"`
	CustomPhase bool     `json:"custom_phase"`
	CustomCycle fcNumber `json:"custom_cycle"`
	Granularity fcNumber `json:"granularity"`
	Hidden      bool     `json:"hidden"`
	Rounding    *string  `json:"cycle_rounding"`
	// Lorekeep's own, written by ExportFantasyCalendar and ignored by Fantasy-Calendar.
	Instant bool     `json:"lorekeep_instant"`
	ID      fcNumber `json:"id"`
	Colour  *string  `json:"colour"`
}

type fcSeason struct {
	Name       string   `json:"name"`
	Timespan   fcNumber `json:"timespan"`
	Day        fcNumber `json:"day"`
	Duration   fcNumber `json:"duration"`
	Transition fcNumber `json:"transition_length"`
	Time       *struct {
		Sunrise *fcClockTime `json:"sunrise"`
		Sunset  *fcClockTime `json:"sunset"`
	} `json:"time"`
	// Lorekeep's own, written by ExportFantasyCalendar: the season has no times of its own (the
	// export's are Fantasy-Calendar's required defaults).
	NoTime bool `json:"no_time"`
}

type fcClockTime struct {
	Hour   fcNumber `json:"hour"`
	Minute fcNumber `json:"minute"`
}

type fcEra struct {
	Name         string `json:"name"`
	Abbreviation string `json:"abbreviation"`
	Description  string `json:"description"`
	Settings     struct {
		Restart     bool `json:"restart"`
		EndsYear    bool `json:"ends_year"`
		StartingEra bool `json:"starting_era"` // Fantasy-Calendar ignores its ends_year
	} `json:"settings"`
	Date struct {
		Year     fcNumber `json:"year"`
		Timespan fcNumber `json:"timespan"`
		Day      fcNumber `json:"day"`
	} `json:"date"`
}

type fcCycle struct {
	Length fcNumber `json:"length"`
	Offset fcNumber `json:"offset"`
	Names  []string `json:"names"`
	Type   string   `json:"type"`
}

type fcDynamic struct {
	Location       any      `json:"location"`
	CustomLocation bool     `json:"custom_location"`
	Year           fcNumber `json:"year"`
	Timespan       fcNumber `json:"timespan"`
	Month          fcNumber `json:"month"` // older exports
	Day            fcNumber `json:"day"`
	Hour           fcNumber `json:"hour"`
	Minute         fcNumber `json:"minute"`
}

// ImportFantasyCalendar reads a Fantasy-Calendar export: its timespans
// become months (intercalary kept), global_week the weekdays, first_day
// (1-based) the first weekday, leap_days the rules (timespan is a 0-based
// month), moons their cycle and shift, dated seasons, eras, and
// dynamic_data the current date (timespan 0-based). Whatever cannot be
// expressed is listed in Warnings. A malformed export is a
// *ValidationError naming the export's field.
func ImportFantasyCalendar(data []byte) (Import, error) {
	var ex fcExport
	var probs []Problem
	add := func(field, msg string) { probs = append(probs, Problem{Field: field, Message: msg}) }
	fail := func() (Import, error) { return Import{}, &ValidationError{Problems: probs} }
	if err := json.Unmarshal(data, &ex); err != nil {
		field := "static_data"
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			field = indexedPath(data, reflect.TypeOf(ex), te.Field)
		}
		add(field, "The export is not a Fantasy-Calendar export: "+typeErrorText(err, field))
		return fail()
	}
	if ex.Name == nil || strings.TrimSpace(html.UnescapeString(*ex.Name)) == "" {
		add("name", "The name field is required.")
	}
	if ex.StaticData == nil || ex.StaticData.YearData == nil {
		add("static_data.year_data", "The static data must hold year_data.")
		return fail()
	}
	if numberProblems(reflect.ValueOf(ex.StaticData), "static_data", add); len(probs) > 0 {
		return fail()
	}
	out := Import{}
	if ex.Name != nil {
		out.Name = strings.TrimSpace(html.UnescapeString(*ex.Name))
	}
	warn := func(s string) { out.Warnings = append(out.Warnings, s) }
	sd := ex.StaticData
	yd := sd.YearData
	def := &out.Definition
	text := html.UnescapeString

	if len(yd.Timespans) < 2 {
		add("static_data.year_data.timespans", "The timespans must have at least 2 items.")
	}
	for i, ts := range yd.Timespans {
		f := "static_data.year_data.timespans." + strconv.Itoa(i)
		m := Month{Name: strings.TrimSpace(text(ts.Name))}
		switch ts.Type {
		case "month", "":
			m.Type = Standard
		case "intercalary":
			m.Type = Intercalary
		default:
			add(f+".type", "The type must be month or intercalary.")
		}
		n, ok := ts.Length.integer()
		if !ok || n < 1 || n > MaxYearLength {
			add(f+".length", "The length must be a whole number of days, at least 1.")
		}
		m.Length = int(n)
		if iv, ok := ts.Interval.integer(); ts.Interval.set && (!ok || iv < 1 || iv > MaxLeapOffset) {
			add(f+".interval", "The interval must be a whole number from 1 to "+strconv.Itoa(MaxLeapOffset)+".")
		} else if ts.Interval.set && iv != 1 {
			m.Interval = strconv.FormatInt(iv, 10)
		}
		if ts.IntervalRule != nil {
			m.Interval = strings.TrimSpace(*ts.IntervalRule)
		}
		if off, ok := ts.Offset.integer(); ts.Offset.set && !ok {
			add(f+".offset", "The offset must be a whole number.")
		} else if m.Interval != "" {
			m.Offset = off
		}
		for _, w := range ts.Week {
			m.Weekdays = append(m.Weekdays, strings.TrimSpace(text(w)))
		}
		def.Months = append(def.Months, m)
	}
	for _, w := range yd.GlobalWeek {
		def.Weekdays = append(def.Weekdays, strings.TrimSpace(text(w)))
	}
	if len(def.Weekdays) < 2 {
		add("static_data.year_data.global_week", "The global week must have at least 2 items.")
	}
	if fd, ok := yd.FirstDay.integer(); yd.FirstDay.set {
		if !ok || fd < 1 || (len(def.Weekdays) > 0 && fd > int64(len(def.Weekdays))) {
			add("static_data.year_data.first_day", "The first day must be a day of the global week (1-based).")
		} else {
			def.StartOffset = int(fd - 1)
		}
	}
	def.WeekRestart = yd.Overflow != nil && !*yd.Overflow
	yearZero := false
	if v, ok := sd.Settings["year_zero_exists"].(bool); ok {
		yearZero = v
	}
	def.SkipYearZero = !yearZero
	def.Suffix = strings.TrimSpace(text(sd.Suffix))
	def.DateFormat = strings.TrimSpace(text(sd.Format))
	if len(sd.Years) > 0 {
		def.Years = make(map[int64]string, len(sd.Years))
		for k, v := range sd.Years {
			y, err := strconv.ParseInt(k, 10, 64)
			if err != nil {
				add("static_data.years", "The years must map whole year numbers to names.")
				break
			}
			def.Years[y] = strings.TrimSpace(text(v))
		}
	}

	for i, ld := range yd.LeapDays {
		f := "static_data.year_data.leap_days." + strconv.Itoa(i)
		rule := LeapDay{Name: strings.TrimSpace(text(ld.Name)), Intercalary: ld.Intercalary, Interval: ld.Interval.s}
		if !ld.Interval.set {
			rule.Interval = "1"
		}
		ts, ok := ld.Timespan.integer()
		if !ok || ts < 0 || ts >= int64(len(def.Months)) {
			add(f+".timespan", "The timespan must be a timespan of the export (0-based).")
			continue
		}
		rule.Month = int(ts) + 1
		if off, ok := ld.Offset.integer(); ok {
			rule.Offset = off
		} else if ld.Offset.set {
			add(f+".offset", "The offset must be a whole number.")
		}
		// Intercalary leap days sit after `day` in a standard month;
		// others lengthen the month at its end.
		if ld.Intercalary && def.Months[ts].Type == Standard {
			day, ok := ld.Day.integer()
			if ld.Day.set && (!ok || day < 0 || day > int64(def.Months[ts].Length)) {
				add(f+".day", "The day must be between 0 and the timespan's length.")
			} else if ld.Day.set {
				d := int(day)
				rule.Day = &d
			}
		}
		if ld.AfterDay.set {
			day, ok := ld.AfterDay.integer()
			if !ok || day < 0 || day > int64(def.Months[ts].Length) {
				add(f+".after_day", "The after day must be between 0 and the timespan's length.")
			} else {
				d := int(day)
				rule.Day = &d
			}
		}
		if ld.FromYear.set {
			from, ok := ld.FromYear.integer()
			if !ok {
				add(f+".from_year", "The from year must be a whole number.")
			} else {
				rule.FromYear = &from
			}
		}
		if ld.Amount.set {
			n, ok := ld.Amount.integer()
			if !ok || n < 1 || n > MaxLeapAmount {
				add(f+".amount", "The amount must be between 1 and "+strconv.Itoa(MaxLeapAmount)+".")
			} else {
				rule.Amount = int(n)
			}
		}
		if ld.AddsWeekDay {
			// The weekday's name; an export without one names it after the leap day.
			if w, ok := ld.WeekDay.(string); ok && strings.TrimSpace(text(w)) != "" {
				rule.Weekday = strings.TrimSpace(text(w))
			} else if rule.Weekday = rule.Name; rule.Weekday == "" {
				rule.Weekday = "Leap day"
			}
		}
		rule.NotNumbered = ld.NotNumbered
		if _, err := parseInterval(rule.Interval); err != nil {
			add(f+".interval", "The interval must be comma-separated whole numbers, each optionally prefixed by ! or +.")
			continue
		}
		def.LeapDays = append(def.LeapDays, rule)
		out.From.LeapDays = append(out.From.LeapDays, i)
	}
	monthRules := false
	for _, m := range def.Months {
		monthRules = monthRules || !MonthEveryYear(m)
	}
	if (len(def.LeapDays) > 0 || monthRules) && def.SkipYearZero {
		warn("Leap years and months with an interval before year 1 follow Lorekeep's numbering (year -1 is tested as -1, not as year 0 as Fantasy-Calendar does).")
	}

	for i, m := range sd.Moons {
		f := "static_data.moons." + strconv.Itoa(i)
		name := strings.TrimSpace(text(m.Name))
		custom, g, ok := fcMoonDisplay(m, f, add, warn)
		if !ok {
			continue
		}
		if custom != nil && !m.Cycle.set { // Fantasy-Calendar drops the cycle of a custom moon
			m.Cycle = fcNumber{s: strconv.Itoa(len(custom)), set: true}
		}
		cycle, shift := m.Cycle.rat(), m.Shift.rat()
		if shift == nil && !m.Shift.set {
			shift = new(big.Rat)
		}
		if cycle == nil || cycle.Sign() <= 0 {
			add(f+".cycle", "The cycle must be a positive number.")
			continue
		}
		if shift == nil {
			add(f+".shift", "The shift must be a number.")
			continue
		}
		period, exact1 := decimalText(cycle)
		// Fantasy-Calendar's phase 0 is the new moon, at shift (mod cycle);
		// Lorekeep's is the full moon, so the offset is shift - cycle/2.
		off, exact2 := decimalText(new(big.Rat).Sub(shift, new(big.Rat).Quo(cycle, big.NewRat(2, 1))))
		// Judged as rounded, in the export's terms: 1e-300 rounds to no cycle at all.
		if PeriodProblem(period) != "" {
			add(f+".cycle", "The cycle must be between 0.0000000001 and "+strconv.Itoa(MaxMoonPeriod)+" days.")
			continue
		}
		if CheckOffset(off) != nil {
			add(f+".shift", "The shift must not be more than "+strconv.Itoa(MaxMoonOffset)+" days from half the cycle.")
			continue
		}
		if !exact1 || !exact2 {
			warn("Moon " + strconv.Quote(name) + ": cycle and shift are rounded to " + strconv.Itoa(MaxMoonDecimals) + " decimal places.")
		}
		colour := strings.TrimSpace(m.Color)
		if m.Colour != nil {
			colour = strings.TrimSpace(text(*m.Colour))
		}
		if colour == "" {
			colour = "grey"
		}
		id := int64(len(def.Moons) + 1)
		if m.ID.set {
			if v, ok := m.ID.integer(); ok && v >= 1 && v <= 1<<31-1 {
				id = v
			} else {
				add(f+".id", "The id must be a whole number, at least 1.")
				continue
			}
		}
		rounding := "round" // Fantasy-Calendar's default
		if m.Rounding != nil && *m.Rounding != "" {
			rounding = strings.ToLower(strings.TrimSpace(*m.Rounding))
			if rounding != "round" && rounding != "floor" && rounding != "ceil" {
				add(f+".cycle_rounding", "The cycle rounding must be round, floor or ceil.")
				continue
			}
		}
		if m.Instant || custom != nil { // a custom cycle's phases are per day: no rounding
			rounding = ""
		}
		def.Moons = append(def.Moons, Moon{ID: int(id), Name: name, Fullmoon: period, Offset: off, Colour: colour,
			Granularity: g, CustomCycle: custom, Hidden: m.Hidden, Rounding: rounding})
		out.From.Moons = append(out.From.Moons, i)
	}

	if s := sd.Seasons; s != nil {
		dated := 0
		periodic, _ := s.Global["periodic_seasons"].(bool)
		undated := len(s.Data) > 0
		for _, se := range s.Data {
			undated = undated && (!se.Timespan.set || !se.Day.set)
		}
		if periodic || undated { // Fantasy-Calendar's seasons by duration
			dated = fcPeriodicSeasons(s.Data, s.Global, &out, add)
		}
		for i, se := range s.Data {
			ts, ok1 := se.Timespan.integer()
			day, ok2 := se.Day.integer()
			if def.PeriodicSeasons || !se.Timespan.set || !se.Day.set {
				continue
			}
			f := "static_data.seasons.data." + strconv.Itoa(i)
			if !ok1 || ts < 0 || ts >= int64(len(def.Months)) {
				add(f+".timespan", "The timespan must be a timespan of the export (0-based).")
				continue
			}
			if !ok2 || day < 1 || day > int64(def.Months[ts].Length) {
				add(f+".day", "The day must be a day of the season's timespan.")
				continue
			}
			dated++
			rise, set := fcSeasonTimes(se, f, add)
			def.Seasons = append(def.Seasons, Season{Name: strings.TrimSpace(text(se.Name)), Month: int(ts) + 1, Day: int(day), Sunrise: rise, Sunset: set})
			out.From.Seasons = append(out.From.Seasons, i)
		}
		if n := len(s.Data) - dated; n > 0 && len(probs) == 0 {
			warn(strconv.Itoa(n) + " season(s) have no start date (periodic seasons); they are not imported.")
		}
	}

	for i, e := range sd.Eras {
		f := "static_data.eras." + strconv.Itoa(i)
		y, ok := e.Date.Year.integer()
		if !ok {
			add(f+".date.year", "The year must be a whole number.")
			continue
		}
		name := strings.TrimSpace(text(e.Name))
		if e.Settings.StartingEra {
			// Fantasy-Calendar's starting era holds every date before the next era, whatever
			// its own date says: since the beginning.
			y = EarliestYear
		}
		era := Era{Name: name, Abbreviation: strings.TrimSpace(text(e.Abbreviation)), Year: y, Restart: e.Settings.Restart}
		ts, _ := e.Date.Timespan.integer()
		day, _ := e.Date.Day.integer()
		ends := e.Settings.EndsYear && !e.Settings.StartingEra
		if ends {
			day = max(day, 1) // Fantasy-Calendar keeps the days up to it: day 0 would keep none
		}
		if ts > 0 || day > 1 || ends {
			if ts < 0 || ts >= int64(len(def.Months)) || day < 1 || day > int64(def.Months[ts].Length) {
				add(f+".date", "The era's timespan and day must be a day of the export's timespans.")
				continue
			}
			era.Month, era.Day = int(ts)+1, int(day)
		}
		era.EndsYear = ends
		def.Eras = append(def.Eras, era)
		out.From.Eras = append(out.From.Eras, i)
		if ends && fcMonthHasLeapDays(yd.LeapDays, ts) {
			warn("Era " + strconv.Quote(name) + " ends its year in a month with leap days: Lorekeep keeps that month's days up to the era's day, leap days among them, where Fantasy-Calendar's count of the year leaves them out.")
		}
		if strings.TrimSpace(e.Description) != "" {
			warn("Era " + strconv.Quote(name) + ": its description is not imported.")
		}
	}

	if k := sd.Clock; k != nil && k.Enabled != nil && *k.Enabled {
		clock := Clock{Hours: 24, Minutes: 60}
		for _, f := range []struct {
			name string
			n    fcNumber
			dst  *int
		}{{"hours", k.Hours, &clock.Hours}, {"minutes", k.Minutes, &clock.Minutes}, {"offset", k.Offset, &clock.Offset}} {
			if !f.n.set {
				continue
			}
			v, ok := f.n.integer()
			if !ok || v < -MaxClockHours*MaxClockMinutes || v > MaxClockHours*MaxClockMinutes {
				add("static_data.clock."+f.name, "The "+f.name+" must be a whole number.")
				continue
			}
			*f.dst = int(v)
		}
		for _, p := range clockProblems(clock, "static_data.clock") {
			add(p.Field, p.Message)
		}
		def.Clock = &clock
	}
	if cy := sd.Cycles; cy != nil {
		def.CycleFormat = strings.TrimSpace(text(cy.Format))
		for i, c := range cy.Data {
			f := "static_data.cycles.data." + strconv.Itoa(i)
			if c.Type != "" && c.Type != "year" {
				warn("Cycle " + strconv.Itoa(i+1) + " counts " + strconv.Quote(c.Type) + " in the export; only year cycles are imported.")
				continue
			}
			length, ok := c.Length.integer()
			if !c.Length.set {
				length, ok = 1, true
			}
			if !ok || length < 1 || length > MaxCycleLength {
				add(f+".length", "The length must be a whole number of years from 1 to "+strconv.Itoa(MaxCycleLength)+".")
				continue
			}
			offset, ok := c.Offset.integer()
			if c.Offset.set && !ok {
				add(f+".offset", "The offset must be a whole number.")
				continue
			}
			names := make([]string, len(c.Names))
			for j, n := range c.Names {
				names[j] = strings.TrimSpace(text(n))
			}
			def.Cycles = append(def.Cycles, Cycle{Length: length, Offset: offset, Names: names})
			out.From.Cycles = append(out.From.Cycles, i)
		}
	}
	events, categories, eventsField := ex.Events, ex.Categories, "events"
	if e := sd.EventData; ex.Events == nil && e != nil {
		events, categories, eventsField = e.Events, e.Categories, "static_data.event_data.events"
	}
	if len(events) > MaxImportEvents {
		add(eventsField, "The events must not have more than "+strconv.Itoa(MaxImportEvents)+" items.")
	}

	out.Date = Date{Year: 1, Month: 1, Day: 1}
	if ex.Dynamic != nil && !bytes.Equal(bytes.TrimSpace(*ex.Dynamic), []byte("null")) {
		var dyn fcDynamic
		if err := json.Unmarshal(*ex.Dynamic, &dyn); err != nil {
			if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
				field := "dynamic_data." + indexedPath(*ex.Dynamic, reflect.TypeOf(dyn), te.Field)
				add(field, "The export is not a Fantasy-Calendar export: "+typeErrorText(err, field))
			} else {
				add("dynamic_data", "The dynamic data must be an object with year, timespan and day.")
			}
		} else if numberProblems(reflect.ValueOf(dyn), "dynamic_data", add); len(probs) > 0 {
			return fail()
		} else {
			y, okY := dyn.Year.integer()
			ts := dyn.Timespan
			if !ts.set {
				ts = dyn.Month
			}
			m, okM := ts.integer()
			d, okD := dyn.Day.integer()
			switch {
			case dyn.Year.set && !okY:
				add("dynamic_data.year", "The year must be a whole number.")
			case ts.set && (!okM || m < 0 || m >= int64(len(def.Months))):
				add("dynamic_data.timespan", "The timespan must be a timespan of the export (0-based).")
			case dyn.Day.set && !okD:
				add("dynamic_data.day", "The day must be a whole number.")
			default:
				if dyn.Year.set {
					out.Date.Year = y
				}
				if ts.set {
					out.Date.Month = int(m) + 1
				}
				if dyn.Day.set {
					out.Date.Day = int(max(min(d, 1<<30), 0))
				}
				if out.Date.Day < 1 {
					out.Date.Day = 1
					warn("The current day was 0 in the export; it is imported as day 1.")
				}
				if def.Clock != nil {
					h, okH := dyn.Hour.integer()
					mi, okMi := dyn.Minute.integer()
					switch {
					case dyn.Hour.set && (!okH || h < 0 || h >= int64(def.Clock.Hours)):
						add("dynamic_data.hour", "The hour must be an hour of the clock (0 to the hours less one).")
					case dyn.Minute.set && (!okMi || mi < 0 || mi >= int64(def.Clock.Minutes)):
						add("dynamic_data.minute", "The minute must be a minute of the clock (0 to the minutes less one).")
					default:
						out.Time = Time{Hour: int(h), Minute: int(mi)}
					}
				}
			}
		}
	}
	if len(probs) > 0 {
		return fail()
	}
	if s := sd.Seasons; s != nil {
		names := make([]string, len(s.Data))
		for i, se := range s.Data {
			names[i] = text(se.Name)
		}
		fcWeather(s.Locations, names, s.Global, ex.Dynamic, &out, add, warn)
	}
	if len(probs) > 0 {
		return fail()
	}
	c, err := New(out.Definition)
	if err != nil {
		ve := err.(*ValidationError)
		for i := range ve.Problems {
			ve.Problems[i].Field = out.ExportField(ve.Problems[i].Field)
		}
		return Import{}, ve
	}
	if d := out.Date; !c.Valid(d) {
		msg := "The current date (" + d.String() + ") is not a date of the calendar."
		switch {
		case d.Month < 1 || d.Month > c.MonthCount():
			add("dynamic_data.timespan", msg)
		case c.DaysInMonth(d.Year, d.Month) > 0 && d.Day > c.DaysInMonth(d.Year, d.Month):
			add("dynamic_data.day", msg)
		default: // a skipped year zero, or beyond the calendar's range
			add("dynamic_data.year", msg)
		}
		return fail()
	}
	out.Definition = c.Definition()
	readEvents(c, events, categories, eventsField, &out, add)
	if len(probs) > 0 {
		return fail()
	}
	return out, nil
}

// exportPaths name, in the export, each list a create's field (the engine's names) describes:
// the list, the From record mapping its indices (nil: one for one) and, by the create's
// subfield or companion, the export item's field.
var exportPaths = map[string]struct {
	list  string
	from  func(im *Import) []int
	field string
}{
	"month_name":        {"static_data.year_data.timespans", nil, "name"},
	"month_length":      {"static_data.year_data.timespans", nil, "length"},
	"month_type":        {"static_data.year_data.timespans", nil, "type"},
	"month_offset":      {"static_data.year_data.timespans", nil, "offset"},
	"month_interval":    {"static_data.year_data.timespans", nil, "interval"},
	"month_weekdays":    {"static_data.year_data.timespans", nil, "week"},
	"moon_granularity":  {"static_data.moons", func(im *Import) []int { return im.From.Moons }, "granularity"},
	"moon_custom_cycle": {"static_data.moons", func(im *Import) []int { return im.From.Moons }, "custom_cycle"},
	"weekday":           {"static_data.year_data.global_week", nil, ""},
	"leap_days":         {"static_data.year_data.leap_days", func(im *Import) []int { return im.From.LeapDays }, ""},
	"moon_name":         {"static_data.moons", func(im *Import) []int { return im.From.Moons }, "name"},
	"moon_fullmoon":     {"static_data.moons", func(im *Import) []int { return im.From.Moons }, "cycle"},
	"moon_offset":       {"static_data.moons", func(im *Import) []int { return im.From.Moons }, "shift"},
	"moon_colour":       {"static_data.moons", func(im *Import) []int { return im.From.Moons }, "color"},
	"moon_id":           {"static_data.moons", func(im *Import) []int { return im.From.Moons }, ""},
	"moon_rounding":     {"static_data.moons", func(im *Import) []int { return im.From.Moons }, "cycle_rounding"},
	"season_name":       {"static_data.seasons.data", func(im *Import) []int { return im.From.Seasons }, "name"},
	"season_month":      {"static_data.seasons.data", func(im *Import) []int { return im.From.Seasons }, "timespan"},
	"season_day":        {"static_data.seasons.data", func(im *Import) []int { return im.From.Seasons }, "day"},
	"season_duration":   {"static_data.seasons.data", func(im *Import) []int { return im.From.Seasons }, "duration"},
	"season_transition": {"static_data.seasons.data", func(im *Import) []int { return im.From.Seasons }, "transition_length"},
	"season_sunrise":    {"static_data.seasons.data", func(im *Import) []int { return im.From.Seasons }, "time.sunrise"},
	"season_sunset":     {"static_data.seasons.data", func(im *Import) []int { return im.From.Seasons }, "time.sunset"},
	"eras":              {"static_data.eras", func(im *Import) []int { return im.From.Eras }, ""},
	"epoch_name":        {"static_data.eras", func(im *Import) []int { return im.From.Eras }, "name"},
	"cycles":            {"static_data.cycles.data", func(im *Import) []int { return im.From.Cycles }, ""},
}

// exportScalars name, in the export, the create's single fields an import fills.
var exportScalars = map[string]string{
	"name": "name", "start_offset": "static_data.year_data.first_day",
	"skip_year_zero": "static_data.settings.year_zero_exists",
	"current_year":   "dynamic_data.year", "current_month": "dynamic_data.timespan", "current_day": "dynamic_data.day",
	"current_hour": "dynamic_data.hour", "current_minute": "dynamic_data.minute", "cycle_format": "static_data.cycles.format",
	"clock": "static_data.clock", "clock.hours": "static_data.clock.hours", "clock.minutes": "static_data.clock.minutes",
	"clock.offset": "static_data.clock.offset", "week_restart": "static_data.year_data.overflow",
	"format": "static_data.format", "suffix": "static_data.suffix",
}

// exportSubfields name, in the export, the fields of a leap day's or an era's object.
var exportSubfields = map[string]string{
	"leap_days.month": "timespan", "eras.year": "date.year", "eras.restart": "settings.restart",
	"leap_days.weekday": "week_day", "eras.month": "date.timespan", "eras.day": "date.day",
	"eras.ends_year": "settings.ends_year",
}

// ExportList reports whether field is a create's list field as a whole ("month_length", not
// "month_length.2"): a problem with the list, whose wording is not about one export field.
func ExportList(field string) bool {
	_, ok := exportPaths[field]
	return ok
}

// ExportField names, in the export, the field behind a problem the create's validation (or
// the engine) reports about the imported definition: "moon_fullmoon.1" is the cycle of the
// export's moon that became the second moon. A field the import does not fill is the
// static_data.
func (im *Import) ExportField(field string) string {
	root, rest, _ := strings.Cut(field, ".")
	if f, ok := exportScalars[field]; ok {
		return f
	}
	p, ok := exportPaths[root]
	if !ok {
		return "static_data"
	}
	idx, sub, _ := strings.Cut(rest, ".")
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 {
		return p.list // the list as a whole
	}
	if p.from != nil {
		from := p.from(im)
		if i >= len(from) {
			return p.list
		}
		i = from[i]
	}
	out := p.list + "." + strconv.Itoa(i)
	if sub != "" {
		if f, ok := exportSubfields[root+"."+sub]; ok {
			sub = f
		}
		return out + "." + sub
	}
	if p.field != "" {
		return out + "." + p.field
	}
	return out
}

// decimalText writes r with at most MaxMoonDecimals decimals (rounded),
// reporting whether that is exact.
func decimalText(r *big.Rat) (string, bool) {
	s := strings.TrimRight(strings.TrimRight(r.FloatString(MaxMoonDecimals), "0"), ".")
	if s == "-0" {
		s = "0"
	}
	back, _ := new(big.Rat).SetString(s)
	return s, back.Cmp(r) == 0
}

// typeErrorText says what the value at field (its path with indices) must be.
func typeErrorText(err error, field string) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		if te.Type == reflect.TypeOf(json.Number("")) { // an fcNumber: a number, or text holding one
			return "the " + field + " field must be a number."
		}
		return "the " + field + " field must be " + jsonKind(te.Type.Kind().String()) + "."
	}
	return "the body is not valid JSON."
}

// indexedPath is field, a type error's path (json.UnmarshalTypeError names struct fields and
// map keys, never array indices: static_data.year_data.timespans.length), with the index of
// each array it passes through (static_data.year_data.timespans.3.length). data is decoded
// again without types and walked beside t: in each array, the first element that does not
// decode into the element type is the one. Only a refused import pays for it.
func indexedPath(data []byte, t reflect.Type, field string) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return field
	}
	segs := walkTypeError(v, t, strings.Split(field, "."))
	if len(segs) == 0 {
		return field
	}
	return strings.Join(segs, ".")
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// walkTypeError follows path (the names left) through v, a value decoded without types, and
// t, the type it was decoded into, and returns the path with the indices of the arrays on the
// way.
func walkTypeError(v any, t reflect.Type, path []string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice && t != rawMessageType {
		if list, ok := v.([]any); ok {
			for i, el := range list {
				if !decodesAs(el, t.Elem()) {
					return append([]string{strconv.Itoa(i)}, walkTypeError(el, t.Elem(), path)...)
				}
			}
		}
		return path
	}
	obj, ok := v.(map[string]any)
	if len(path) == 0 || !ok {
		return path
	}
	next, found := objectKey(obj, path[0])
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == path[0] && found {
				return append([]string{path[0]}, walkTypeError(next, t.Field(i).Type, path[1:])...)
			}
		}
	case reflect.Map:
		if found {
			return append([]string{path[0]}, walkTypeError(next, t.Elem(), path[1:])...)
		}
	}
	return path
}

// objectKey is obj's value under key, matched as encoding/json matches (exactly, else
// without case).
func objectKey(obj map[string]any, key string) (any, bool) {
	if v, ok := obj[key]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

// decodesAs reports whether v, decoded without types, decodes into t.
func decodesAs(v any, t reflect.Type) bool {
	b, err := json.Marshal(v)
	return err == nil && json.Unmarshal(b, reflect.New(t).Interface()) == nil
}

func jsonKind(k string) string {
	switch k {
	case "struct", "map", "ptr":
		return "an object"
	case "slice":
		return "an array"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	}
	return "a " + k
}

// fcMoonDisplay reads a moon's granularity and custom cycle. Fantasy-Calendar counts phases
// from the new moon and Lorekeep from the full moon: phase p becomes p + g/2 (mod g). Eight
// phases is Lorekeep's default (Granularity 0).
func fcMoonDisplay(m fcMoon, f string, add func(field, msg string), warn func(string)) ([]int, int, bool) {
	g := 0
	if m.Granularity.set {
		v, ok := m.Granularity.integer()
		switch {
		case ok && slicesContains(Granularities, int(v)):
			g = int(v)
		case !m.CustomPhase: // a custom cycle sizes its own below
			warn("Moon " + strconv.Quote(strings.TrimSpace(html.UnescapeString(m.Name))) + ": granularity " + m.Granularity.s +
				" is not one of Fantasy-Calendar's sprite counts; it is shown with 8 phases.")
		}
	}
	var custom []int
	if m.CustomPhase {
		parts := strings.Split(m.CustomCycle.s, ",")
		if !m.CustomCycle.set || len(parts) > MaxCustomCycle {
			add(f+".custom_cycle", "The custom cycle must be at most "+strconv.Itoa(MaxCustomCycle)+" comma-separated phase numbers.")
			return nil, 0, false
		}
		top := 0
		for _, p := range parts {
			v, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || v < 0 || v >= 40 {
				add(f+".custom_cycle", "The custom cycle must be comma-separated phase numbers from 0 to 39.")
				return nil, 0, false
			}
			custom, top = append(custom, v), max(top, v)
		}
		if g == 0 || top >= g { // as Fantasy-Calendar sizes a custom cycle's sprites
			g = 40
			for _, x := range []int{4, 8, 16, 24} {
				if top < x {
					g = x
					break
				}
			}
		}
		for i := range custom {
			custom[i] = (custom[i] + g/2) % g
		}
	}
	if g == 8 {
		g = 0
	}
	return custom, g, true
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// fcPeriodicSeasons reads seasons by duration (Fantasy-Calendar's periodic seasons): each
// lasts its duration, then turns into the next over its transition_length, from the global
// season_offset on. It answers how many it read.
func fcPeriodicSeasons(data []fcSeason, global map[string]any, out *Import, add func(field, msg string)) int {
	def := &out.Definition
	def.PeriodicSeasons = true
	if v, ok := global["season_offset"].(float64); ok && v == float64(int64(v)) && v > -1e15 && v < 1e15 {
		def.SeasonOffset = int64(v)
	}
	for i, se := range data {
		f := "static_data.seasons.data." + strconv.Itoa(i)
		days := func(n fcNumber, field string) (string, bool) {
			r := n.rat()
			if !n.set {
				return "", true
			}
			if r == nil || r.Sign() < 0 {
				add(f+"."+field, "The "+strings.ReplaceAll(field, "_", " ")+" must be a number of days, at least 0.")
				return "", false
			}
			t, _ := decimalText(r)
			if t == "0" {
				t = ""
			}
			return t, true
		}
		d, ok1 := days(se.Duration, "duration")
		t, ok2 := days(se.Transition, "transition_length")
		if !ok1 || !ok2 {
			continue
		}
		rise, set := fcSeasonTimes(se, f, add)
		def.Seasons = append(def.Seasons, Season{Name: strings.TrimSpace(html.UnescapeString(se.Name)), Duration: d, Transition: t, Sunrise: rise, Sunset: set})
		out.From.Seasons = append(out.From.Seasons, i)
	}
	return len(data)
}

// fcSeasonTimes reads a season's sunrise and sunset; the clock judges them.
func fcSeasonTimes(se fcSeason, f string, add func(field, msg string)) (rise, set *Time) {
	if se.Time == nil || se.NoTime {
		return nil, nil
	}
	read := func(v *fcClockTime, name string) *Time {
		if v == nil {
			return nil
		}
		h, ok1 := v.Hour.integer()
		m, ok2 := v.Minute.integer()
		if (v.Hour.set && !ok1) || (v.Minute.set && !ok2) || h < 0 || m < 0 || h > MaxClockHours || m > MaxClockMinutes {
			add(f+".time."+name, "The "+name+" must be whole hours and minutes of the clock.")
			return nil
		}
		return &Time{Hour: int(h), Minute: int(m)}
	}
	return read(se.Time.Sunrise, "sunrise"), read(se.Time.Sunset, "sunset")
}

// fcLocation is a custom location of the export: its name and each season's weather.
type fcLocation struct {
	Name    string `json:"name"`
	Seasons []struct {
		Weather *struct {
			TempLow   fcNumber `json:"temp_low"`
			TempHigh  fcNumber `json:"temp_high"`
			Precip    fcNumber `json:"precipitation"`
			Intensity fcNumber `json:"precipitation_intensity"`
		} `json:"weather"`
	} `json:"seasons"`
}

// fcWeather reads the weather of the export's current location (dynamic_data.location, an
// index into seasons.locations when custom_location) into out.Climate, with the global seed:
// temperatures in the export's own unit, as tenths; precipitation and its intensity (0 to 1)
// as per-mille. A location by name (custom_location false) is one of Fantasy-Calendar's
// built-in climates (fantasy_climates.go; seasons names the export's seasons). Weather
// disabled, or no seasons, is no climate.
func fcWeather(locs []fcLocation, seasons []string, global map[string]any, dynamic *json.RawMessage, out *Import, add func(field, msg string), warn func(string)) {
	if on, _ := global["enable_weather"].(bool); !on || len(out.Definition.Seasons) == 0 {
		return
	}
	var dyn fcDynamic
	if dynamic != nil {
		_ = json.Unmarshal(*dynamic, &dyn) // its problems are the current date's, reported there
	}
	idx := -1
	name := ""
	switch v := dyn.Location.(type) {
	case float64:
		idx, name = int(v), strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		name = strings.TrimSpace(html.UnescapeString(v))
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			idx = n
		}
	}
	if !dyn.CustomLocation {
		if name != "" {
			fcBuiltinWeather(name, seasons, global, out, add, warn)
		}
		return
	}
	if idx < 0 || idx >= len(locs) {
		warn("The export's weather has no custom location of the calendar to read; it is not imported.")
		return
	}
	loc := locs[idx]
	f := "static_data.seasons.locations." + strconv.Itoa(idx)
	k := Climate{Seed: fcSeed(global, add)}
	// Temperatures are in degrees of temp_sys: Fahrenheit ones are kept in Celsius.
	tenths := fcTenths(global["temp_sys"] == "imperial", add)
	for _, from := range out.From.Seasons { // the calendar's seasons, each from one of the export's
		sf := f + ".seasons." + strconv.Itoa(from)
		if from >= len(loc.Seasons) || loc.Seasons[from].Weather == nil {
			add(sf+".weather", "The location must give each season its weather.")
			return
		}
		w := loc.Seasons[from].Weather
		k.Seasons = append(k.Seasons, ClimateSeason{
			TempLow: tenths(w.TempLow, 10, sf+".weather.temp_low"), TempHigh: tenths(w.TempHigh, 10, sf+".weather.temp_high"),
			Precipitation: tenths(w.Precip, 1000, sf+".weather.precipitation"), PrecipitationIntensity: tenths(w.Intensity, 1000, sf+".weather.precipitation_intensity"),
		})
	}
	for _, p := range ClimateProblems(k, len(out.Definition.Seasons), f+".seasons") {
		add(p.Field, p.Message)
	}
	out.Climate = &k
}

// fcSeed is the export's weather seed (0 when it has none).
func fcSeed(global map[string]any, add func(field, msg string)) int64 {
	switch seed, ok := global["seed"].(float64); {
	case ok && seed == float64(int64(seed)) && seed > -1e15 && seed < 1e15:
		return int64(seed)
	case global["seed"] != nil:
		add("static_data.seasons.global_settings.seed", "The seed must be a whole number between -10^15 and 10^15.")
	}
	return 0
}

// fcTenths reads a climate number as Lorekeep keeps it: n x scale (10 for temperatures, in
// tenths of a degree Celsius, converted from Fahrenheit when fahrenheit; 1000 for chances, as
// per-mille), the nearest integer, halves up; a problem names field.
func fcTenths(fahrenheit bool, add func(field, msg string)) func(n fcNumber, scale int64, field string) int {
	return func(n fcNumber, scale int64, field string) int {
		r := n.rat()
		if r == nil {
			add(field, "The "+field[strings.LastIndex(field, ".")+1:]+" must be a number.")
			return 0
		}
		if fahrenheit && scale == 10 {
			r = new(big.Rat).Mul(new(big.Rat).Sub(r, big.NewRat(32, 1)), big.NewRat(5, 9))
		}
		v := new(big.Rat).Mul(r, big.NewRat(scale, 1))
		q := new(big.Int).Div(new(big.Int).Add(new(big.Int).Mul(v.Num(), big.NewInt(2)), v.Denom()), new(big.Int).Mul(v.Denom(), big.NewInt(2))) // nearest, halves up
		if !q.IsInt64() || q.Int64() < -MaxClimateTemp*10 || q.Int64() > MaxClimateTemp*10 {
			add(field, "The "+field[strings.LastIndex(field, ".")+1:]+" is out of range.")
			return 0
		}
		return int(q.Int64())
	}
}

// fcBuiltinWeather reads Fantasy-Calendar's built-in climate name (fantasy_climates.go) as the
// calendar's climate, as Fantasy-Calendar applies it: the export's seasons (seasons) matched to
// the table's, its temperatures (Fahrenheit, whatever temp_sys says) in tenths of a degree
// Celsius, with the global seed. A calendar of other than 2 or 4 seasons has no built-in
// climate (a warning); an unknown name takes the table's first, as Fantasy-Calendar does (a
// warning).
func fcBuiltinWeather(name string, seasons []string, global map[string]any, out *Import, add func(field, msg string), warn func(string)) {
	bc, order, known, ok := builtinClimate(name, seasons)
	if !ok {
		warn("Fantasy-Calendar's built-in climate " + strconv.Quote(name) + " is for calendars of 2 or 4 seasons; the export has " + strconv.Itoa(len(seasons)) + ", so its weather is not imported.")
		return
	}
	if !known {
		warn("Fantasy-Calendar has no built-in climate " + strconv.Quote(name) + "; as Fantasy-Calendar does, the weather is its first, " + strconv.Quote(bc.name) + ".")
	}
	k := Climate{Seed: fcSeed(global, add)}
	tenths := fcTenths(true, add)
	num := func(s string) fcNumber { return fcNumber{s: s, set: true} }
	const f = "dynamic_data.location"
	for _, from := range out.From.Seasons { // the calendar's seasons, each from one of the export's
		w := bc.seasons[order[from]]
		k.Seasons = append(k.Seasons, ClimateSeason{
			TempLow: tenths(num(w[0]), 10, f), TempHigh: tenths(num(w[1]), 10, f),
			Precipitation: tenths(num(w[2]), 1000, f), PrecipitationIntensity: tenths(num(w[3]), 1000, f),
		})
	}
	for _, p := range ClimateProblems(k, len(out.Definition.Seasons), f) {
		add(p.Field, p.Message)
	}
	out.Climate = &k
}

// fcMonthHasLeapDays reports whether a leap day of the export falls in timespan ts.
func fcMonthHasLeapDays(leaps []fcLeapDay, ts int64) bool {
	for _, ld := range leaps {
		if t, ok := ld.Timespan.integer(); ok && t == ts {
			return true
		}
	}
	return false
}
