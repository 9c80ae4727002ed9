package store

import (
	"context"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

func toDayWeatherItem(w *timeline.DayWeather) layout.DayWeatherItem {
	return layout.DayWeatherItem{MetaAttrs: layout.ToMetaAttrs(layout.CalendarPK(w.CampaignID, w.CalendarID), layout.RecordSK(layout.WeatherPrefix, w.ID), w.Meta),
		CalendarID: w.CalendarID, Year: w.Date.Year, Month: w.Date.Month, Day: w.Date.Day,
		Weather: w.Weather, Temperature: w.Temperature, Precipitation: w.Precipitation, Wind: w.Wind,
		Effect: w.Effect, Name: w.Name, Visibility: string(w.Visibility)}
}

func dayWeatherSlots(w *timeline.DayWeather) []layout.Slot {
	return layout.ChildSlots(layout.WeatherPrefix, layout.CalendarPK(w.CampaignID, w.CalendarID), w.ID, w.CreatedBy, w.Visibility, false)
}

// putWeatherDay writes w's day key; taken, it must not exist (the day's uniqueness), failing
// with a 422 on day.
func putWeatherDay(b *txBuilder, w *timeline.DayWeather, fresh bool) {
	it := toDayWeatherItem(w)
	it.SK = layout.WeatherDaySK(w.Date)
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
	var wi layout.DayWeatherItem
	var homes []layout.ItemKey
	for _, sk := range childHomeSKs(layout.WeatherPrefix, id) {
		homes = append(homes, layout.ItemKey{PK: layout.CalendarPK(cid, calID), SK: sk})
	}
	if err := s.getPair(ctx, layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.CalendarPrefix, calID)}, homes, &ci, &wi); err != nil {
		return nil, nil, err
	}
	c, w := ci.calendar(), wi.DayWeather()
	return &c, &w, nil
}

// ListDayWeather reads one page of a calendar's weathers that the caller's visibility scope
// allows, ordered by id.
func (s *Store) ListDayWeather(ctx context.Context, cid, calID int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.DayWeather], error) {
	l := listSpec{ranges: childRanges(layout.WeatherPrefix, layout.CalendarPK(cid, calID), a)}
	l.filter(f)
	return listPage(ctx, s, l, p, layout.DayWeatherItem.DayWeather)
}

// DayWeatherBetween reads the weathers of the days from..to (both included) of a calendar, by
// their day keys in one Query (a day view: at most one item a day); the caller filters them by
// visibility.
func (s *Store) DayWeatherBetween(ctx context.Context, cid, calID int64, from, to calengine.Date) ([]timeline.DayWeather, error) {
	var items []layout.DayWeatherItem
	err := s.table.Get("pk", layout.CalendarPK(cid, calID)).Range("sk", dynamo.Between, layout.WeatherDaySK(from), layout.WeatherDaySK(to)).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, layout.Wrap(err)
	}
	out := make([]timeline.DayWeather, len(items))
	for i, it := range items {
		out[i] = it.DayWeather()
	}
	return out, nil
}

// CreateDayWeather stores a new weather, on condition that its calendar still exists and its
// day has no weather yet.
func (s *Store) CreateDayWeather(ctx context.Context, w *timeline.DayWeather) error {
	return s.createChild(ctx, &w.Meta, "calweather", func() any { return toDayWeatherItem(w) }, func() []layout.Slot { return dayWeatherSlots(w) },
		s.exists(layout.CampaignPK(w.CampaignID), layout.RecordSK(layout.CalendarPrefix, w.CalendarID), apperr.ErrNotFound),
		func(b *txBuilder) { putWeatherDay(b, w, true) },
		synced(nil, func() *layout.SyncRef { return weatherRef(w) }))
}

// UpdateDayWeather writes next over prev if nobody wrote since prev was read and the calendar
// still exists; a new day moves the day key (the new day must be free).
func (s *Store) UpdateDayWeather(ctx context.Context, prev, next *timeline.DayWeather) error {
	return s.updateChild(ctx, &prev.Meta, &next.Meta, func() any { return toDayWeatherItem(next) },
		func() []layout.Slot { return dayWeatherSlots(prev) }, func() []layout.Slot { return dayWeatherSlots(next) },
		s.exists(layout.CampaignPK(next.CampaignID), layout.RecordSK(layout.CalendarPrefix, next.CalendarID), apperr.ErrNotFound),
		func(b *txBuilder) {
			moved := prev.Date != next.Date
			if moved {
				b.del(b.s.table.Delete("pk", layout.CalendarPK(prev.CampaignID, prev.CalendarID)).Range("sk", layout.WeatherDaySK(prev.Date)))
			}
			putWeatherDay(b, next, moved)
		},
		synced(func() *layout.SyncRef { return weatherRef(prev) }, func() *layout.SyncRef { return weatherRef(next) }))
}

// DeleteDayWeather deletes a weather (its copies, counts and day key) if nobody wrote since it
// was read.
func (s *Store) DeleteDayWeather(ctx context.Context, w *timeline.DayWeather) error {
	return s.deleteChild(ctx, &w.Meta, dayWeatherSlots(w), func(b *txBuilder) {
		b.del(b.s.table.Delete("pk", layout.CalendarPK(w.CampaignID, w.CalendarID)).Range("sk", layout.WeatherDaySK(w.Date)))
	}, synced(func() *layout.SyncRef { return weatherRef(w) }, nil))
}
