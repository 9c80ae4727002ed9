// Package calwire is a calendar's wire shape, as Kanka clients read it: the calendars family
// answers it, and so does the Fantasy-Calendar transfer (package transfer, a Lambda of its
// own), which links this and not the family's handlers.
package calwire

import (
	"context"

	"encoding/json"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Calendar is a calendar as Kanka clients read it, every field of the spec's table, plus
// Lorekeep's skip_year_zero and epochs (the family adds ?related=1's arrays beside).
type Calendar struct {
	httpapi.OwnerJSON
	Date            string            `json:"date"`
	Parameters      *string           `json:"parameters"`
	Months          []monthJSON       `json:"months"`
	StartOffset     int               `json:"start_offset"`
	Weekdays        []string          `json:"weekdays"`
	Years           map[string]string `json:"years"`
	Seasons         []seasonJSON      `json:"seasons"`
	Moons           []moonJSON        `json:"moons"`
	Epochs          []epochJSON       `json:"epochs"`
	Suffix          string            `json:"suffix"`
	Format          *string           `json:"format"`         // Kanka's; null when unset
	DateFormatted   string            `json:"date_formatted"` // the current date by the format
	SkipYearZero    bool              `json:"skip_year_zero"`
	WeekRestart     bool              `json:"week_restart"`
	PeriodicSeasons bool              `json:"periodic_seasons"`
	SeasonOffset    int64             `json:"season_offset"`
	HasLeapYear     bool              `json:"has_leap_year"`
	LeapYearAmount  int               `json:"leap_year_amount"`
	LeapYearMonth   int               `json:"leap_year_month"`
	LeapYearOffset  int               `json:"leap_year_offset"`
	LeapYearStart   int64             `json:"leap_year_start"`
	LeapDays        []leapDayJSON     `json:"leap_days"`
	Eras            []eraJSON         `json:"eras"`
	Era             *DateEra          `json:"era"` // of the current date
	Clock           *clockJSON        `json:"clock"`
	CurrentHour     *int              `json:"current_hour"` // null without a clock
	CurrentMinute   *int              `json:"current_minute"`
	Cycles          []cycleJSON       `json:"cycles"`
	CycleFormat     string            `json:"cycle_format"`
	Cycle           *string           `json:"cycle"` // the current year's cycle text
	WeatherClimate  []climateJSON     `json:"weather_climate"`
	WeatherSeed     *int64            `json:"weather_seed"` // null without a climate
}

type climateJSON struct {
	TempLow                int `json:"temp_low"`
	TempHigh               int `json:"temp_high"`
	Precipitation          int `json:"precipitation"`
	PrecipitationIntensity int `json:"precipitation_intensity"`
}

type clockJSON struct {
	Hours   int `json:"hours"`
	Minutes int `json:"minutes"`
	Offset  int `json:"offset"`
}

type cycleJSON struct {
	Length int64    `json:"length"`
	Offset int64    `json:"offset"`
	Names  []string `json:"names"`
}

// leapDayJSON is a leap rule; day and from_year are null when not set.
type leapDayJSON struct {
	Name        string `json:"name"`
	Month       int    `json:"month"`
	Day         *int   `json:"day"`
	Interval    string `json:"interval"`
	Offset      int64  `json:"offset"`
	FromYear    *int64 `json:"from_year"`
	Intercalary bool   `json:"intercalary"`
	Amount      int    `json:"amount"`
	// Beyond Kanka, left out when unset so Kanka's shape stays as it was.
	Weekday     *string `json:"weekday,omitempty"` // the weekday the days add
	NotNumbered bool    `json:"not_numbered,omitempty"`
}

type eraJSON struct {
	Name         string `json:"name"`
	Abbreviation string `json:"abbreviation"`
	// Year is null for an era since the beginning (SinceTheBeginning).
	Year     *int64 `json:"year"`
	Restart  bool   `json:"restart"`
	Month    *int   `json:"month,omitempty"` // where the era starts within its year; absent: with the year
	Day      *int   `json:"day,omitempty"`
	EndsYear bool   `json:"ends_year,omitempty"` // the year ends on the era's date
}

// DateEra is the era of a date and the date's year in it.
type DateEra struct {
	Name         string `json:"name"`
	Abbreviation string `json:"abbreviation"`
	Year         int64  `json:"year"`
}

// EraOf is the era of date d on c, or nil.
func EraOf(eras []calengine.Era, skipZero bool, d calengine.Date) *DateEra {
	if e, ok := EraAt(eras, skipZero, d); ok {
		return &e
	}
	return nil
}

// EraAt is EraOf as a value (a day view keeps one, day after day); false: none.
func EraAt(eras []calengine.Era, skipZero bool, d calengine.Date) (DateEra, bool) {
	e, n, ok := calengine.EraAt(eras, skipZero, d)
	if !ok {
		return DateEra{}, false
	}
	return DateEra{Name: e.Name, Abbreviation: e.Abbreviation, Year: n}, true
}

type monthJSON struct {
	Name   string `json:"name"`
	Length int    `json:"length"`
	Type   string `json:"type"`
	// Beyond Kanka, left out when unset so Kanka's shape stays as it was.
	Interval *string  `json:"interval,omitempty"` // absent: every year
	Offset   int64    `json:"offset,omitempty"`
	Weekdays []string `json:"weekdays,omitempty"` // the month's own week; absent: the calendar's
}

type seasonJSON struct {
	Name  string `json:"name"`
	Month int    `json:"month"`
	Day   int    `json:"day"`
	// Beyond Kanka, left out when unset so Kanka's shape stays as it was.
	Duration   *json.Number `json:"duration,omitempty"` // periodic seasons' lengths in days
	Transition *json.Number `json:"transition,omitempty"`
	Sunrise    *string      `json:"sunrise,omitempty"` // "H:MM"
	Sunset     *string      `json:"sunset,omitempty"`
}

type moonJSON struct {
	ID       int         `json:"id"`
	Name     string      `json:"name"`
	Fullmoon string      `json:"fullmoon"`
	Offset   json.Number `json:"offset"` // a decimal, written as sent
	Colour   string      `json:"colour"`
	// Granularity is the phases displayed per cycle (absent: 8); CustomCycle each day's phase in
	// turn. Left out when unset so Kanka's shape stays as it was.
	Granularity int   `json:"granularity,omitempty"`
	CustomCycle []int `json:"custom_cycle,omitempty"`
	Hidden      bool  `json:"hidden,omitempty"`
	// Rounding is Fantasy-Calendar's cycle_rounding (round, floor, ceil); absent: Lorekeep's.
	Rounding string `json:"rounding,omitempty"`
}

type epochJSON struct {
	Name string `json:"name"`
}

// OwnerOf is the owner part of j, for httpapi.OwnerRender and Request.ParseOwners.
func OwnerOf(j *Calendar) *httpapi.OwnerJSON { return &j.OwnerJSON }

// Render is c as the reader of r reads it (a private tag's id is an admin's only).
func Render(r *httpapi.Request, c *timeline.Calendar) Calendar {
	j := Calendar{
		OwnerJSON: httpapi.RenderOwner(r, c.Meta, c.Owner), Date: c.Date.String(), StartOffset: c.StartOffset, Weekdays: c.Weekdays, Suffix: c.Suffix,
		SkipYearZero: c.SkipYearZero, WeekRestart: c.WeekRestart,
		PeriodicSeasons: c.PeriodicSeasons, SeasonOffset: c.SeasonOffset, HasLeapYear: c.HasLeapYear, LeapYearAmount: c.LeapYearAmount,
		LeapYearMonth: c.LeapYearMonth, LeapYearOffset: c.LeapYearOffset, LeapYearStart: c.LeapYearStart,
		Months:  make([]monthJSON, len(c.Months)),
		Years:   make(map[string]string, len(c.Years)),
		Seasons: make([]seasonJSON, len(c.Seasons)),
		Moons:   make([]moonJSON, len(c.Moons)),
		Epochs:  make([]epochJSON, len(c.Epochs)),
	}
	if j.Weekdays == nil {
		j.Weekdays = []string{}
	}
	for i, m := range c.Months {
		j.Months[i] = monthJSON{Name: m.Name, Length: m.Length, Type: string(m.Type), Weekdays: m.Weekdays}
		if !calengine.MonthEveryYear(m) {
			iv := m.Interval
			j.Months[i].Interval, j.Months[i].Offset = &iv, m.Offset
		}
	}
	for y, n := range c.Years {
		j.Years[strconv.FormatInt(y, 10)] = n
	}
	for i, s := range c.Seasons {
		j.Seasons[i] = seasonJSON{Name: s.Name, Month: s.Month, Day: s.Day,
			Sunrise: calengine.TimeOfDayText(s.Sunrise), Sunset: calengine.TimeOfDayText(s.Sunset)}
		if c.PeriodicSeasons {
			d, t := moonOffset(s.Duration), moonOffset(s.Transition)
			j.Seasons[i].Duration, j.Seasons[i].Transition = &d, &t
		}
	}
	for i, m := range c.Moons {
		j.Moons[i] = moonJSON{ID: m.ID, Name: m.Name, Fullmoon: m.Fullmoon, Offset: moonOffset(m.Offset), Colour: m.Colour,
			Granularity: m.Granularity, CustomCycle: m.CustomCycle, Hidden: m.Hidden, Rounding: m.Rounding}
	}
	for i, e := range c.Epochs {
		j.Epochs[i] = epochJSON{Name: e}
	}
	rules := c.Rules()
	j.LeapDays = make([]leapDayJSON, len(rules))
	for i, l := range rules {
		j.LeapDays[i] = leapDayJSON{Name: l.Name, Month: l.Month, Day: l.Day, Interval: l.Interval, Offset: l.Offset,
			FromYear: l.FromYear, Intercalary: l.Intercalary, Amount: max(l.Amount, 1), NotNumbered: l.NotNumbered}
		if l.Weekday != "" {
			w := l.Weekday
			j.LeapDays[i].Weekday = &w
		}
	}
	j.Eras = make([]eraJSON, len(c.Eras))
	for i, e := range c.Eras {
		j.Eras[i] = eraJSON{Name: e.Name, Abbreviation: e.Abbreviation, Restart: e.Restart, EndsYear: e.EndsYear}
		if y := e.Year; y != calengine.EarliestYear {
			j.Eras[i].Year = &y
		}
		if e.Month > 0 {
			m, d := e.Month, e.Day
			j.Eras[i].Month, j.Eras[i].Day = &m, &d
		}
	}
	j.Era = EraOf(calengine.SortEras(c.Eras), c.SkipYearZero, c.Date)
	if k := c.Clock; k != nil {
		h, m := c.Time.Hour, c.Time.Minute
		j.Clock, j.CurrentHour, j.CurrentMinute = &clockJSON{Hours: k.Hours, Minutes: k.Minutes, Offset: k.Offset}, &h, &m
	}
	j.Cycles = make([]cycleJSON, len(c.Cycles))
	for i, cy := range c.Cycles {
		j.Cycles[i] = cycleJSON{Length: cy.Length, Offset: cy.Offset, Names: cy.Names}
	}
	j.CycleFormat = c.CycleFormat
	if c.Format != "" {
		f := c.Format
		j.Format = &f
	}
	j.DateFormatted = calengine.FormatDate(c.Format, calengine.PartsOf(c.Months, c.Years, c.Suffix, c.Date))
	if len(c.Cycles) > 0 { // stored cycles were validated: no engine needed
		text := calengine.CycleText(c.Cycles, c.CycleFormat, c.SkipYearZero, c.Date.Year)
		j.Cycle = &text
	}
	j.WeatherClimate = []climateJSON{}
	if k := c.Climate; k != nil {
		seed := k.Seed
		j.WeatherSeed = &seed
		for _, cs := range k.Seasons {
			j.WeatherClimate = append(j.WeatherClimate, climateJSON(cs))
		}
	}
	return j
}

// moonOffset is a moon's offset as a JSON number: 0 when unset.
func moonOffset(s string) json.Number {
	if s == "" {
		return "0"
	}
	return json.Number(s)
}

// HideMoons drops the hidden moons from j for a caller who cannot edit the calendar (as
// Fantasy-Calendar shows them to its owner only).
func HideMoons(r *httpapi.Request, j *Calendar) {
	if r.Access.CanWrite() == nil {
		return
	}
	shown := j.Moons[:0]
	for _, m := range j.Moons {
		if !m.Hidden {
			shown = append(shown, m)
		}
	}
	j.Moons = shown
}

// Getter reads a calendar by id (calstore serves it).
type Getter interface {
	GetCalendar(ctx context.Context, cid, id int64) (*timeline.Calendar, error)
}

// Visible reads the calendar of the path's id that the caller may see; a hidden one is a 404
// like a missing one.
func Visible(r *httpapi.Request, st Getter) (*timeline.Calendar, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	c, err := st.GetCalendar(r.Context(), r.Access.CampaignID, id)
	if err == nil && !r.Access.CanSee(c.IsPrivate) {
		err = apperr.ErrNotFound
	}
	return c, err
}

// DayWeather is Kanka's CalendarWeatherResource: a calendar's manual weather of one day, as the
// calendar_weather routes and the day view answer it.
type DayWeather struct {
	ID            int64   `json:"id"`
	CalendarID    int64   `json:"calendar_id"`
	Weather       string  `json:"weather"`
	Temperature   string  `json:"temperature"`
	Precipitation string  `json:"precipitation"`
	Wind          string  `json:"wind"`
	Effect        string  `json:"effect"`
	Name          *string `json:"name"`
	Day           int     `json:"day"`
	Month         int     `json:"month"`
	Year          int64   `json:"year"`
	Visibility    string  `json:"visibility"`
	VisibilityID  int     `json:"visibility_id"`
	httpapi.AuditJSON
}

// AppendFields appends w's fields as encoding/json writes them (no braces): the day view's
// hand encoder (not AppendJSON, which a shape embedding DayWeather would take as its own).
func (w *DayWeather) AppendFields(b []byte) []byte {
	b = append(b, `"id":`...)
	b = httpapi.AppendInt(b, w.ID)
	b = append(b, `,"calendar_id":`...)
	b = httpapi.AppendInt(b, w.CalendarID)
	b = append(b, `,"weather":`...)
	b = httpapi.AppendString(b, w.Weather)
	b = append(b, `,"temperature":`...)
	b = httpapi.AppendString(b, w.Temperature)
	b = append(b, `,"precipitation":`...)
	b = httpapi.AppendString(b, w.Precipitation)
	b = append(b, `,"wind":`...)
	b = httpapi.AppendString(b, w.Wind)
	b = append(b, `,"effect":`...)
	b = httpapi.AppendString(b, w.Effect)
	b = append(b, `,"name":`...)
	b = httpapi.AppendOptString(b, w.Name)
	b = append(b, `,"day":`...)
	b = httpapi.AppendInt(b, int64(w.Day))
	b = append(b, `,"month":`...)
	b = httpapi.AppendInt(b, int64(w.Month))
	b = append(b, `,"year":`...)
	b = httpapi.AppendInt(b, w.Year)
	b = append(b, `,"visibility":`...)
	b = httpapi.AppendString(b, w.Visibility)
	b = append(b, `,"visibility_id":`...)
	b = httpapi.AppendInt(b, int64(w.VisibilityID))
	b = append(b, ',')
	return w.AuditJSON.AppendAuditFields(b)
}

// RenderDayWeather is w as clients read it.
func RenderDayWeather(w *timeline.DayWeather) DayWeather {
	out := DayWeather{ID: w.ID, CalendarID: w.CalendarID, Weather: w.Weather, Temperature: w.Temperature,
		Precipitation: w.Precipitation, Wind: w.Wind, Effect: w.Effect, Day: w.Date.Day, Month: w.Date.Month,
		Year: w.Date.Year, Visibility: string(w.Visibility), VisibilityID: w.Visibility.ID(), AuditJSON: httpapi.RenderAudit(w.Meta)}
	if w.Name != "" {
		out.Name = &w.Name
	}
	return out
}

// SinceTheBeginning reads, in a body's eras, a year sent as null (or "") as the era that has
// always been: stored as calengine.EarliestYear (the lowest year a JavaScript client reads
// exactly), answered as null (Render), so that a client writing back the eras it read keeps
// them. The domain reads the year as any other.
func SinceTheBeginning(in map[string]any) {
	earliest := json.Number(strconv.FormatInt(calengine.EarliestYear, 10))
	fix := func(v any) {
		if era, ok := v.(map[string]any); ok {
			if y, sent := era["year"]; sent && (y == nil || y == "") {
				era["year"] = earliest
			}
		}
	}
	switch eras := in["eras"].(type) {
	case []any:
		for _, e := range eras {
			fix(e)
		}
	case map[string]any: // a form's eras[0][year]
		for _, e := range eras {
			fix(e)
		}
	}
}
