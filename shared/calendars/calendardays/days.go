// Package calendardays is a calendar's day view (GET calendars/{id}/days): each day's weekday,
// month, season, moons, weather and events, walked by the engine. It is the calendars family's
// hot read path, with its own hand encoder.
package calendardays

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Limits of the day view.
const (
	// MaxDays bounds one day view.
	MaxDays = 1000
	// MaxDayEvents bounds the event entries of one day view (an occurrence counts once per day
	// it covers): long, often recurring events could otherwise overlap by thousands a day.
	MaxDayEvents = 20_000
	// phaseChunk is how many days of moon phases the day view reads at a time.
	phaseChunk = 32
)

// Store is what the day view reads (eventstore serves it: the calendar and the events its links name).
type Store interface {
	GetCalendar(ctx context.Context, cid, id int64) (*timeline.Calendar, error)
	DayWeatherBetween(ctx context.Context, cid, calID int64, from, to calengine.Date) ([]timeline.DayWeather, error)
	DayEvents(ctx context.Context, cid, calID int64, lookBack, last calengine.Date) ([]timeline.Event, error)
}

type handlers struct{ st Store }

// Register mounts the day view.
func Register(api *httpapi.API, kernel *store.Store) {
	st := eventstore.New(kernel)
	h := handlers{st: st}
	api.Handle("GET", "/calendars/{id}/days", h.days, httpapi.ReadAhead(calstore.ReadCalendar, "id", ""))
}

// dayJSON is one day of the day view.
type dayJSON struct {
	Date          string           `json:"date"`
	Weekday       *string          `json:"weekday"`               // also a leap day's own weekday
	WeekdayIndex  *int             `json:"weekday_index"`         // into the month's week; null outside it
	IsNumbered    *bool            `json:"is_numbered,omitempty"` // false on a leap day shown without a number; absent otherwise
	MonthName     string           `json:"month_name"`
	IsIntercalary bool             `json:"is_intercalary"`
	IsLeapDay     bool             `json:"is_leap_day"`
	LeapDayName   *string          `json:"leap_day_name"` // the rule's name; null on other days and unnamed rules
	Era           *calwire.DateEra `json:"era"`
	Season        *string          `json:"season"`
	SeasonPart    *float64         `json:"season_progress,omitempty"` // how far through its season the day is, 0 to below 1
	Sunrise       *string          `json:"sunrise,omitempty"`         // "H:MM", where the seasons give it
	Sunset        *string          `json:"sunset,omitempty"`
	Cycle         *string          `json:"cycle"`       // the year's cycle text; null without cycles
	CycleNames    []string         `json:"cycle_names"` // the year's name in each cycle`
	Moons         []dayMoonJSON    `json:"moons"`
	Events        []Event          `json:"events"`
	Weather       *weatherJSON     `json:"weather"` // null without a climate, or with a manual weather
	// Manual is the day's calendar_weather the caller may see (it wins over the procedural
	// weather, which is then null); null without one.
	Manual *calwire.DayWeather `json:"calendar_weather"`
}

// weatherJSON is a day's procedural weather (calengine.Climate): the temperature in tenths of
// a degree, precipitation and its intensity (per-mille), and a word for it.
type weatherJSON struct {
	Temperature   int    `json:"temperature"`
	Precipitation bool   `json:"precipitation"`
	Intensity     int    `json:"intensity"`
	Kind          string `json:"kind"`
}

// dayMoonJSON is a moon on a day one of its phases begins; phases merged on one day are listed
// in the order they begin, phase being the first.
type dayMoonJSON struct {
	ID     int      `json:"id"`
	Name   string   `json:"name"`
	Phase  string   `json:"phase"`
	Phases []string `json:"phases"`
	// For a moon of other than 8 phases: phase's place among its phase_count (0: full).
	PhaseIndex *int `json:"phase_index,omitempty"`
	PhaseCount *int `json:"phase_count,omitempty"`
}

// Event is an occurrence of an entity event covering a day; start and end are its first
// and last days (the day view's entries, and the month page's).
type Event struct {
	ID       int64  `json:"id"`
	EntityID int64  `json:"entity_id"`
	Name     string `json:"name"`
	Colour   string `json:"colour"`
	Start    string `json:"start"`
	End      string `json:"end"`
	// Time is the event's time of day on the calendar's clock ("H:MM"), null without one.
	Time *string `json:"time"`
	// at orders a day's events: -1 (no time: the whole day) first, then by minute of the day.
	at int64
}

// days answers GET calendars/{id}/days?from=Y-M-D&to=Y-M-D: each day's weekday, month, season,
// moon phases and events. from defaults to the current date and to to from. The days are
// rendered as they are walked, within the answer budget (httpapi.MaxPageBytes): a range whose
// answer would pass it is refused naming `to` and the last date that fits. The walk and the
// events stop when the request's deadline passes (503, nothing was written).
func (h handlers) days(r *httpapi.Request) (httpapi.Reply, error) {
	c, err := calwire.Visible(r, h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	eng, err := c.Engine()
	if err != nil {
		return httpapi.Reply{}, err
	}
	from, to, err := c.DayRange(eng, r.Param("from"), r.Param("to"), MaxDays)
	if err != nil {
		return httpapi.Reply{}, err
	}
	events, over, err := Events(r, h.st, c, eng, from, to, MaxDayEvents)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if over {
		return httpapi.Reply{}, timeline.TooManyDayEvents(MaxDayEvents)
	}
	manual, err := ManualWeather(r, h.st, c, eng.DateOf(from), eng.DateOf(to))
	if err != nil {
		return httpapi.Reply{}, err
	}
	// Moon phases are read a chunk of days ahead of the walk: a range refused for its size
	// computes little more than what fitted.
	var phases []calengine.MoonDay
	phasesTo := from - 1
	eras := calengine.SortEras(c.Eras)
	hidden := map[int]bool{} // the moons the caller may not see (calwire.HideMoons)
	if r.Access.CanWrite() != nil {
		for _, m := range c.Moons {
			hidden[m.ID] = m.Hidden
		}
	}
	var cycleNames []string
	var cycleText string
	cycleYear := eng.DateOf(from).Year - 1
	rows := httpapi.NewRows(httpapi.MaxPageBytes, false)
	rows.Expect(int(to - from + 1)) // at most MaxDays
	var last string
	var rerr error
	fits := true
	// One day value, and what its pointers point to, reused from day to day: rows.Add encodes
	// a day at once and keeps nothing of it (a fresh value per day, and each of its optional
	// fields, was an allocation).
	var day dayJSON
	var sc struct {
		no                            bool
		leapName, weekdayName, season string
		weekday                       int
		part                          float64
		weather                       weatherJSON
		manual                        calwire.DayWeather
		era                           calwire.DateEra
	}
	moons := make([]dayMoonJSON, 0, 4)
	werr := eng.Days(r.Context(), from, to, func(di calengine.DayInfo) bool {
		d := di.Date
		m := c.Months[d.Month-1]
		day = dayJSON{
			Date: d.String(), MonthName: m.Name, IsIntercalary: m.Type == calengine.Intercalary, IsLeapDay: di.LeapDay,
			Moons: moons[:0], Events: events[di.Number],
		}
		if e, ok := calwire.EraAt(eras, c.SkipYearZero, d); ok {
			sc.era = e
			day.Era = &sc.era
		}
		if di.NotNumbered {
			sc.no = false
			day.IsNumbered = &sc.no
		}
		if di.LeapDay && di.LeapName != "" {
			sc.leapName = di.LeapName
			day.LeapDayName = &sc.leapName
		}
		if w := di.Weekday; w >= 0 {
			sc.weekday = w
			day.WeekdayIndex = &sc.weekday
		}
		if di.WeekdayName != "" {
			sc.weekdayName = di.WeekdayName
			day.Weekday = &sc.weekdayName
		}
		if s, ok := eng.SeasonOn(di.Number, d); ok {
			sc.season = s.Season.Name
			day.Season = &sc.season
			if s.Progress >= 0 {
				sc.part = math.Round(s.Progress*10000) / 10000
				day.SeasonPart = &sc.part
			}
			day.Sunrise, day.Sunset = calengine.TimeOfDayText(s.Sunrise), calengine.TimeOfDayText(s.Sunset)
		}
		if d.Year != cycleYear { // once per year the walk enters
			cycleYear, cycleNames, cycleText = d.Year, eng.CycleNames(d.Year), eng.CycleText(d.Year)
		}
		day.CycleNames = cycleNames
		if cycleNames != nil {
			day.Cycle = &cycleText
		} else {
			day.CycleNames = []string{}
		}
		if di.Number > phasesTo {
			phasesTo = di.Number + min(to-di.Number, phaseChunk-1)
			phases = eng.MoonPhases(di.Number, phasesTo)
		}
		for len(phases) > 0 && phases[0].Day == di.Number {
			p := &phases[0] // in the engine's slice: its fields' addresses cost nothing
			if !hidden[p.MoonID] {
				m := dayMoonJSON{ID: p.MoonID, Name: p.Name, Phase: p.Phase, Phases: p.Phases}
				if p.PhaseCount != 8 {
					m.PhaseIndex, m.PhaseCount = &p.PhaseIndex, &p.PhaseCount
				}
				day.Moons = append(day.Moons, m)
			}
			phases = phases[1:]
		}
		moons = day.Moons[:0] // grown or not, for the next day
		if day.Events == nil {
			day.Events = []Event{}
		}
		for len(manual) > 0 && manual[0].Date != d && !after(manual[0].Date, d) {
			manual = manual[1:] // a date the calendar no longer has
		}
		if len(manual) > 0 && manual[0].Date == d {
			sc.manual = calwire.RenderDayWeather(&manual[0])
			day.Manual = &sc.manual
		} else if c.Climate != nil {
			w := eng.WeatherOf(*c.Climate, di.Number, d)
			sc.weather = weatherJSON{Temperature: w.Temp, Precipitation: w.Precipitation, Intensity: w.Intensity, Kind: w.Kind}
			day.Weather = &sc.weather
		}
		if fits, rerr = rows.Add(&day); rerr != nil || !fits {
			return false
		}
		last = day.Date
		return true
	})
	switch {
	case werr != nil:
		return httpapi.Reply{}, apperr.ErrUnavailable // the deadline passed: a read, nothing written
	case rerr != nil:
		return httpapi.Reply{}, rerr
	case !fits:
		return httpapi.Reply{}, timeline.DaysTooLarge(httpapi.MaxPageBytes, last)
	}
	return rows.Reply(), nil
}

// Events is the one place the day view and the month page get their events: for each day
// number in [from, to], the occurrences covering it of the entity events on calendar c that
// r.Access may see (the event's privacy and visibility, and its entity's, all on its day
// link). One round trip of two concurrent Queries: the recurring and long events, and the
// one-off events starting from timeline.DayLookBack days before from to to (none starting
// earlier reaches from). The walk stops past limit entries (an occurrence counts once per day
// it covers) and reports over: what it kept is the first limit of them.
func Events(r *httpapi.Request, st Store, c *timeline.Calendar, eng *calengine.Calendar, from, to int64, limit int) (map[int64][]Event, bool, error) {
	lookBack := from - timeline.DayLookBack
	if lookBack > from { // wrapped below the first day number
		lookBack = math.MinInt64
	}
	first, last := eng.DateOf(from), eng.DateOf(to)
	evs, err := st.DayEvents(r.Context(), c.CampaignID, c.ID, eng.DateOf(lookBack), last)
	if err != nil {
		return nil, false, err
	}
	out := map[int64][]Event{}
	entries, over := 0, false
	clock := calengine.Clock{Hours: 24, Minutes: 60} // a time kept after its clock was removed
	if k, ok := eng.Clock(); ok {
		clock = k
	}
	for i := range evs {
		if r.Context().Err() != nil {
			return nil, false, apperr.ErrUnavailable // the deadline passed: a read, nothing written
		}
		ev := &evs[i]
		if !r.Access.CanSee(ev.EntityPrivate) || !ev.VisibleTo(r.Access) {
			continue
		}
		var tm *string
		at := int64(-1)
		if ev.Time != nil {
			s := ev.Time.String(clock)
			tm, at = &s, int64(ev.Time.Hour)*int64(clock.Minutes)+int64(ev.Time.Minute)
		}
		// The occurrences are walked, not listed: the walk stops at the entries' limit, so an
		// every-day event 100,000 days long costs at most limit entries.
		err := eng.EachOccurrence(ev.Engine(), first, last, func(o calengine.Occurrence) bool {
			start, err1 := eng.DayNumber(o.Start)
			end, err2 := eng.DayNumber(o.End)
			if err1 != nil || err2 != nil {
				return true
			}
			lo, hi := max(start, from), min(end, to)
			if lo > hi {
				return true
			}
			if entries+int(hi-lo+1) > limit {
				hi, over = lo+int64(limit-entries)-1, true
			}
			entries += int(hi - lo + 1)
			j := Event{ID: ev.ID, EntityID: ev.EntityID, Name: ev.Name, Colour: ev.Colour, Start: o.Start.String(), End: o.End.String(), Time: tm, at: at}
			for n := lo; n <= hi; n++ {
				out[n] = append(out[n], j)
			}
			return !over
		})
		if over {
			break
		}
		if err != nil { // a date the calendar no longer has (its months changed): not shown
			continue
		}
	}
	for _, day := range out { // the whole-day events first, then by time; ties keep link order
		slices.SortStableFunc(day, func(a, b Event) int { return cmp.Compare(a.at, b.at) })
	}
	return out, over, nil
}

// ManualWeather reads the manual weathers of the days from..to that r.Access may see, in date
// order: one Query of their day keys (at most one a day of the view).
func ManualWeather(r *httpapi.Request, st Store, c *timeline.Calendar, from, to calengine.Date) ([]timeline.DayWeather, error) {
	ws, err := st.DayWeatherBetween(r.Context(), c.CampaignID, c.ID, from, to)
	out := ws[:0]
	for _, w := range ws {
		if r.Access.CanSeeVisibility(w.Visibility, w.CreatedBy) {
			out = append(out, w)
		}
	}
	return out, err
}

// after reports whether a is a later date than b (the order of the day keys).
func after(a, b calengine.Date) bool {
	if a.Year != b.Year {
		return a.Year > b.Year
	}
	if a.Month != b.Month {
		return a.Month > b.Month
	}
	return a.Day > b.Day
}
