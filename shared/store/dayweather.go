package store

import (
	"context"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// A calendar's manual weather lives in the calendar's partition, placed by visibility as notes
// are (childSlots), so its list is paged like theirs and the calendar's purge removes it. Its
// day key (weatherDaySK), a copy written in the same transaction, keeps one weather a day and
// lets a day view read its days' weather with one Query.
type dayWeatherItem struct {
	metaAttrs
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
	return dayWeatherItem{metaAttrs: toMetaAttrs(calendarPK(w.CampaignID, w.CalendarID), recordSK(weatherPrefix, w.ID), w.Meta),
		CalendarID: w.CalendarID, Year: w.Date.Year, Month: w.Date.Month, Day: w.Date.Day,
		Weather: w.Weather, Temperature: w.Temperature, Precipitation: w.Precipitation, Wind: w.Wind,
		Effect: w.Effect, Name: w.Name, Visibility: string(w.Visibility)}
}

func (it dayWeatherItem) dayWeather() timeline.DayWeather {
	return timeline.DayWeather{Meta: it.meta(), WeatherDay: timeline.WeatherDay{CalendarID: it.CalendarID,
		Date:    calengine.Date{Year: it.Year, Month: it.Month, Day: it.Day},
		Weather: it.Weather, Temperature: it.Temperature, Precipitation: it.Precipitation, Wind: it.Wind,
		Effect: it.Effect, Name: it.Name, Visibility: domain.Visibility(it.Visibility)}}
}

func dayWeatherSlots(w *timeline.DayWeather) []slot {
	return childSlots(weatherPrefix, calendarPK(w.CampaignID, w.CalendarID), w.ID, w.CreatedBy, w.Visibility, false)
}

// putWeatherDay writes w's day key; taken, it must not exist (the day's uniqueness), failing
// with a 422 on day.
func putWeatherDay(b *txBuilder, w *timeline.DayWeather, fresh bool) {
	it := toDayWeatherItem(w)
	it.SK = weatherDaySK(w.Date)
	p := b.s.table.Put(it)
	if fresh {
		if b.needs == nil {
			b.needs = map[int]error{}
		}
		b.needs[b.n] = timeline.WeatherDayTaken()
		p = p.If("attribute_not_exists(pk)")
	}
	b.put(p)
}

// GetDayWeatherAndCalendar reads a calendar and one of its weathers in one BatchGetItem;
// ErrNotFound unless both exist.
func (s *Store) GetDayWeatherAndCalendar(ctx context.Context, cid, calID, id int64) (*timeline.Calendar, *timeline.DayWeather, error) {
	var ci calendarItem
	var wi dayWeatherItem
	var homes []itemKey
	for _, sk := range childHomeSKs(weatherPrefix, id) {
		homes = append(homes, itemKey{calendarPK(cid, calID), sk})
	}
	if err := s.getPair(ctx, itemKey{campaignPK(cid), recordSK(calendarPrefix, calID)}, homes, &ci, &wi); err != nil {
		return nil, nil, err
	}
	c, w := ci.calendar(), wi.dayWeather()
	return &c, &w, nil
}

// ListDayWeather reads one page of a calendar's weathers that the caller's visibility scope
// allows, ordered by id.
func (s *Store) ListDayWeather(ctx context.Context, cid, calID int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.DayWeather], error) {
	l := listSpec{ranges: childRanges(weatherPrefix, calendarPK(cid, calID), a)}
	l.filter(f)
	return listPage(ctx, s, l, p, dayWeatherItem.dayWeather)
}

// DayWeatherBetween reads the weathers of the days from..to (both included) of a calendar, by
// their day keys in one Query (a day view: at most one item a day); the caller filters them by
// visibility.
func (s *Store) DayWeatherBetween(ctx context.Context, cid, calID int64, from, to calengine.Date) ([]timeline.DayWeather, error) {
	var items []dayWeatherItem
	err := s.table.Get("pk", calendarPK(cid, calID)).Range("sk", dynamo.Between, weatherDaySK(from), weatherDaySK(to)).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, wrap(err)
	}
	out := make([]timeline.DayWeather, len(items))
	for i, it := range items {
		out[i] = it.dayWeather()
	}
	return out, nil
}

// CreateDayWeather stores a new weather, on condition that its calendar still exists and its
// day has no weather yet.
func (s *Store) CreateDayWeather(ctx context.Context, w *timeline.DayWeather) error {
	return s.createChild(ctx, &w.Meta, "calweather", func() any { return toDayWeatherItem(w) }, func() []slot { return dayWeatherSlots(w) },
		s.exists(campaignPK(w.CampaignID), recordSK(calendarPrefix, w.CalendarID), apperr.ErrNotFound),
		func(b *txBuilder) { putWeatherDay(b, w, true) },
		synced(nil, func() *syncRef { return weatherRef(w) }))
}

// UpdateDayWeather writes next over prev if nobody wrote since prev was read and the calendar
// still exists; a new day moves the day key (the new day must be free).
func (s *Store) UpdateDayWeather(ctx context.Context, prev, next *timeline.DayWeather) error {
	return s.updateChild(ctx, &prev.Meta, &next.Meta, func() any { return toDayWeatherItem(next) },
		func() []slot { return dayWeatherSlots(prev) }, func() []slot { return dayWeatherSlots(next) },
		s.exists(campaignPK(next.CampaignID), recordSK(calendarPrefix, next.CalendarID), apperr.ErrNotFound),
		func(b *txBuilder) {
			moved := prev.Date != next.Date
			if moved {
				b.del(b.s.table.Delete("pk", calendarPK(prev.CampaignID, prev.CalendarID)).Range("sk", weatherDaySK(prev.Date)))
			}
			putWeatherDay(b, next, moved)
		},
		synced(func() *syncRef { return weatherRef(prev) }, func() *syncRef { return weatherRef(next) }))
}

// DeleteDayWeather deletes a weather (its copies, counts and day key) if nobody wrote since it
// was read.
func (s *Store) DeleteDayWeather(ctx context.Context, w *timeline.DayWeather) error {
	return s.deleteChild(ctx, &w.Meta, dayWeatherSlots(w), func(b *txBuilder) {
		b.del(b.s.table.Delete("pk", calendarPK(w.CampaignID, w.CalendarID)).Range("sk", weatherDaySK(w.Date)))
	}, synced(func() *syncRef { return weatherRef(w) }, nil))
}
