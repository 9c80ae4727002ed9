// Package calstore is the calendars family's storage: the calendar item (the engine's whole
// structure, as DynamoDB attributes) and the calendar's manual weather, on the kernel (package
// store). Calendars are an owner kind that does not nest: home CALENDAR#id, public copy
// PUB#CALENDAR#id, entity of type calendar; a delete moves the calendar to the trash, with the
// events of other entities that use it (the kernel's calendar links). A day's weather lives in
// its calendar's partition, placed by visibility, with a day key that makes it the day's only
// one.
package calstore

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store"
)

type calendarItem struct {
	store.MetaAttrs
	store.OwnerAttrs
	Date           string            `dynamo:"date"`
	Months         []monthAttr       `dynamo:"months"`
	Weekdays       []string          `dynamo:"weekdays"`
	Years          map[string]string `dynamo:"years,omitempty"` // year number (decimal) -> name
	Seasons        []seasonAttr      `dynamo:"seasons,omitempty"`
	Moons          []moonAttr        `dynamo:"moons,omitempty"`
	Epochs         []string          `dynamo:"epochs,omitempty"`
	Suffix         string            `dynamo:"suffix,omitempty"`
	StartOffset    int               `dynamo:"start_offset"`
	SkipYearZero   bool              `dynamo:"skip_year_zero"`
	WeekRestart    bool              `dynamo:"week_restart,omitempty"`
	Periodic       bool              `dynamo:"periodic_seasons,omitempty"`
	SeasonOffset   int64             `dynamo:"season_offset,omitempty"`
	HasLeapYear    bool              `dynamo:"has_leap_year"`
	LeapYearAmount int               `dynamo:"leap_year_amount"`
	LeapYearMonth  int               `dynamo:"leap_year_month"`
	LeapYearOffset int               `dynamo:"leap_year_offset"`
	LeapYearStart  int64             `dynamo:"leap_year_start"`
	LeapDays       []leapDayAttr     `dynamo:"leap_days,omitempty"`
	Eras           []eraAttr         `dynamo:"eras,omitempty"`
	// The clock, the current time on it and the year cycles: absent on calendars without them
	// (and on every calendar written before they existed).
	Clock       *clockAttr  `dynamo:"clock,omitempty"`
	Hour        int         `dynamo:"hour,omitempty"`
	Minute      int         `dynamo:"minute,omitempty"`
	Cycles      []cycleAttr `dynamo:"cycles,omitempty"`
	CycleFormat string      `dynamo:"cycle_format,omitempty"`
	// Kanka's date format: absent when unset (Kanka's default).
	Format string `dynamo:"format,omitempty"`
	// The procedural weather's climate and seed: absent without one.
	Climate     []climateAttr `dynamo:"climate,omitempty"`
	WeatherSeed int64         `dynamo:"weather_seed,omitempty"`
}

type climateAttr struct {
	TempLow                int `dynamo:"temp_low"`
	TempHigh               int `dynamo:"temp_high"`
	Precipitation          int `dynamo:"precipitation"`
	PrecipitationIntensity int `dynamo:"precipitation_intensity"`
}

type clockAttr struct {
	Hours   int `dynamo:"hours"`
	Minutes int `dynamo:"minutes"`
	Offset  int `dynamo:"offset"`
}

type cycleAttr struct {
	Length int64    `dynamo:"length"`
	Offset int64    `dynamo:"offset"`
	Names  []string `dynamo:"names"`
}

type leapDayAttr struct {
	Name        string `dynamo:"name,omitempty"`
	Month       int    `dynamo:"month"`
	Day         *int   `dynamo:"day,omitempty"`
	Interval    string `dynamo:"interval"`
	Offset      int64  `dynamo:"offset"`
	FromYear    *int64 `dynamo:"from_year,omitempty"`
	Intercalary bool   `dynamo:"intercalary"`
	Amount      int    `dynamo:"amount,omitempty"`
	Weekday     string `dynamo:"weekday,omitempty"`
	NotNumbered bool   `dynamo:"not_numbered,omitempty"`
}

type eraAttr struct {
	Name         string `dynamo:"name"`
	Abbreviation string `dynamo:"abbreviation,omitempty"`
	Year         int64  `dynamo:"year"`
	Restart      bool   `dynamo:"restart"`
	Month        int    `dynamo:"month,omitempty"`
	Day          int    `dynamo:"day,omitempty"`
	EndsYear     bool   `dynamo:"ends_year,omitempty"` // absent on eras written before it existed
}

type monthAttr struct {
	Name   string `dynamo:"name"`
	Length int    `dynamo:"length"`
	Type   string `dynamo:"type"`
	// The structure beyond Kanka's: absent on months without it (and on older records).
	Interval string   `dynamo:"interval,omitempty"`
	Offset   int64    `dynamo:"offset,omitempty"`
	Weekdays []string `dynamo:"weekdays,omitempty"`
}

type seasonAttr struct {
	Name  string `dynamo:"name"`
	Month int    `dynamo:"month"`
	Day   int    `dynamo:"day"`
	// Periodic seasons' lengths (decimal text) and sunrise and sunset ("H:MM"): absent when unset.
	Duration   string `dynamo:"duration,omitempty"`
	Transition string `dynamo:"transition,omitempty"`
	Sunrise    string `dynamo:"sunrise,omitempty"`
	Sunset     string `dynamo:"sunset,omitempty"`
}

func timeAttr(t *calengine.Time) string {
	if p := calengine.TimeOfDayText(t); p != nil {
		return *p
	}
	return ""
}

func attrTime(s string) *calengine.Time {
	if t, ok := calengine.ParseTimeOfDay(s); ok && s != "" {
		return &t
	}
	return nil
}

type moonAttr struct {
	ID       int     `dynamo:"id"`
	Name     string  `dynamo:"name"`
	Fullmoon string  `dynamo:"fullmoon"` // the decimal text as sent
	Offset   decimal `dynamo:"offset"`
	Colour   string  `dynamo:"colour"`
	// The display beyond Kanka's: absent on moons without it (and on older records).
	Granularity int    `dynamo:"granularity,omitempty"`
	CustomCycle []int  `dynamo:"custom_cycle,omitempty"`
	Hidden      bool   `dynamo:"hidden,omitempty"`
	Rounding    string `dynamo:"rounding,omitempty"`
}

// decimal is a decimal text stored as a DynamoDB number, so records written when moon offsets
// were integers read unchanged.
type decimal string

func (d decimal) MarshalDynamo() (types.AttributeValue, error) {
	if d == "" {
		return &types.AttributeValueMemberN{Value: "0"}, nil
	}
	return &types.AttributeValueMemberN{Value: string(d)}, nil
}

func (d *decimal) UnmarshalDynamo(av types.AttributeValue) error {
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return errors.New("store: a decimal must be a number")
	}
	*d = decimal(n.Value)
	return nil
}

func toCalendarItem(c *timeline.Calendar) calendarItem {
	meta, owner := store.OwnerHome(store.CalendarKind, c.Meta, c.Owner)
	it := calendarItem{
		MetaAttrs: meta, OwnerAttrs: owner,
		Date: c.Date.String(), Weekdays: c.Weekdays, Epochs: c.Epochs, Suffix: c.Suffix,
		StartOffset: c.StartOffset, SkipYearZero: c.SkipYearZero, HasLeapYear: c.HasLeapYear, WeekRestart: c.WeekRestart,
		Periodic: c.PeriodicSeasons, SeasonOffset: c.SeasonOffset,
		LeapYearAmount: c.LeapYearAmount, LeapYearMonth: c.LeapYearMonth, LeapYearOffset: c.LeapYearOffset,
		LeapYearStart: c.LeapYearStart,
	}
	it.Months = make([]monthAttr, len(c.Months))
	for i, m := range c.Months {
		it.Months[i] = monthAttr{Name: m.Name, Length: m.Length, Type: string(m.Type), Interval: m.Interval, Offset: m.Offset, Weekdays: m.Weekdays}
	}
	if len(c.Years) > 0 {
		it.Years = make(map[string]string, len(c.Years))
		for y, n := range c.Years {
			it.Years[strconv.FormatInt(y, 10)] = n
		}
	}
	for _, s := range c.Seasons {
		it.Seasons = append(it.Seasons, seasonAttr{Name: s.Name, Month: s.Month, Day: s.Day, Duration: s.Duration, Transition: s.Transition,
			Sunrise: timeAttr(s.Sunrise), Sunset: timeAttr(s.Sunset)})
	}
	for _, m := range c.Moons {
		it.Moons = append(it.Moons, moonAttr{ID: m.ID, Name: m.Name, Fullmoon: m.Fullmoon, Offset: decimal(m.Offset), Colour: m.Colour,
			Granularity: m.Granularity, CustomCycle: m.CustomCycle, Hidden: m.Hidden, Rounding: m.Rounding})
	}
	for _, l := range c.LeapDays {
		it.LeapDays = append(it.LeapDays, leapDayAttr{Name: l.Name, Month: l.Month, Day: l.Day, Interval: l.Interval,
			Offset: l.Offset, FromYear: l.FromYear, Intercalary: l.Intercalary, Amount: l.Amount, Weekday: l.Weekday, NotNumbered: l.NotNumbered})
	}
	for _, e := range c.Eras {
		it.Eras = append(it.Eras, eraAttr{Name: e.Name, Abbreviation: e.Abbreviation, Year: e.Year, Restart: e.Restart, Month: e.Month, Day: e.Day, EndsYear: e.EndsYear})
	}
	if k := c.Clock; k != nil {
		it.Clock = &clockAttr{Hours: k.Hours, Minutes: k.Minutes, Offset: k.Offset}
		it.Hour, it.Minute = c.Time.Hour, c.Time.Minute
	}
	for _, cy := range c.Cycles {
		it.Cycles = append(it.Cycles, cycleAttr{Length: cy.Length, Offset: cy.Offset, Names: cy.Names})
	}
	it.CycleFormat, it.Format = c.CycleFormat, c.Format
	if k := c.Climate; k != nil {
		it.WeatherSeed = k.Seed
		for _, cs := range k.Seasons {
			it.Climate = append(it.Climate, climateAttr(cs))
		}
	}
	return it
}

func (it calendarItem) calendar() timeline.Calendar {
	c := timeline.Calendar{
		Meta: it.Meta(), Owner: it.Owner(), Weekdays: it.Weekdays, Epochs: it.Epochs, Suffix: it.Suffix, StartOffset: it.StartOffset,
		SkipYearZero: it.SkipYearZero, HasLeapYear: it.HasLeapYear, LeapYearAmount: it.LeapYearAmount, WeekRestart: it.WeekRestart,
		PeriodicSeasons: it.Periodic, SeasonOffset: it.SeasonOffset,
		LeapYearMonth: it.LeapYearMonth, LeapYearOffset: it.LeapYearOffset, LeapYearStart: it.LeapYearStart,
	}
	c.Date, _ = calengine.ParseDate(it.Date)
	c.Months = make([]calengine.Month, len(it.Months))
	for i, m := range it.Months {
		c.Months[i] = calengine.Month{Name: m.Name, Length: m.Length, Type: calengine.MonthType(m.Type), Interval: m.Interval, Offset: m.Offset, Weekdays: m.Weekdays}
	}
	c.Years = make(map[int64]string, len(it.Years))
	for y, n := range it.Years {
		if k, err := strconv.ParseInt(y, 10, 64); err == nil {
			c.Years[k] = n
		}
	}
	for _, s := range it.Seasons {
		c.Seasons = append(c.Seasons, calengine.Season{Name: s.Name, Month: s.Month, Day: s.Day, Duration: s.Duration, Transition: s.Transition,
			Sunrise: attrTime(s.Sunrise), Sunset: attrTime(s.Sunset)})
	}
	for _, m := range it.Moons {
		c.Moons = append(c.Moons, calengine.Moon{ID: m.ID, Name: m.Name, Fullmoon: m.Fullmoon, Offset: string(m.Offset), Colour: m.Colour,
			Granularity: m.Granularity, CustomCycle: m.CustomCycle, Hidden: m.Hidden, Rounding: m.Rounding})
	}
	for _, l := range it.LeapDays {
		c.LeapDays = append(c.LeapDays, calengine.LeapDay{Name: l.Name, Month: l.Month, Day: l.Day, Interval: l.Interval,
			Offset: l.Offset, FromYear: l.FromYear, Intercalary: l.Intercalary, Amount: l.Amount, Weekday: l.Weekday, NotNumbered: l.NotNumbered})
	}
	for _, e := range it.Eras {
		c.Eras = append(c.Eras, calengine.Era{Name: e.Name, Abbreviation: e.Abbreviation, Year: e.Year, Restart: e.Restart, Month: e.Month, Day: e.Day, EndsYear: e.EndsYear})
	}
	if k := it.Clock; k != nil {
		c.Clock = &calengine.Clock{Hours: k.Hours, Minutes: k.Minutes, Offset: k.Offset}
		c.Time = calengine.Time{Hour: it.Hour, Minute: it.Minute}
	}
	for _, cy := range it.Cycles {
		c.Cycles = append(c.Cycles, calengine.Cycle{Length: cy.Length, Offset: cy.Offset, Names: cy.Names})
	}
	c.CycleFormat, c.Format = it.CycleFormat, it.Format
	if len(it.Climate) > 0 {
		k := calengine.Climate{Seed: it.WeatherSeed}
		for _, cs := range it.Climate {
			k.Seasons = append(k.Seasons, calengine.ClimateSeason(cs))
		}
		c.Climate = &k
	}
	return c
}

var calendars = store.OwnerKind[timeline.Calendar, calendarItem]{
	Kind: store.CalendarKind, Item: toCalendarItem, Record: calendarItem.calendar, Trashed: true,
	Of: func(c *timeline.Calendar) (*domain.Meta, *domain.Owner) { return &c.Meta, &c.Owner },
}

type dayWeatherItem struct {
	store.MetaAttrs
	CalendarID    int64  `dynamo:"calendar_id"`
	Year          int64  `dynamo:"year"`
	Month         int    `dynamo:"month"`
	Day           int    `dynamo:"day"`
	Weather       string `dynamo:"weather"`
	Temperature   string `dynamo:"temperature,omitempty"`
	Precipitation string `dynamo:"precipitation,omitempty"`
	Wind          string `dynamo:"wind,omitempty"`
	Effect        string `dynamo:"effect,omitempty"`
	Name          string `dynamo:"name,omitempty"`
	Visibility    string `dynamo:"visibility"`
}

func toDayWeatherItem(w *timeline.DayWeather) dayWeatherItem {
	return dayWeatherItem{MetaAttrs: store.VisibleChildHome(store.WeatherKind, w.CalendarID, w.Meta),
		CalendarID: w.CalendarID, Year: w.Date.Year, Month: w.Date.Month, Day: w.Date.Day,
		Weather: w.Weather, Temperature: w.Temperature, Precipitation: w.Precipitation, Wind: w.Wind,
		Effect: w.Effect, Name: w.Name, Visibility: string(w.Visibility)}
}

func (it dayWeatherItem) dayWeather() timeline.DayWeather {
	return timeline.DayWeather{Meta: it.Meta(), CalendarID: it.CalendarID,
		Date:    calengine.Date{Year: it.Year, Month: it.Month, Day: it.Day},
		Weather: it.Weather, Temperature: it.Temperature, Precipitation: it.Precipitation, Wind: it.Wind,
		Effect: it.Effect, Name: it.Name, Visibility: domain.Visibility(it.Visibility)}
}

var weathers = store.VisibleChildKind[timeline.DayWeather, dayWeatherItem]{
	Kind: store.WeatherKind, Sequence: "calweather", Item: toDayWeatherItem, Record: dayWeatherItem.dayWeather,
	Of: func(w *timeline.DayWeather) store.VisibleChild {
		return store.VisibleChild{Meta: &w.Meta, ParentID: w.CalendarID, Visibility: w.Visibility}
	},
}

// weatherDay is the day key of w: a copy of the weather at its date, one a day (its
// uniqueness), so that a day view reads its days' weather in one Query.
func weatherDay(w *timeline.DayWeather) dayWeatherItem {
	it := toDayWeatherItem(w)
	k := store.WeatherDayKey(w.CampaignID, w.CalendarID, w.Date)
	it.PK, it.SK = k.PK, k.SK
	return it
}

// Calendars is the family's storage over the kernel, whose reads and writes the family also
// uses (entities, related arrays, the calendar links).
type Calendars struct{ *store.Store }

// New wraps the kernel.
func New(st *store.Store) *Calendars { return &Calendars{st} }

// GetCalendar reads one calendar of the campaign; ErrNotFound when there is none.
func (s *Calendars) GetCalendar(ctx context.Context, cid, id int64) (*timeline.Calendar, error) {
	return calendars.Get(ctx, s.Store, cid, id)
}

// GetCalendars reads the campaign's calendars with the given ids in one batch; missing ones
// are absent from the map.
func (s *Calendars) GetCalendars(ctx context.Context, cid int64, ids []int64) (map[int64]*timeline.Calendar, error) {
	return calendars.GetMany(ctx, s.Store, cid, ids)
}

// ListCalendars reads one page of the campaign's calendars, ordered by id.
func (s *Calendars) ListCalendars(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[timeline.Calendar], error) {
	return calendars.List(ctx, s.Store, cid, f, hidePrivate, p)
}

// CreateCalendar stores a new calendar and its entity in one transaction, with ids from the
// campaign's sequences: two round trips.
func (s *Calendars) CreateCalendar(ctx context.Context, c *timeline.Calendar) error {
	return calendars.Create(ctx, s.Store, c)
}

// UpdateCalendar writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise). The entity and the totals follow in the same transaction.
func (s *Calendars) UpdateCalendar(ctx context.Context, prev, next *timeline.Calendar) error {
	return calendars.Update(ctx, s.Store, prev, next)
}

// DeleteCalendar moves a calendar to the trash: the events of other entities that use it are
// hidden with it (put back by a restore); its own entity's events and notes stay, unreachable,
// until the purge.
func (s *Calendars) DeleteCalendar(ctx context.Context, c *timeline.Calendar) error {
	return calendars.Delete(ctx, s.Store, c)
}

// ResumeCalendarDelete finishes a delete of calendar id that failed after its first step; it
// reports whether there was one.
func (s *Calendars) ResumeCalendarDelete(ctx context.Context, cid, id int64) (bool, error) {
	return calendars.ResumeDelete(ctx, s.Store, cid, id)
}

// GetDayWeatherAndCalendar reads a calendar and one of its weathers in one BatchGetItem;
// ErrNotFound unless both exist.
func (s *Calendars) GetDayWeatherAndCalendar(ctx context.Context, cid, calID, id int64) (*timeline.Calendar, *timeline.DayWeather, error) {
	var ci calendarItem
	w, err := weathers.GetWithParent(ctx, s.Store, cid, calID, id, &ci)
	if err != nil {
		return nil, nil, err
	}
	c := ci.calendar()
	return &c, w, nil
}

// ListDayWeather reads one page of a calendar's weathers that the caller's visibility scope
// allows, ordered by id.
func (s *Calendars) ListDayWeather(ctx context.Context, cid, calID int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.DayWeather], error) {
	return weathers.List(ctx, s.Store, cid, calID, a, f, p)
}

// DayWeatherBetween reads the weathers of the days from..to (both included) of a calendar, by
// their day keys in one Query (a day view: at most one item a day); the caller filters them by
// visibility.
func (s *Calendars) DayWeatherBetween(ctx context.Context, cid, calID int64, from, to calengine.Date) ([]timeline.DayWeather, error) {
	lo, hi := store.WeatherDayKey(cid, calID, from), store.WeatherDayKey(cid, calID, to)
	items, err := store.QueryBetween[dayWeatherItem](ctx, s.Store, lo.PK, lo.SK, hi.SK)
	if err != nil {
		return nil, err
	}
	out := make([]timeline.DayWeather, len(items))
	for i, it := range items {
		out[i] = it.dayWeather()
	}
	return out, nil
}

// CreateDayWeather stores a new weather, on condition that its calendar still exists and its
// day has no weather yet.
func (s *Calendars) CreateDayWeather(ctx context.Context, w *timeline.DayWeather) error {
	return weathers.Create(ctx, s.Store, w, store.Step(func(t store.Tx) { t.PutNew(weatherDay(w), timeline.WeatherDayTaken()) }))
}

// UpdateDayWeather writes next over prev if nobody wrote since prev was read and the calendar
// still exists; a new day moves the day key (the new day must be free).
func (s *Calendars) UpdateDayWeather(ctx context.Context, prev, next *timeline.DayWeather) error {
	return weathers.Update(ctx, s.Store, prev, next, store.Step(func(t store.Tx) {
		if prev.Date == next.Date {
			t.Put(weatherDay(next))
			return
		}
		t.Delete(store.WeatherDayKey(prev.CampaignID, prev.CalendarID, prev.Date))
		t.PutNew(weatherDay(next), timeline.WeatherDayTaken())
	}))
}

// DeleteDayWeather deletes a weather (its copies, counts and day key) if nobody wrote since it
// was read.
func (s *Calendars) DeleteDayWeather(ctx context.Context, w *timeline.DayWeather) error {
	return weathers.Delete(ctx, s.Store, w, store.Step(func(t store.Tx) {
		t.Delete(store.WeatherDayKey(w.CampaignID, w.CalendarID, w.Date))
	}))
}

// The reads ahead of the family's routes.
var (
	ReadCalendar     = store.RecordRead(store.CalendarKind)
	ReadCalendarList = store.ListRead(store.CalendarKind)
	ReadWeather      = store.ChildRead(store.WeatherKind) // and its calendar
	ReadWeatherList  = store.ChildListRead(store.WeatherKind)
)
