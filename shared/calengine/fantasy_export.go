package calengine

import (
	"encoding/json"
	"html"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// Export is a calendar written as a Fantasy-Calendar export (name, static_data,
// dynamic_data), the shape ImportFantasyCalendar reads and Fantasy-Calendar's importer
// accepts, and what Fantasy-Calendar itself cannot hold.
//
// What Fantasy-Calendar has no field for travels in fields of its objects that its importer
// ignores and ImportFantasyCalendar reads, so that importing an export gives back the same
// calendar: a moon's "id" and "colour" (a name such as grey; "color" is then its hex value),
// a leap day's "after_day" (its place in any month), "from_year" and "amount", and
// static_data's "years" (year names) and "suffix". Warnings name what Fantasy-Calendar
// itself will read differently.
type Export struct {
	Name        string          `json:"name"`
	StaticData  json.RawMessage `json:"static_data"`
	DynamicData json.RawMessage `json:"dynamic_data"`
	// Events and Categories are the calendar's reminders as Fantasy-Calendar events, beside
	// static_data as Fantasy-Calendar's exports carry them (fantasy_export_events.go).
	Events     []any    `json:"events"`
	Categories []any    `json:"categories"`
	Warnings   []string `json:"warnings"`
}

type exTimespan struct {
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	Length       int      `json:"length"`
	Interval     int64    `json:"interval"`
	Offset       int64    `json:"offset"`
	Week         []string `json:"week,omitempty"`
	IntervalRule *string  `json:"interval_rule,omitempty"`
}

type exLeapDay struct {
	Name        string `json:"name"`
	Intercalary bool   `json:"intercalary"`
	Timespan    int    `json:"timespan"`
	AddsWeekDay bool   `json:"adds_week_day"`
	WeekDay     string `json:"week_day,omitempty"`
	Day         *int   `json:"day,omitempty"`
	Interval    string `json:"interval"`
	Offset      int64  `json:"offset"`
	NotNumbered bool   `json:"not_numbered"`
	AfterDay    *int   `json:"after_day,omitempty"`
	FromYear    *int64 `json:"from_year,omitempty"`
	Amount      int    `json:"amount,omitempty"`
}

type exMoon struct {
	Name        string      `json:"name"`
	Cycle       json.Number `json:"cycle"`
	Shift       json.Number `json:"shift"`
	Granularity int         `json:"granularity"`
	Color       string      `json:"color"`
	Hidden      bool        `json:"hidden"`
	Rounding    string      `json:"cycle_rounding"`
	// Lorekeep's own: the moon's phases begin on the day their instant falls on, a rounding
	// Fantasy-Calendar lacks (it reads "round" above).
	Instant     bool    `json:"lorekeep_instant,omitempty"`
	CustomPhase bool    `json:"custom_phase"`
	CustomCycle string  `json:"custom_cycle,omitempty"`
	ID          int     `json:"id"`
	Colour      *string `json:"colour,omitempty"`
}

type exClockTime struct {
	Hour   int `json:"hour"`
	Minute int `json:"minute"`
}

type exSeason struct {
	Name             string      `json:"name"`
	Timespan         *int        `json:"timespan,omitempty"`
	Day              *int        `json:"day,omitempty"`
	TransitionLength json.Number `json:"transition_length"`
	Duration         json.Number `json:"duration"`
	Time             struct {
		Sunrise exClockTime `json:"sunrise"`
		Sunset  exClockTime `json:"sunset"`
	} `json:"time"`
	NoTime bool `json:"no_time,omitempty"`
}

type exEra struct {
	Name         string `json:"name"`
	Abbreviation string `json:"abbreviation"`
	Description  string `json:"description"`
	Settings     struct {
		UseCustomFormat bool `json:"use_custom_format"`
		ShowAsEvent     bool `json:"show_as_event"`
		EventCategoryID int  `json:"event_category_id"`
		EndsYear        bool `json:"ends_year"`
		Restart         bool `json:"restart"`
		StartingEra     bool `json:"starting_era"` // the era before every dated one: since the beginning
	} `json:"settings"`
	Date struct {
		Year     int64 `json:"year"`
		Timespan int   `json:"timespan"`
		Day      int   `json:"day"`
		Epoch    int64 `json:"epoch"`
	} `json:"date"`
}

type exCycle struct {
	Length int64    `json:"length"`
	Offset int64    `json:"offset"`
	Names  []string `json:"names"`
}

// exSettings are Fantasy-Calendar's display settings, every one its importer requires, at
// its defaults but year_zero_exists.
type exSettings struct {
	Layout            string `json:"layout"`
	ShowCurrentMonth  bool   `json:"show_current_month"`
	ShowEraAbbr       bool   `json:"show_era_abbreviation"`
	AllowView         bool   `json:"allow_view"`
	OnlyBackwards     bool   `json:"only_backwards"`
	OnlyRevealToday   bool   `json:"only_reveal_today"`
	HideMoons         bool   `json:"hide_moons"`
	HideClock         bool   `json:"hide_clock"`
	HideEvents        bool   `json:"hide_events"`
	HideEras          bool   `json:"hide_eras"`
	HideAllWeather    bool   `json:"hide_all_weather"`
	HideFutureWeather bool   `json:"hide_future_weather"`
	AddMonthNumber    bool   `json:"add_month_number"`
	AddYearDayNumber  bool   `json:"add_year_day_number"`
	YearZeroExists    bool   `json:"year_zero_exists"`
}

type exStatic struct {
	YearData struct {
		FirstDay   int          `json:"first_day"`
		Overflow   bool         `json:"overflow"`
		GlobalWeek []string     `json:"global_week"`
		Timespans  []exTimespan `json:"timespans"`
		LeapDays   []exLeapDay  `json:"leap_days"`
	} `json:"year_data"`
	Moons []exMoon `json:"moons"`
	Clock struct {
		Enabled bool `json:"enabled"`
		Render  bool `json:"render"`
		Hours   int  `json:"hours"`
		Minutes int  `json:"minutes"`
		Offset  int  `json:"offset"`
	} `json:"clock"`
	Seasons struct {
		Data      []exSeason `json:"data"`
		Locations []any      `json:"locations"`
		Global    struct {
			SeasonOffset    int64  `json:"season_offset"`
			WeatherOffset   int    `json:"weather_offset"`
			Seed            int    `json:"seed"`
			TempSys         string `json:"temp_sys"`
			WindSys         string `json:"wind_sys"`
			Cinematic       bool   `json:"cinematic"`
			EnableWeather   bool   `json:"enable_weather"`
			PeriodicSeasons bool   `json:"periodic_seasons"`
		} `json:"global_settings"`
	} `json:"seasons"`
	Eras     []exEra    `json:"eras"`
	Settings exSettings `json:"settings"`
	Cycles   struct {
		Format string    `json:"format"`
		Data   []exCycle `json:"data"`
	} `json:"cycles"`
	EventData struct {
		Categories []any `json:"categories"`
		Events     []any `json:"events"`
	} `json:"event_data"`
	Years  map[string]string `json:"years,omitempty"`
	Suffix string            `json:"suffix,omitempty"`
	Format string            `json:"format,omitempty"` // Kanka's date format
}

type exDynamic struct {
	Year           int64  `json:"year"`
	Timespan       int    `json:"timespan"`
	Day            int    `json:"day"`
	Epoch          int64  `json:"epoch"`
	Hour           int    `json:"hour"`
	Minute         int    `json:"minute"`
	CustomLocation bool   `json:"custom_location"`
	Location       string `json:"location"`
}

var hexColour = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// namedColours are the hex values of the colour names Kanka offers for moons.
var namedColours = map[string]string{
	"white": "#ffffff", "grey": "#808080", "gray": "#808080", "black": "#000000", "red": "#ff0000",
	"orange": "#ffa500", "yellow": "#ffff00", "green": "#008000", "blue": "#0000ff", "purple": "#800080",
	"pink": "#ffc0cb", "brown": "#a52a2a", "aqua": "#00ffff", "navy": "#000080", "teal": "#008080",
	"maroon": "#800000", "olive": "#808000", "lime": "#00ff00", "silver": "#c0c0c0",
}

// ExportFantasyCalendar writes the calendar c (with its name, current date and, when it has a
// clock, time) as a Fantasy-Calendar export, with events (the calendar's reminders) as its
// events.
func (c *Calendar) ExportFantasyCalendar(name string, date Date, t Time, events ...ImportedEvent) (Export, error) {
	def := c.def
	// Text is HTML-escaped as Fantasy-Calendar writes its exports (and unescapes on import).
	esc := html.EscapeString
	escAll := func(in []string) []string {
		out := make([]string, len(in))
		for i, s := range in {
			out[i] = esc(s)
		}
		return out
	}
	out := Export{Name: esc(name), Warnings: []string{}}
	warn := func(s string) { out.Warnings = append(out.Warnings, s) }
	var st exStatic
	yd := &st.YearData
	yd.FirstDay = int(c.startOffset) + 1
	yd.Overflow = !def.WeekRestart
	yd.GlobalWeek = escAll(def.Weekdays)
	yd.Timespans = make([]exTimespan, len(def.Months))
	for i, m := range def.Months {
		typ := "month"
		if m.Type == Intercalary {
			typ = "intercalary"
		}
		yd.Timespans[i] = exTimespan{Name: esc(m.Name), Type: typ, Length: m.Length, Interval: 1, Week: escAll(m.Weekdays)}
		if len(m.Weekdays) == 0 {
			yd.Timespans[i].Week = nil
		}
		if !MonthEveryYear(m) {
			x := &yd.Timespans[i]
			if n, err := strconv.ParseInt(strings.TrimSpace(m.Interval), 10, 64); err == nil {
				x.Interval, x.Offset = n, m.Offset
			} else {
				// Fantasy-Calendar's interval is one number: the nearest it reads is the rule's
				// largest allowed interval, the whole rule travelling beside it.
				ivs, _ := parseInterval(m.Interval)
				for _, iv := range ivs {
					if !iv.exclude {
						x.Interval = iv.n
						break
					}
				}
				rule := m.Interval
				x.Offset, x.IntervalRule = m.Offset, &rule
				warn("Month " + strconv.Quote(m.Name) + " appears by the rule " + m.Interval + "; Fantasy-Calendar reads every " + strconv.FormatInt(x.Interval, 10) + " years.")
			}
		}
	}
	yd.LeapDays = []exLeapDay{}
	for _, l := range c.leaps {
		if l.monthRule {
			continue
		}
		x := exLeapDay{Name: esc(l.Name), Intercalary: l.Intercalary, Timespan: l.Month - 1, Interval: l.Interval, Offset: l.Offset,
			AddsWeekDay: l.Weekday != "", WeekDay: esc(l.Weekday), NotNumbered: l.NotNumbered}
		label := strconv.Quote(l.Name)
		m := def.Months[l.Month-1]
		if l.Day != nil {
			if l.Intercalary && m.Type == Standard {
				x.Day = l.Day
			} else if *l.Day != m.Length {
				x.AfterDay = l.Day
				warn("Leap day " + label + " comes after day " + strconv.Itoa(*l.Day) + " of its month; Fantasy-Calendar adds it at the month's end.")
			}
		}
		if l.FromYear != nil {
			x.FromYear = l.FromYear
			warn("Leap day " + label + " starts in year " + strconv.FormatInt(*l.FromYear, 10) + "; Fantasy-Calendar applies it to earlier years too.")
		}
		if l.amount > 1 {
			x.Amount = int(l.amount)
			warn("Leap day " + label + " adds " + strconv.FormatInt(l.amount, 10) + " days; Fantasy-Calendar adds one.")
		}
		yd.LeapDays = append(yd.LeapDays, x)
	}
	st.Moons = []exMoon{}
	for _, m := range def.Moons {
		cycle, _ := new(big.Rat).SetString(m.Fullmoon)
		off := new(big.Rat)
		if m.Offset != "" {
			off.SetString(m.Offset)
		}
		// Exact: the cycle's 10 decimals halved take 11, so that the import's shift - cycle/2
		// gives the offset back.
		shift := strings.TrimRight(strings.TrimRight(new(big.Rat).Add(off, new(big.Rat).Quo(cycle, big.NewRat(2, 1))).FloatString(MaxMoonDecimals+1), "0"), ".")
		g := moonGranularity(m)
		x := exMoon{Name: esc(m.Name), Cycle: json.Number(m.Fullmoon), Shift: json.Number(shift), Granularity: g, ID: m.ID, Color: m.Colour, Hidden: m.Hidden, Rounding: m.Rounding}
		if len(m.CustomCycle) > 0 {
			x.Rounding = "round" // unread: a custom cycle gives each day its phase
		} else if m.Rounding == "" {
			x.Rounding, x.Instant = "floor", true
			warn("Moon " + strconv.Quote(m.Name) + ": its phases begin on the day their instant falls on; Fantasy-Calendar rounds it (floor: up to a day later).")
		}
		if len(m.CustomCycle) > 0 {
			phases := make([]string, len(m.CustomCycle))
			for i, p := range m.CustomCycle { // Fantasy-Calendar counts from the new moon
				phases[i] = strconv.Itoa((p + g/2) % g)
			}
			x.CustomPhase, x.CustomCycle = true, strings.Join(phases, ",")
		}
		if g > 32 {
			warn("Moon " + strconv.Quote(m.Name) + " shows " + strconv.Itoa(g) + " phases; some importers of Fantasy-Calendar exports take at most 32.")
		}
		if !hexColour.MatchString(m.Colour) {
			named := esc(m.Colour)
			x.Colour, x.Color = &named, "#ffffff"
			if hex, ok := namedColours[strings.ToLower(strings.TrimSpace(m.Colour))]; ok {
				x.Color = hex
			}
		}
		st.Moons = append(st.Moons, x)
	}
	st.Clock.Hours, st.Clock.Minutes = 24, 60
	if k := def.Clock; k != nil {
		st.Clock.Enabled, st.Clock.Render = true, true
		st.Clock.Hours, st.Clock.Minutes, st.Clock.Offset = k.Hours, k.Minutes, k.Offset
	}
	st.Seasons.Data = []exSeason{}
	st.Seasons.Locations = []any{}
	st.Seasons.Global.TempSys, st.Seasons.Global.WindSys = "metric", "metric"
	st.Seasons.Global.PeriodicSeasons, st.Seasons.Global.SeasonOffset = def.PeriodicSeasons, def.SeasonOffset
	for _, s := range def.Seasons {
		x := exSeason{Name: esc(s.Name), Duration: "0"}
		if def.PeriodicSeasons {
			x.Duration, x.TransitionLength = json.Number(orZero(s.Duration)), json.Number(orZero(s.Transition))
		} else {
			ts, day := s.Month-1, s.Day
			x.Timespan, x.Day = &ts, &day
			// Days from this season's start to the next one's in a normal year: the length
			// Fantasy-Calendar's seasons carry.
			start := c.cumNormal[s.Month-1] + int64(s.Day)
			tl := c.yearLen
			for _, o := range c.seasons {
				if d := mod(c.cumNormal[o.Month-1]+int64(o.Day)-start, c.yearLen); d > 0 && d < tl {
					tl = d
				}
			}
			x.TransitionLength = json.Number(strconv.FormatInt(tl, 10))
		}
		// Fantasy-Calendar requires a sunrise and sunset: without the season's own, a quarter
		// and three quarters of the day.
		x.Time.Sunrise = exClockTime{Hour: st.Clock.Hours / 4}
		x.Time.Sunset = exClockTime{Hour: st.Clock.Hours * 3 / 4}
		x.NoTime = s.Sunrise == nil && s.Sunset == nil
		if s.Sunrise != nil {
			x.Time.Sunrise = exClockTime{Hour: s.Sunrise.Hour, Minute: s.Sunrise.Minute}
		}
		if s.Sunset != nil {
			x.Time.Sunset = exClockTime{Hour: s.Sunset.Hour, Minute: s.Sunset.Minute}
		}
		st.Seasons.Data = append(st.Seasons.Data, x)
	}
	st.Eras = []exEra{}
	for _, e := range def.Eras {
		var x exEra
		x.Name, x.Abbreviation = esc(e.Name), esc(e.Abbreviation)
		x.Settings.EventCategoryID = -1
		x.Settings.Restart, x.Settings.EndsYear = e.Restart, e.EndsYear
		x.Settings.StartingEra = e.Year == EarliestYear && !e.EndsYear
		x.Date.Year, x.Date.Day = e.Year, 1
		if e.EndsYear && monthHasLeapDays(def, e.Month) {
			warn("Era " + strconv.Quote(e.Name) + " ends its year in a month with leap days: Fantasy-Calendar's count of that year leaves them out.")
		}
		start := Date{Year: e.Year, Month: 1, Day: 1}
		if e.Month > 0 {
			x.Date.Timespan, x.Date.Day = e.Month-1, e.Day
			start.Month, start.Day = e.Month, e.Day
		}
		if n, err := c.DayNumber(start); err == nil {
			x.Date.Epoch = n
		}
		st.Eras = append(st.Eras, x)
	}
	st.Settings = exSettings{Layout: "grid", YearZeroExists: !def.SkipYearZero}
	st.Cycles.Format = esc(def.CycleFormat)
	st.Cycles.Data = []exCycle{}
	for _, cy := range def.Cycles {
		st.Cycles.Data = append(st.Cycles.Data, exCycle{Length: cy.Length, Offset: cy.Offset, Names: escAll(cy.Names)})
	}
	st.EventData.Categories, st.EventData.Events = []any{}, []any{}
	out.Events, out.Categories = c.exportEvents(events, warn)
	if len(def.Years) > 0 {
		st.Years = make(map[string]string, len(def.Years))
		for y, n := range def.Years {
			st.Years[strconv.FormatInt(y, 10)] = esc(n)
		}
		warn("Fantasy-Calendar has no year names; " + strconv.Itoa(len(def.Years)) + " are kept for Lorekeep only.")
	}
	if def.Suffix != "" {
		st.Suffix = esc(def.Suffix)
		warn("Fantasy-Calendar has no year suffix; it is kept for Lorekeep only.")
	}
	if def.DateFormat != "" {
		st.Format = esc(def.DateFormat)
		warn("Fantasy-Calendar has no date format (Kanka's); it is kept for Lorekeep only.")
	}
	dyn := exDynamic{Year: date.Year, Timespan: date.Month - 1, Day: date.Day, Location: "Equatorial"}
	if n, err := c.DayNumber(date); err == nil {
		dyn.Epoch = n
	}
	if def.Clock != nil {
		dyn.Hour, dyn.Minute = t.Hour, t.Minute
	}
	var err error
	if out.StaticData, err = json.Marshal(st); err != nil {
		return Export{}, err
	}
	if out.DynamicData, err = json.Marshal(dyn); err != nil {
		return Export{}, err
	}
	return out, nil
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// monthHasLeapDays reports whether a leap rule adds days to month m (1-based).
func monthHasLeapDays(def Definition, m int) bool {
	if def.HasLeapYear && def.LeapYearMonth == m {
		return true
	}
	for _, l := range def.LeapDays {
		if l.Month == m {
			return true
		}
	}
	return false
}
