// Package calendarweather is Kanka's calendar_weather: a calendar's manual weather, one a day,
// under /api/1.0/campaigns/{campaign_id}/calendars/{id}/calendar_weather. Readers of the
// calendar read those whose visibility lets them (as notes); members write them, as they write
// the calendar. The day view (package calendardays) shows the day's weather in the same wire
// shape (calwire.DayWeather). Rules live in domain/timeline (DayWeather), storage in
// calstore.
package calendarweather

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Store is the storage calendar_weather uses (calstore serves it).
type Store interface {
	httpapi.GoneReader
	calwire.Getter
	GetDayWeatherAndCalendar(ctx context.Context, cid, calID, id int64) (*timeline.Calendar, *timeline.DayWeather, error)
	ListDayWeather(ctx context.Context, cid, calID int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.DayWeather], error)
	CreateDayWeather(ctx context.Context, w *timeline.DayWeather) error
	UpdateDayWeather(ctx context.Context, prev, next *timeline.DayWeather) error
	DeleteDayWeather(ctx context.Context, w *timeline.DayWeather) error
}

type handlers struct{ st Store }

// Register mounts the calendar_weather routes.
func Register(api *httpapi.API, kernel *store.Store) {
	st := calstore.New(kernel)
	h := handlers{st: st}
	const collection = "/calendars/{id}/calendar_weather"
	httpapi.MountList(api, collection, httpapi.List[timeline.DayWeather, *timeline.Calendar, calwire.DayWeather]{
		Parent:   func(r *httpapi.Request) (*timeline.Calendar, error) { return calwire.Visible(r, h.st) },
		ParentID: func(c *timeline.Calendar) int64 { return c.ID }, Gone: domain.GoneWeather, Tombstones: st,
		Filters: domain.FilterAuthors | domain.FilterSync,
		Read: func(r *httpapi.Request, c *timeline.Calendar, f domain.Filter, page domain.PageRequest) (domain.Page[timeline.DayWeather], error) {
			return st.ListDayWeather(r.Context(), c.CampaignID, c.ID, r.Access, f, page)
		},
		Render: calwire.RenderDayWeather,
		Ahead:  httpapi.ReadAhead(calstore.ReadWeatherList, "", "id"),
	})
	httpapi.Mount(api, collection, collection+"/{weather_id}", httpapi.Resource[timeline.DayWeather, *timeline.DayWeather, *timeline.Calendar]{
		Parent: func(r *httpapi.Request) (*timeline.Calendar, error) {
			return calwire.Visible(r, h.st)
		},
		Visible: h.visibleWeather,
		New: func(_ *httpapi.Request, c *timeline.Calendar) *timeline.DayWeather {
			return &timeline.DayWeather{CalendarID: c.ID}
		},
		Apply: func(_ *httpapi.Request, in domain.Input, c *timeline.Calendar, _, next *timeline.DayWeather) error {
			eng, err := c.Engine()
			if err != nil {
				return err
			}
			return next.Apply(in, eng)
		},
		Create: h.st.CreateDayWeather, Update: h.st.UpdateDayWeather, Delete: h.st.DeleteDayWeather,
		Render: func(_ *httpapi.Request, w *timeline.DayWeather) (any, error) { return calwire.RenderDayWeather(w), nil },
		Item:   httpapi.ReadAhead(calstore.ReadWeather, "weather_id", "id"), Collection: httpapi.ReadAhead(calstore.ReadCalendar, "id", ""),
	})
}

// visibleWeather reads a weather and its calendar in one round trip: the calendar must be
// visible and the weather's visibility must let the caller see it.
func (h handlers) visibleWeather(r *httpapi.Request) (*timeline.Calendar, *timeline.DayWeather, error) {
	calID, err := r.PathID("id")
	if err != nil {
		return nil, nil, err
	}
	id, err := r.PathID("weather_id")
	if err != nil {
		return nil, nil, err
	}
	c, w, err := h.st.GetDayWeatherAndCalendar(r.Context(), r.Access.CampaignID, calID, id)
	if err == nil && (!r.Access.CanSee(c.IsPrivate) || !r.Access.CanSeeVisibility(w.Visibility, w.CreatedBy)) {
		err = apperr.ErrNotFound
	}
	return c, w, err
}
