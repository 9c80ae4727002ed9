package domain

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lorekeep/lorekeep/shared/calendar"
)

// Calendar is a custom calendar of a campaign: its structure (months, weekdays, years,
// seasons, moons, leap rule) and its current date. The engine (package calendar) does every
// date computation; Engine builds it from the record.
type Calendar struct {
	ID               int64
	CampaignID       int64
	EntityID         int64
	Name             string
	Entry            string
	Type             string
	ImageURL         string
	IsPrivate        bool
	Tags             []int64
	EntityImageUUID  string
	EntityHeaderUUID string

	// Date is the current date, always valid in the calendar.
	Date     calendar.Date
	Months   []calendar.Month
	Weekdays []string
	Years    map[int64]string
	Seasons  []calendar.Season
	// Moons always carry their ID (1-based position unless given) and a colour.
	Moons          []calendar.Moon
	Epochs         []string
	Suffix         string
	StartOffset    int
	SkipYearZero   bool
	HasLeapYear    bool
	LeapYearAmount int
	LeapYearMonth  int
	LeapYearOffset int
	LeapYearStart  int64

	CreatedAt time.Time
	UpdatedAt time.Time
	CreatedBy int64
	UpdatedBy int64
	// Version counts writes; every update is conditional on the version it read.
	Version int64
}

// Limits on a calendar's structures. With names of at most MaxNameLength bytes and the entry
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
	// maxMoonOffset bounds a moon's shift (days); far beyond any period the engine accepts.
	maxMoonOffset = 1_000_000_000
	// DefaultMoonColour is a moon's colour when none is sent, as in Kanka.
	DefaultMoonColour = "grey"
)

// DefaultCalendarDate is the current date of a new calendar that was given none: a date every
// calendar has, year zero skipped or not.
var DefaultCalendarDate = calendar.Date{Year: 1, Month: 1, Day: 1}

// Definition is the engine's view of c.
func (c *Calendar) Definition() calendar.Definition {
	return calendar.Definition{
		Months: c.Months, Weekdays: c.Weekdays, Years: c.Years, Seasons: c.Seasons, Moons: c.Moons,
		Suffix: c.Suffix, StartOffset: c.StartOffset, SkipYearZero: c.SkipYearZero,
		HasLeapYear: c.HasLeapYear, LeapYearAmount: c.LeapYearAmount, LeapYearMonth: c.LeapYearMonth,
		LeapYearOffset: c.LeapYearOffset, LeapYearStart: c.LeapYearStart,
	}
}

// Engine builds the calendar engine of c. A stored calendar was validated by Apply, so an error
// here means the record is corrupt.
func (c *Calendar) Engine() (*calendar.Calendar, error) { return calendar.New(c.Definition()) }

// Clone copies c deeply enough that changing the copy leaves c alone.
func (c *Calendar) Clone() *Calendar {
	d := *c
	d.Tags = append([]int64(nil), c.Tags...)
	d.Months = append([]calendar.Month(nil), c.Months...)
	d.Weekdays = append([]string(nil), c.Weekdays...)
	d.Seasons = append([]calendar.Season(nil), c.Seasons...)
	d.Moons = append([]calendar.Moon(nil), c.Moons...)
	d.Epochs = append([]string(nil), c.Epochs...)
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
func (c *Calendar) Apply(in Input, a Access) error {
	r := NewReader(in)
	if f := r.String("name", MaxNameLength); f.Set {
		c.Name = strings.TrimSpace(f.Value)
	}
	if f := readEntry(r); f.Set {
		c.Entry = f.Value
	}
	if f := r.String("type", MaxNameLength); f.Set {
		c.Type = strings.TrimSpace(f.Value)
	}
	if f := r.IDs("tags", MaxTags); f.Set && !r.Errs.Has("tags") {
		c.Tags = f.Value
	}
	if f := r.Bool("is_private"); f.Present() {
		c.IsPrivate = f.Value
	}
	if f := readURL(r, "image_url"); f.Set {
		c.ImageURL = f.Value
	}
	readGalleryImages(r, a, &c.EntityImageUUID, &c.EntityHeaderUUID)
	r.Required("name", c.Name != "")

	// Everything below shapes the calendar; the engine only judges it when it was read cleanly.
	before := len(r.Errs.Fields())
	c.applyStructures(r)
	c.applySettings(r)
	if len(r.Errs.Fields()) == before {
		c.check(r)
	}
	if r.Errs.Empty() {
		c.checkSize(r)
	}
	return r.Err()
}

// applyStructures reads the parallel arrays.
func (c *Calendar) applyStructures(r *Reader) {
	// Months: month_name drives month_length (required with it) and month_type.
	if names, ok := readColumns(r, "month_name", MaxMonths, nameElem, []column{
		{name: "month_length", elem: intElem(-maxInt32, maxInt32), required: true},
		{name: "month_type", elem: monthTypeElem},
	}); ok {
		c.Months = make([]calendar.Month, len(names.driver))
		for i, n := range names.driver {
			c.Months[i] = calendar.Month{Name: n.(string), Length: int(names.cols[0][i].(int64)), Type: calendar.Standard}
			if t := names.cols[1]; t != nil && t[i] != nil {
				c.Months[i].Type = calendar.MonthType(t[i].(string))
			}
		}
	}
	if names, ok := readColumns(r, "weekday", MaxWeekdays, nameElem, nil); ok {
		c.Weekdays = make([]string, len(names.driver))
		for i, n := range names.driver {
			c.Weekdays[i] = n.(string)
		}
	}
	// Years: year_number (the key) drives year_name.
	if years, ok := readColumns(r, "year_number", MaxYearNames, intElem(-MaxID, MaxID), []column{
		{name: "year_name", elem: nameElem, required: true},
	}); ok {
		m := make(map[int64]string, len(years.driver))
		for i, y := range years.driver {
			if _, dup := m[y.(int64)]; dup {
				r.fail("year_number", "The :attribute field has a duplicate value.")
				break
			}
			m[y.(int64)] = years.cols[0][i].(string)
		}
		if !r.Errs.Has("year_number") {
			c.Years = m
		}
	}
	if seasons, ok := readColumns(r, "season_name", MaxSeasons, nameElem, []column{
		{name: "season_month", elem: intElem(-maxInt32, maxInt32), required: true},
		{name: "season_day", elem: intElem(-maxInt32, maxInt32), required: true},
	}); ok {
		c.Seasons = make([]calendar.Season, len(seasons.driver))
		for i, n := range seasons.driver {
			c.Seasons[i] = calendar.Season{Name: n.(string), Month: int(seasons.cols[0][i].(int64)), Day: int(seasons.cols[1][i].(int64))}
		}
	}
	// Moons: moon_name drives moon_fullmoon (required with it), moon_offset, moon_colour and
	// moon_id. A moon's id is its 1-based position unless given, so events keep naming it.
	if moons, ok := readColumns(r, "moon_name", MaxMoons, nameElem, []column{
		{name: "moon_fullmoon", elem: periodElem, required: true},
		{name: "moon_offset", elem: optional(intElem(-maxMoonOffset, maxMoonOffset))},
		{name: "moon_colour", elem: optional(stringElem(MaxColourLength))},
		{name: "moon_id", elem: optional(intElem(1, maxInt32))},
	}); ok {
		c.Moons = make([]calendar.Moon, len(moons.driver))
		for i, n := range moons.driver {
			m := calendar.Moon{ID: i + 1, Name: n.(string), Fullmoon: moons.cols[0][i].(string), Colour: DefaultMoonColour}
			if v := moons.cols[1]; v != nil && v[i] != nil {
				m.Offset = strconv.FormatInt(v[i].(int64), 10)
			}
			if v := moons.cols[2]; v != nil && v[i] != nil {
				m.Colour = v[i].(string)
			}
			if v := moons.cols[3]; v != nil && v[i] != nil {
				m.ID = int(v[i].(int64))
			}
			c.Moons[i] = m
		}
	}
	if epochs, ok := readColumns(r, "epoch_name", MaxEpochs, nameElem, nil); ok {
		c.Epochs = make([]string, len(epochs.driver))
		for i, n := range epochs.driver {
			c.Epochs[i] = n.(string)
		}
	}
	// A new calendar must be given its months and weekdays.
	r.Required("month_name", len(c.Months) > 0 || r.Has("month_name"))
	r.Required("month_length", len(c.Months) > 0 || r.Has("month_name"))
	r.Required("weekday", len(c.Weekdays) > 0 || r.Has("weekday"))
}

// applySettings reads the scalar settings and the current date.
func (c *Calendar) applySettings(r *Reader) {
	if f := r.String("suffix", MaxNameLength); f.Set {
		c.Suffix = strings.TrimSpace(f.Value)
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
	if f := r.Int("leap_year_start", -MaxID, MaxID); f.Set && !r.Errs.Has("leap_year_start") {
		c.LeapYearStart = f.Value
	}
	if f := r.Bool("skip_year_zero"); f.Set && !r.Errs.Has("skip_year_zero") {
		c.SkipYearZero = f.Value
	}
	if f := r.Bool("has_leap_year"); f.Set && !r.Errs.Has("has_leap_year") {
		c.HasLeapYear = f.Value
	}
	if c.Date.Month == 0 {
		c.Date = DefaultCalendarDate
	}
	if f := r.Int("current_year", -MaxID, MaxID); f.Present() {
		c.Date.Year = f.Value
	}
	if f := r.Int("current_month", 1, MaxMonths); f.Present() {
		c.Date.Month = int(f.Value)
	}
	if f := r.Int("current_day", 1, maxInt32); f.Present() {
		c.Date.Day = int(f.Value)
	}
}

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

// calendarParts estimates the bytes each part of c takes in storage, keyed by the input field
// that shapes it: its strings plus a generous overhead per element for attribute names and
// numbers. "" is the rest of the record.
func (c *Calendar) calendarParts() map[string]int {
	const per = 48
	s := map[string]int{"entry": len(c.Entry), "": 4096 + len(c.Name) + len(c.Type) + len(c.ImageURL) + len(c.Suffix) + 24*len(c.Tags)}
	for _, m := range c.Months {
		s["month_name"] += len(m.Name) + len(m.Type) + per
	}
	for _, w := range c.Weekdays {
		s["weekday"] += len(w) + per
	}
	for _, y := range c.Years {
		s["year_name"] += len(y) + per
	}
	for _, x := range c.Seasons {
		s["season_name"] += len(x.Name) + per
	}
	for _, m := range c.Moons {
		s["moon_name"] += len(m.Name) + len(m.Fullmoon) + len(m.Colour) + 2*per
	}
	for _, e := range c.Epochs {
		s["epoch_name"] += len(e) + per
	}
	return s
}

// checkSize refuses a calendar that could outgrow a storage item, naming the largest part the
// request sent: the one to shorten.
func (c *Calendar) checkSize(r *Reader) {
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
	r.Errs.Add(field, "The calendar must not be larger than "+strconv.Itoa(MaxCalendarBytes)+" bytes: shorten the "+Label(field)+".")
}

// column is a companion array of a driver array.
type column struct {
	name     string
	elem     elemReader
	required bool
}

// columns are the elements read from a driver array and its companions (cols[i] is nil when
// companion i was not sent; its elements are nil where an optional companion was null).
type columns struct {
	driver []any
	cols   [][]any
}

// elemReader reads one array element: its value, or a message (with :attribute) on failure.
type elemReader func(v any) (any, string)

// readColumns reads a driver array and its companions. ok is true when the driver was sent and
// everything read cleanly, so the structure is to be replaced.
func readColumns(r *Reader, driver string, maxItems int, elem elemReader, companions []column) (out columns, ok bool) {
	ok = true
	sent := r.Has(driver)
	var n int
	if sent {
		items, _ := r.List(driver, maxItems)
		out.driver, ok = readElems(r, driver, items, elem, !r.Errs.Has(driver))
		n = len(items)
	}
	out.cols = make([][]any, len(companions))
	for i, comp := range companions {
		items, f := r.List(comp.name, maxItems)
		if r.Errs.Has(comp.name) {
			ok = false
			continue
		}
		switch {
		case !f.Present():
			if sent && comp.required && n > 0 {
				r.fail(comp.name, "The :attribute field is required when "+Label(driver)+" is present.")
				ok = false
			}
			continue
		case !sent:
			r.fail(driver, "The :attribute field is required when "+Label(comp.name)+" is present.")
			ok = false
			continue
		case len(items) != n:
			r.fail(comp.name, "The :attribute must have the same number of items as the "+Label(driver)+".")
			ok = false
			continue
		}
		out.cols[i], ok = readElems(r, comp.name, items, comp.elem, ok)
	}
	return out, ok && sent
}

func readElems(r *Reader, name string, items []any, elem elemReader, ok bool) ([]any, bool) {
	vals := make([]any, len(items))
	for i, it := range items {
		v, msg := elem(it)
		if msg != "" {
			r.fail(name+"."+strconv.Itoa(i), msg)
			ok = false
			continue
		}
		vals[i] = v
	}
	return vals, ok
}

// stringElem reads a non-empty text of at most max bytes.
func stringElem(max int) elemReader {
	return func(v any) (any, string) {
		s, isStr := v.(string)
		if !isStr {
			if v == nil {
				return nil, "The :attribute field is required."
			}
			return nil, "The :attribute must be a string."
		}
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			return nil, "The :attribute field is required."
		case len(s) > max:
			return nil, "The :attribute must not be greater than " + strconv.Itoa(max) + " characters."
		case !validText(s):
			return nil, "The :attribute must be valid UTF-8 text."
		}
		return s, ""
	}
}

var nameElem = stringElem(MaxNameLength)

func validText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// intElem reads an integer in [min, max].
func intElem(min, max int64) elemReader {
	return func(v any) (any, string) {
		n, ok := toInt(v)
		if !ok {
			return nil, "The :attribute must be an integer."
		}
		if n < min || n > max {
			return nil, "The :attribute must be between " + strconv.FormatInt(min, 10) + " and " + strconv.FormatInt(max, 10) + "."
		}
		return n, ""
	}
}

// optional lets an element be null or "" (nil: the default applies).
func optional(e elemReader) elemReader {
	return func(v any) (any, string) {
		if s, isStr := v.(string); v == nil || (isStr && strings.TrimSpace(s) == "") {
			return nil, ""
		}
		return e(v)
	}
}

// monthTypeElem reads a month type; null or "" is standard. The engine judges the value.
func monthTypeElem(v any) (any, string) {
	if v == nil {
		return nil, ""
	}
	s, ok := v.(string)
	if !ok {
		return nil, "The :attribute must be a string."
	}
	if s = strings.TrimSpace(s); s == "" {
		return nil, ""
	}
	return s, ""
}

// periodElem reads a moon period as the exact decimal text the client sent: a JSON number
// arrives as json.Number, whose text is kept (never a float). The engine judges the value.
func periodElem(v any) (any, string) {
	switch x := v.(type) {
	case json.Number:
		return string(x), ""
	case string:
		if s := strings.TrimSpace(x); s != "" {
			return s, ""
		}
		return nil, "The :attribute field is required."
	case nil:
		return nil, "The :attribute field is required."
	}
	return nil, "The :attribute must be a number."
}
