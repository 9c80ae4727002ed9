package store

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

type calendarItem struct {
	layout.MetaAttrs
	layout.OwnerAttrs
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
	it := calendarItem{
		MetaAttrs:  layout.ToMetaAttrs(layout.CampaignPK(c.CampaignID), layout.RecordSK(layout.CalendarPrefix, c.ID), c.Meta),
		OwnerAttrs: toOwnerAttrs(c.Owner),
		Date:       c.Date.String(), Weekdays: c.Weekdays, Epochs: c.Epochs, Suffix: c.Suffix,
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

// GetCalendar reads one calendar of the campaign; ErrNotFound when there is none.
func (s *Store) GetCalendar(ctx context.Context, cid, id int64) (*timeline.Calendar, error) {
	return getRecord(ctx, s, layout.CampaignPK(cid), layout.RecordSK(layout.CalendarPrefix, id), calendarItem.calendar)
}

// ListCalendars reads one page of the campaign's calendars, ordered by id.
func (s *Store) ListCalendars(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[timeline.Calendar], error) {
	if onlyName(f) { // the name shards answer it (names.go)
		return listByName(ctx, s, cid, layout.CalendarKind, f.Name, !hidePrivate, p, calendarItem.calendar)
	}
	l := listSpec{ranges: ownerRanges(layout.CalendarPrefix, cid, !hidePrivate)}
	l.filter(f)
	return listPage(ctx, s, l, p, calendarItem.calendar)
}

// CreateCalendar stores a new calendar and its entity in one transaction, with ids from the
// campaign's sequences: two round trips.
func (s *Store) CreateCalendar(ctx context.Context, c *timeline.Calendar) error {
	return s.createOwner(ctx, layout.CalendarKind, &c.Meta, &c.Owner, func() any { return toCalendarItem(c) })
}

// UpdateCalendar writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise). The entity and the totals follow in the same transaction.
func (s *Store) UpdateCalendar(ctx context.Context, prev, next *timeline.Calendar) error {
	return s.updateOwner(ctx, layout.CalendarKind, &prev.Meta, &next.Meta, &prev.Owner, &next.Owner, func() any { return toCalendarItem(next) })
}

// DeleteCalendar moves a calendar to the trash (trash.go): the events of other entities that
// use it are hidden with it (put back by a restore); its own entity's events and notes stay,
// unreachable, until the purge.
func (s *Store) DeleteCalendar(ctx context.Context, c *timeline.Calendar) error {
	return s.trashOwner(ctx, layout.CalendarKind, &c.Meta, &c.Owner, toCalendarItem(c))
}

// ResumeCalendarDelete finishes a delete of calendar id that failed after its first step; it
// reports whether there was one.
func (s *Store) ResumeCalendarDelete(ctx context.Context, cid, id int64) (bool, error) {
	return s.resumeDelete(ctx, cid, layout.CalendarPrefix, id)
}

// deleteCalendarEvents deletes the entity events of other entities that use calendar calID,
// found by their day links in its partition and read consistently (the calendar's own entity's
// events go with its entity): each with its copies and counts, in transactions of at most 100
// items run concurrently, conditional on the version read. Then the partition goes, with the
// links and their counters.
func (s *Store) deleteCalendarEvents(ctx context.Context, cid, calID, calEntityID int64) error {
	return apperr.RetryConflicts(ctx, func() error {
		var links []layout.DayLinkItem // every item of the calendar's partition, keys only
		err := s.table.Get("pk", layout.CalendarPK(cid, calID)).Project("pk", "sk", "entity_id", "id").Consistent(true).All(ctx, &links)
		if err != nil {
			return layout.Wrap(err)
		}
		var keys []layout.ItemKey
		for _, l := range links {
			if (strings.HasPrefix(l.SK, layout.DayLinkPrefix) || strings.HasPrefix(l.SK, layout.RecurLinkPrefix)) && l.EntityID != calEntityID {
				for _, sk := range childHomeSKs(layout.EventPrefix, l.ID) {
					keys = append(keys, layout.ItemKey{PK: layout.EntityPK(cid, l.EntityID), SK: sk})
				}
			}
		}
		items, err := s.getItems(ctx, keys...)
		if err != nil {
			return err
		}
		var txs []*txBuilder
		for _, raw := range items {
			var it layout.EventItem
			if err := dynamo.UnmarshalItem(raw, &it); err != nil {
				return err
			}
			if it.CalendarID != calID {
				continue
			}
			// An event writes at most 3 items, its related copy, 2 counters, its sync pointer
			// and its tombstone.
			if len(txs) == 0 || txs[len(txs)-1].size()+10 > maxTx {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			ev := it.Event()
			b.remove(eventSlots(&ev), it.Version)
			b.syncMove(eventRef(&ev), nil) // its entity lives on: its list learns of the delete
		}
		if err := runTxs(ctx, txs); err != nil {
			return err
		}
		all := make([]dynamo.Keyed, len(links)) // the links and their counters
		for i, l := range links {
			all[i] = dynamo.Keys{l.PK, l.SK}
		}
		return s.batchDelete(ctx, all)
	})
}
