// Package calendarmonth is a calendar's month as people look at it: the month page
// (GET calendars/{id}/month, HTML to a browser, JSON otherwise), its SVG image
// (calendars/{id}/month.svg) and the share links that open them without a token. The days,
// moons, seasons, weather and events come from the engine and the day view's reads
// (calendardays.Events, ManualWeather), so the page shows a viewer what the day view would.
package calendarmonth

import (
	"math"
	"regexp"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Limits of one month: past them the page shows the first ones and says what it left out.
const (
	// MaxDays is the days of a month shown (a month may have up to 10^9).
	MaxDays = 1000
	// MaxEvents is the event entries of a month (an occurrence counts once a day it covers).
	MaxEvents = 2000
	// MaxMoonMarks is the moon phase marks of a month (100 moons change phase often).
	MaxMoonMarks = 2000
	// DayEvents and DayMoons are what one day's cell lists; the rest are counted ("3 more").
	DayEvents = 6
	DayMoons  = 6
	// phaseChunk is how many days of moon phases are computed at a time.
	phaseChunk = 32
)

// Month is one month of a calendar as the viewer may see it.
type Month struct {
	CalendarID  int64            `json:"calendar_id"`
	Calendar    string           `json:"calendar"`
	Year        int64            `json:"year"`
	Month       int              `json:"month"`
	Name        string           `json:"name"`
	YearText    string           `json:"year_text"` // the year with its era and year name
	Era         *calwire.DateEra `json:"era"`
	YearName    string           `json:"year_name,omitempty"`
	Cycle       string           `json:"cycle,omitempty"`
	Intercalary bool             `json:"is_intercalary"`
	Weekdays    []string         `json:"weekdays"`
	Current     string           `json:"current_date"`
	Weeks       []Week           `json:"weeks"`
	Prev        *MonthRef        `json:"previous"`
	Next        *MonthRef        `json:"next"`
	Moons       []MoonRef        `json:"moons"`
	Days        int              `json:"days"`    // the month's length
	Omitted     []string         `json:"omitted"` // what the page left out, in words
	colours     map[string]string
}

// Week is a row of the month: Cells in the weekday columns (nil where no day falls), or, for
// days outside the week (an intercalary month's, a leap day's that does not count), Outside.
type Week struct {
	Cells   []*Day `json:"cells,omitempty"`
	Outside []*Day `json:"outside,omitempty"`
}

// Day is one day of the month.
type Day struct {
	Date      string  `json:"date"`
	Label     string  `json:"label"` // the day's number, or its leap day's name when it has none
	Weekday   string  `json:"weekday,omitempty"`
	Current   bool    `json:"is_current"`
	LeapDay   bool    `json:"is_leap_day"`
	LeapName  string  `json:"leap_day_name,omitempty"`
	Season    string  `json:"season,omitempty"`
	Weather   string  `json:"weather,omitempty"`
	Moons     []Moon  `json:"moons"`
	Events    []Event `json:"events"`
	More      int     `json:"more_events"` // events of the day not listed in its cell
	MoreMoons int     `json:"more_moons"`
}

// Moon is a moon's phase beginning on a day.
type Moon struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Phase  string `json:"phase"`
	Index  int    `json:"phase_index"`
	Count  int    `json:"phase_count"`
	Colour string `json:"colour"`
	class  string
}

// Event is an event's occurrence on a day.
type Event struct {
	ID     int64   `json:"id"`
	Name   string  `json:"name"`
	Colour string  `json:"colour"`
	Time   *string `json:"time"`
	Start  string  `json:"start"`
	End    string  `json:"end"`
	class  string
}

// MonthRef names another month (the previous or next).
type MonthRef struct {
	Year  int64  `json:"year"`
	Month int    `json:"month"`
	Name  string `json:"name"`
}

// MoonRef is a moon of the calendar the viewer may see.
type MoonRef struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Colour string `json:"colour"`
}

// safeColour is a colour the page may put in its style sheet: a hex colour or a CSS name.
var safeColour = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,30})$`)

// colourClass is the class of colour c (a known default for one that is not safe).
func (m *Month) colourClass(c string) string {
	if !safeColour.MatchString(c) {
		c = "grey"
	}
	if k, ok := m.colours[c]; ok {
		return k
	}
	k := "k" + strconv.Itoa(len(m.colours))
	m.colours[c] = k
	return k
}

// which is the month a request asks for: ?year= and ?month=, the calendar's current month
// where left out.
func which(r *httpapi.Request, c *timeline.Calendar, eng *calengine.Calendar) (int64, int, error) {
	rd := domain.NewReader(httpapi.QueryOf(r.Request))
	y := rd.Int("year", -maxYear, maxYear)
	m := rd.Int("month", 1, int64(len(c.Months)))
	if err := rd.Err(); err != nil {
		return 0, 0, err
	}
	year, month := c.Date.Year, c.Date.Month
	if y.Present() {
		year = y.Value
	}
	if m.Present() {
		month = int(m.Value)
	}
	if !eng.MonthExists(year, month) {
		return 0, 0, apperr.Invalid("month", "The calendar has no month "+strconv.Itoa(month)+" in year "+strconv.FormatInt(year, 10)+".")
	}
	return year, month, nil
}

// build reads and lays out one month for r.Access: the events (one round trip) and the manual
// weather (one), the rest computed.
func build(r *httpapi.Request, st calendardays.Store, c *timeline.Calendar, eng *calengine.Calendar, year int64, month int) (*Month, error) {
	first := calengine.Date{Year: year, Month: month, Day: 1}
	from, err := eng.DayNumber(first)
	if err != nil {
		return nil, apperr.Invalid("year", "The year is out of the calendar's range.")
	}
	length := eng.DaysInMonth(year, month)
	shown := min(length, MaxDays)
	to := from + int64(shown) - 1
	if to < from { // past int64
		return nil, apperr.Invalid("year", "The year is out of the calendar's range.")
	}
	mo := c.Months[month-1]
	out := &Month{CalendarID: c.ID, Calendar: c.Name, Year: year, Month: month, Name: mo.Name, Days: length,
		Intercalary: mo.Type == calengine.Intercalary, Current: c.Date.String(), Weeks: []Week{}, Omitted: []string{},
		Moons: []MoonRef{}, colours: map[string]string{}}
	out.Weekdays = c.Weekdays
	if len(mo.Weekdays) > 0 {
		out.Weekdays = mo.Weekdays
	}
	if out.Weekdays == nil {
		out.Weekdays = []string{}
	}
	if e, ok := calwire.EraAt(calengine.SortEras(c.Eras), c.SkipYearZero, first); ok {
		out.Era = &e
	}
	out.YearName = c.Years[year]
	out.Cycle = eng.CycleText(year)
	out.YearText = yearText(out)
	out.Prev, out.Next = neighbour(c, eng, year, month, -1), neighbour(c, eng, year, month, 1)
	if shown < length {
		out.Omitted = append(out.Omitted, "The month has "+strconv.Itoa(length)+" days: the first "+strconv.Itoa(MaxDays)+" are shown.")
	}

	events, over, err := calendardays.Events(r, st, c, eng, from, to, MaxEvents)
	if err != nil {
		return nil, err
	}
	if over {
		out.Omitted = append(out.Omitted, "The month has more than "+strconv.Itoa(MaxEvents)+" event entries: those after the first "+strconv.Itoa(MaxEvents)+" are not shown.")
	}
	manual, err := calendardays.ManualWeather(r, st, c, first, eng.DateOf(to))
	if err != nil {
		return nil, err
	}
	hidden := map[int]bool{}
	colour := map[int]string{}
	for _, m := range c.Moons {
		if m.Hidden && r.Access.CanWrite() != nil { // as calwire.HideMoons
			hidden[m.ID] = true
			continue
		}
		colour[m.ID] = m.Colour
		out.Moons = append(out.Moons, MoonRef{ID: m.ID, Name: m.Name, Colour: m.Colour})
	}

	var phases []calengine.MoonDay
	phasesTo, marks, moonsCut := from-1, 0, ""
	var row *Week
	last := -1
	flush := func() {
		if row != nil {
			out.Weeks = append(out.Weeks, *row)
			row, last = nil, -1
		}
	}
	werr := eng.Days(r.Context(), from, to, func(di calengine.DayInfo) bool {
		d := &Day{Date: di.Date.String(), Label: strconv.Itoa(di.Date.Day), Weekday: di.WeekdayName, LeapDay: di.LeapDay,
			LeapName: di.LeapName, Current: di.Date == c.Date, Moons: []Moon{}, Events: []Event{}}
		if di.NotNumbered && di.LeapName != "" {
			d.Label = di.LeapName
		}
		if s, ok := eng.SeasonOn(di.Number, di.Date); ok {
			d.Season = s.Season.Name
		}
		for len(manual) > 0 && manual[0].Date != di.Date && !after(manual[0].Date, di.Date) {
			manual = manual[1:]
		}
		if len(manual) > 0 && manual[0].Date == di.Date {
			d.Weather = manual[0].Weather
		} else if c.Climate != nil {
			d.Weather = weatherText(eng.WeatherOf(*c.Climate, di.Number, di.Date))
		}
		if di.Number > phasesTo && moonsCut == "" {
			phasesTo = di.Number + min(to-di.Number, phaseChunk-1)
			phases = eng.MoonPhases(di.Number, phasesTo)
		}
		for len(phases) > 0 && phases[0].Day == di.Number {
			p := phases[0]
			phases = phases[1:]
			if hidden[p.MoonID] {
				continue
			}
			if marks >= MaxMoonMarks {
				moonsCut = d.Date
				phases = nil
				break
			}
			marks++
			if len(d.Moons) >= DayMoons {
				d.MoreMoons++
				continue
			}
			m := Moon{ID: p.MoonID, Name: p.Name, Phase: p.Phase, Index: p.PhaseIndex, Count: p.PhaseCount, Colour: colour[p.MoonID]}
			m.class = out.colourClass(m.Colour)
			d.Moons = append(d.Moons, m)
		}
		for i, e := range events[di.Number] {
			if i >= DayEvents {
				d.More = len(events[di.Number]) - DayEvents
				break
			}
			ev := Event{ID: e.ID, Name: e.Name, Colour: e.Colour, Time: e.Time, Start: e.Start, End: e.End}
			ev.class = out.colourClass(e.Colour)
			d.Events = append(d.Events, ev)
		}
		w := di.Weekday
		if w < 0 || len(out.Weekdays) == 0 {
			flush()
			if n := len(out.Weeks); n > 0 && out.Weeks[n-1].Outside != nil {
				out.Weeks[n-1].Outside = append(out.Weeks[n-1].Outside, d)
			} else {
				out.Weeks = append(out.Weeks, Week{Outside: []*Day{d}})
			}
			return true
		}
		if row == nil || w <= last {
			flush()
			row = &Week{Cells: make([]*Day, len(out.Weekdays))}
		}
		if w < len(row.Cells) {
			row.Cells[w] = d
		}
		last = w
		return true
	})
	if werr != nil {
		return nil, apperr.ErrUnavailable // the deadline passed: a read, nothing written
	}
	flush()
	if moonsCut != "" {
		out.Omitted = append(out.Omitted, "The month has more than "+strconv.Itoa(MaxMoonMarks)+" moon phases: those from "+moonsCut+" on are not shown.")
	}
	return out, nil
}

// neighbour is the month step months away (-1, 1) that exists, skipping months absent that
// year; nil past the calendar's range.
func neighbour(c *timeline.Calendar, eng *calengine.Calendar, year int64, month, step int) *MonthRef {
	for range len(c.Months) * 4 {
		month += step
		if month < 1 {
			if year == -maxYear {
				return nil
			}
			year, month = year-1, len(c.Months)
		} else if month > len(c.Months) {
			if year == maxYear {
				return nil
			}
			year, month = year+1, 1
		}
		if eng.MonthExists(year, month) {
			return &MonthRef{Year: year, Month: month, Name: c.Months[month-1].Name}
		}
	}
	return nil
}

// yearText is the year as the page heads it: its number and the calendar's suffix, its era,
// its name and its cycle's.
func yearText(m *Month) string {
	s := strconv.FormatInt(m.Year, 10)
	if m.Era != nil {
		name := m.Era.Abbreviation
		if name == "" {
			name = m.Era.Name
		}
		s += " (" + name + " " + strconv.FormatInt(m.Era.Year, 10) + ")"
	}
	if m.YearName != "" {
		s += ", " + m.YearName
	}
	if m.Cycle != "" {
		s += ", " + m.Cycle
	}
	return s
}

// weatherText is a procedural weather in words: its kind and temperature in degrees.
func weatherText(w calengine.Weather) string {
	return w.Kind + ", " + strconv.FormatFloat(math.Round(float64(w.Temp))/10, 'f', 1, 64) + "°"
}

// after reports whether a is a later date than b.
func after(a, b calengine.Date) bool {
	if a.Year != b.Year {
		return a.Year > b.Year
	}
	if a.Month != b.Month {
		return a.Month > b.Month
	}
	return a.Day > b.Day
}

// maxYear is the bound of a calendar's year that create, update and import accept (2^53-1).
const maxYear = 1<<53 - 1
