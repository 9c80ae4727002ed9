// Package timeline is the domain of calendars and of the events dated on them (entity events,
// Kanka's reminders): their types, validation and visibility rules, and the bridge to the
// calendar engine (package calengine). It is apart from package domain so that what needs no
// dates (the meta function, the notes and locations families) links no engine.
package timeline

import (
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// Calendar is a custom calendar of a campaign: its structure (months, weekdays, years,
// seasons, moons, leap rule) and its current date. The engine (package calengine) does every
// date computation; Engine builds it from the record.
type Calendar struct {
	domain.Meta
	domain.Owner

	// Date is the current date, always valid in the calendar.
	Date     calengine.Date
	Months   []calengine.Month
	Weekdays []string
	Years    map[int64]string
	Seasons  []calengine.Season
	// Moons always carry their ID (1-based position unless given) and a colour.
	Moons        []calengine.Moon
	Epochs       []string
	Suffix       string
	StartOffset  int
	SkipYearZero bool
	WeekRestart  bool // weeks restart with every month (Fantasy-Calendar's overflow off)
	// PeriodicSeasons: the seasons recur by duration from day SeasonOffset.
	PeriodicSeasons bool
	SeasonOffset    int64
	HasLeapYear     bool
	LeapYearAmount  int
	LeapYearMonth   int
	LeapYearOffset  int
	LeapYearStart   int64
	// LeapDays are the leap rules when the calendar has its own (Kanka's fields then answer
	// them when they fit); empty when Kanka's fields describe the rule.
	LeapDays []calengine.LeapDay
	Eras     []calengine.Era
	// Clock is nil for a calendar that keeps no time; Time is the current time on it (zero
	// without a clock).
	Clock       *calengine.Clock
	Time        calengine.Time
	Cycles      []calengine.Cycle
	CycleFormat string
	// Format is Kanka's date format (calengine.FormatDate); "": Kanka's default.
	Format string
	// Climate is the procedural weather's settings (calendar_weather.go), nil for none.
	Climate *calengine.Climate
}

// Limits on a calendar's structures. With names of at most domain.MaxNameLength bytes and the entry
// bound they keep a calendar well under DynamoDB's 400 KB item; MaxCalendarBytes checks the sum.
const (
	MaxMonths        = 100
	MaxWeekdays      = 100
	MaxSeasons       = 100
	MaxMoons         = 100
	MaxEpochs        = 100
	MaxYearNames     = 1000
	MaxColourLength  = 32
	MaxCalendarBytes = 350_000
	// maxInt32 bounds the small integers of a calendar (lengths, days, offsets, leap settings).
	maxInt32 = 1<<31 - 1
	// DefaultMoonColour is a moon's colour when none is sent, as in Kanka.
	DefaultMoonColour = "grey"
)

// DefaultCalendarDate is the current date of a new calendar that was given none: a date every
// calendar has, year zero skipped or not.
var DefaultCalendarDate = calengine.Date{Year: 1, Month: 1, Day: 1}

// Definition is the engine's view of c: its own leap rules, or else Kanka's fields.
func (c *Calendar) Definition() calengine.Definition {
	d := calengine.Definition{
		Months: c.Months, Weekdays: c.Weekdays, Years: c.Years, Seasons: c.Seasons, Moons: c.Moons,
		Suffix: c.Suffix, StartOffset: c.StartOffset, SkipYearZero: c.SkipYearZero, Eras: c.Eras,
		Clock: c.Clock, Cycles: c.Cycles, CycleFormat: c.CycleFormat, WeekRestart: c.WeekRestart, DateFormat: c.Format,
		PeriodicSeasons: c.PeriodicSeasons, SeasonOffset: c.SeasonOffset,
	}
	if len(c.LeapDays) > 0 {
		d.LeapDays = c.LeapDays
	} else {
		d.HasLeapYear, d.LeapYearAmount, d.LeapYearMonth = c.HasLeapYear, c.LeapYearAmount, c.LeapYearMonth
		d.LeapYearOffset, d.LeapYearStart = c.LeapYearOffset, c.LeapYearStart
	}
	return d
}

// Rules are c's leap rules, Kanka's fields turned into theirs when the calendar has none.
func (c *Calendar) Rules() []calengine.LeapDay {
	if len(c.LeapDays) > 0 || !c.HasLeapYear {
		return c.LeapDays
	}
	return []calengine.LeapDay{calengine.KankaLeapDay(c.LeapYearAmount, c.LeapYearMonth, c.LeapYearOffset, c.LeapYearStart)}
}

// Engine builds the calendar engine of c. A stored calendar was validated by Apply, so an error
// here means the record is corrupt.
func (c *Calendar) Engine() (*calengine.Calendar, error) { return calengine.New(c.Definition()) }

// Clone copies c deeply enough that changing the copy leaves c alone.
func (c *Calendar) Clone() *Calendar {
	d := *c
	d.Owner = c.Owner.Clone()
	d.Months = append([]calengine.Month(nil), c.Months...)
	for i := range d.Months {
		d.Months[i].Weekdays = append([]string(nil), d.Months[i].Weekdays...)
	}
	d.Weekdays = append([]string(nil), c.Weekdays...)
	d.Seasons = calengine.Definition{Seasons: c.Seasons}.CloneSeasons()
	d.Moons = append([]calengine.Moon(nil), c.Moons...)
	for i := range d.Moons {
		d.Moons[i].CustomCycle = append([]int(nil), d.Moons[i].CustomCycle...)
	}
	d.Epochs = append([]string(nil), c.Epochs...)
	d.LeapDays = append([]calengine.LeapDay(nil), c.LeapDays...)
	d.Eras = append([]calengine.Era(nil), c.Eras...)
	if c.Clock != nil {
		k := *c.Clock
		d.Clock = &k
	}
	d.Cycles = make([]calengine.Cycle, len(c.Cycles))
	for i, cy := range c.Cycles {
		cy.Names = append([]string(nil), cy.Names...)
		d.Cycles[i] = cy
	}
	d.Years = make(map[int64]string, len(c.Years))
	for k, v := range c.Years {
		d.Years[k] = v
	}
	return &d
}

// Apply merges the fields sent in `in` into c and validates the result, so create, PUT and PATCH
// share one path. The create body's parallel arrays become structures (DESIGN.md section 5): a
// structure is replaced only when its driver array (month_name, weekday, year_number,
// season_name, moon_name, epoch_name) is sent, its companions must then have the driver's
// length, and a companion sent without its driver is refused. The merged calendar is checked
// by building the engine, and its current date must exist in it.
func (c *Calendar) Apply(in domain.Input, a domain.Access) error {
	r := domain.NewReader(in)
	was := c.IsPrivate
	c.ApplyOwner(r, a)

	// Everything below shapes the calendar; the engine only judges it when it was read cleanly.
	before := len(r.Errs.Fields())
	c.applyPreset(r)
	c.applyStructures(r)
	c.applySettings(r)
	c.applyClock(r)
	c.applyClimate(r)
	c.applyRules(r)
	if len(r.Errs.Fields()) == before {
		c.check(r)
	}
	if r.Errs.Empty() {
		c.checkSize(r)
	}
	return domain.Finish(r, a, was, c.IsPrivate)
}

// applyStructures reads the parallel arrays.
func (c *Calendar) applyStructures(r *domain.Reader) {
	// Months: month_name drives month_length (required with it) and month_type.
	p := newParallel(r, "month_name", MaxMonths)
	names := column(p, "month_name", nameElem, false)
	lengths := column(p, "month_length", intElem(-maxInt32, maxInt32), true)
	types := column(p, "month_type", monthTypeElem, false)
	extra := readMonthColumns(p)
	if p.done() {
		c.Months = make([]calengine.Month, p.n)
		for i := range c.Months {
			c.Months[i] = calengine.Month{Name: names.at(i, ""), Length: int(lengths.at(i, 0)),
				Type: calengine.MonthType(types.at(i, string(calengine.Standard)))}
			extra.apply(&c.Months[i], i)
		}
	}
	p = newParallel(r, "weekday", MaxWeekdays)
	if weekdays := column(p, "weekday", nameElem, false); p.done() {
		c.Weekdays = weekdays.vals
	}
	// Years: year_number (the key) drives year_name.
	p = newParallel(r, "year_number", MaxYearNames)
	numbers := column(p, "year_number", intElem(-domain.MaxID, domain.MaxID), false)
	yearNames := column(p, "year_name", nameElem, true)
	if p.done() {
		m := make(map[int64]string, p.n)
		for i, y := range numbers.vals {
			if _, dup := m[y]; dup {
				r.Fail("year_number", "The :attribute field has a duplicate value.")
				break
			}
			m[y] = yearNames.at(i, "")
		}
		if !r.Errs.Has("year_number") {
			c.Years = m
		}
	}
	c.applySeasonSettings(r) // periodic seasons need no month and day
	p = newParallel(r, "season_name", MaxSeasons)
	seasons := column(p, "season_name", nameElem, false)
	months := column(p, "season_month", intElem(-maxInt32, maxInt32), !c.PeriodicSeasons)
	days := column(p, "season_day", intElem(-maxInt32, maxInt32), !c.PeriodicSeasons)
	seasonExtra := readSeasonColumns(p)
	if p.done() {
		c.Seasons = make([]calengine.Season, p.n)
		for i := range c.Seasons {
			c.Seasons[i] = calengine.Season{Name: seasons.at(i, ""), Month: int(months.at(i, 0)), Day: int(days.at(i, 0))}
			seasonExtra.apply(&c.Seasons[i], i)
		}
	}
	// Moons: moon_name drives moon_fullmoon (required with it), moon_offset, moon_colour and
	// moon_id. A moon's id is its 1-based position unless given, so events keep naming it.
	p = newParallel(r, "moon_name", MaxMoons)
	moons := column(p, "moon_name", nameElem, false)
	fullmoons := column(p, "moon_fullmoon", periodElem, true)
	offsets := column(p, "moon_offset", offsetElem, false)
	colours := column(p, "moon_colour", optional(stringElem(MaxColourLength)), false)
	ids := column(p, "moon_id", optional(intElem(1, maxInt32)), false)
	moonExtra := readMoonColumns(p)
	if p.done() {
		c.Moons = make([]calengine.Moon, p.n)
		for i := range c.Moons {
			c.Moons[i] = calengine.Moon{ID: int(ids.at(i, int64(i+1))), Name: moons.at(i, ""), Fullmoon: fullmoons.at(i, ""),
				Offset: offsets.at(i, ""), Colour: colours.at(i, DefaultMoonColour)}
			moonExtra.apply(&c.Moons[i], i)
		}
	}
	p = newParallel(r, "epoch_name", MaxEpochs)
	if epochs := column(p, "epoch_name", nameElem, false); p.done() {
		c.Epochs = epochs.vals
	}
	// A new calendar must be given its months and weekdays.
	r.Required("month_name", len(c.Months) > 0 || r.Has("month_name"))
	r.Required("month_length", len(c.Months) > 0 || r.Has("month_name"))
	r.Required("weekday", len(c.Weekdays) > 0 || r.Has("weekday"))
}

// applySettings reads the scalar settings and the current date.
func (c *Calendar) applySettings(r *domain.Reader) {
	if f := r.String("suffix", domain.MaxNameLength); f.Set {
		c.Suffix = strings.TrimSpace(f.Value)
	}
	if f := r.String("format", calengine.MaxDateFormatSize); f.Set && !r.Errs.Has("format") {
		c.Format = strings.TrimSpace(f.Value)
	}
	intField := func(name string, dst *int) {
		if f := r.Int(name, -maxInt32, maxInt32); f.Set && !r.Errs.Has(name) {
			*dst = int(f.Value)
		}
	}
	intField("start_offset", &c.StartOffset)
	intField("leap_year_amount", &c.LeapYearAmount)
	intField("leap_year_month", &c.LeapYearMonth)
	intField("leap_year_offset", &c.LeapYearOffset)
	if f := r.Int("leap_year_start", -domain.MaxID, domain.MaxID); f.Set && !r.Errs.Has("leap_year_start") {
		c.LeapYearStart = f.Value
	}
	if f := r.Bool("skip_year_zero"); f.Set && !r.Errs.Has("skip_year_zero") {
		c.SkipYearZero = f.Value
	}
	if f := r.Bool("has_leap_year"); f.Set && !r.Errs.Has("has_leap_year") {
		c.HasLeapYear = f.Value
	}
	c.applyStructureSettings(r)
	if c.Date.Month == 0 {
		c.Date = DefaultCalendarDate
	}
	if f := r.Int("current_year", -domain.MaxID, domain.MaxID); f.Present() {
		c.Date.Year = f.Value
	}
	if f := r.Int("current_month", 1, MaxMonths); f.Present() {
		c.Date.Month = int(f.Value)
	}
	if f := r.Int("current_day", 1, maxInt32); f.Present() {
		c.Date.Day = int(f.Value)
	}
}

// calendarParts estimates the bytes each part of c takes in storage, keyed by the input field
// that shapes it: its strings plus a generous overhead per element for attribute names and
// numbers. "" is the rest of the record.
func (c *Calendar) calendarParts() map[string]int {
	const per = 48
	s := map[string]int{"entry": len(c.Entry), "": 4096 + len(c.Name) + len(c.Type) + len(c.ImageURL) + len(c.Suffix) + 24*len(c.Tags)}
	for _, m := range c.Months {
		s["month_name"] += len(m.Name) + len(m.Type) + len(m.Interval) + per
		for _, w := range m.Weekdays {
			s["month_weekdays"] += len(w) + per
		}
	}
	for _, w := range c.Weekdays {
		s["weekday"] += len(w) + per
	}
	for _, y := range c.Years {
		s["year_name"] += len(y) + per
	}
	for _, x := range c.Seasons {
		s["season_name"] += len(x.Name) + len(x.Duration) + len(x.Transition) + 2*per
	}
	for _, m := range c.Moons {
		s["moon_name"] += len(m.Name) + len(m.Fullmoon) + len(m.Offset) + len(m.Colour) + 2*per
		s["moon_custom_cycle"] += 8 * len(m.CustomCycle)
	}
	for _, e := range c.Epochs {
		s["epoch_name"] += len(e) + per
	}
	for _, l := range c.LeapDays {
		s["leap_days"] += len(l.Name) + len(l.Interval) + len(l.Weekday) + 4*per
	}
	for _, e := range c.Eras {
		s["eras"] += len(e.Name) + len(e.Abbreviation) + 2*per
	}
	if c.Climate != nil {
		s["weather_climate"] = per + 4*per*len(c.Climate.Seasons)
	}
	s["cycles"] = len(c.CycleFormat)
	s["format"] = len(c.Format)
	for _, cy := range c.Cycles {
		s["cycles"] += 2 * per
		for _, n := range cy.Names {
			s["cycles"] += len(n) + per
		}
	}
	return s
}

// checkSize refuses a calendar that could outgrow a storage item, naming the largest part the
// request sent: the one to shorten.
func (c *Calendar) checkSize(r *domain.Reader) {
	parts := c.calendarParts()
	total := 0
	for _, n := range parts {
		total += n
	}
	if total <= MaxCalendarBytes {
		return
	}
	field, size := "entry", -1
	for k, n := range parts {
		sent := r.Has(k) || (k == "year_name" && r.Has("year_number"))
		if k != "" && sent && (n > size || (n == size && k < field)) {
			field, size = k, n
		}
	}
	r.Errs.Add(field, "The calendar must not be larger than "+strconv.Itoa(MaxCalendarBytes)+" bytes: shorten the "+domain.Label(field)+".")
}
