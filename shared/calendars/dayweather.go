package calendars

import (
	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Kanka's calendar_weather: a calendar's manual weather, one a day. Readers of the calendar read
// those whose visibility lets them (as notes); members write them, as they write the calendar.

// dayWeatherJSON is Kanka's CalendarWeatherResource.
type dayWeatherJSON struct {
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

func renderDayWeather(w *timeline.DayWeather) dayWeatherJSON {
	out := dayWeatherJSON{ID: w.ID, CalendarID: w.CalendarID, Weather: w.Weather, Temperature: w.Temperature,
		Precipitation: w.Precipitation, Wind: w.Wind, Effect: w.Effect, Day: w.Date.Day, Month: w.Date.Month,
		Year: w.Date.Year, Visibility: string(w.Visibility), VisibilityID: w.Visibility.ID(), AuditJSON: httpapi.RenderAudit(w.Meta)}
	if w.Name != "" {
		out.Name = &w.Name
	}
	return out
}

// mountWeather declares the calendar_weather routes.
func (h handlers) mountWeather(api *httpapi.API) {
	const collection = "/calendars/{id}/calendar_weather"
	api.Handle("GET", collection, h.listWeather, httpapi.ReadAhead(domain.ReadWeatherList, "", "id"))
	httpapi.Mount(api, collection, collection+"/{weather_id}", httpapi.Kind[timeline.DayWeather, *timeline.DayWeather, *timeline.Calendar]{
		Parent: func(r *httpapi.Request) (*timeline.Calendar, error) {
			_, c, err := h.visibleCalendar(r)
			return c, err
		},
		Visible: h.visibleWeather,
		New: func(_ *httpapi.Request, c *timeline.Calendar) *timeline.DayWeather {
			return &timeline.DayWeather{WeatherDay: timeline.WeatherDay{CalendarID: c.ID}}
		},
		Apply: func(_ *httpapi.Request, in domain.Input, c *timeline.Calendar, _, next *timeline.DayWeather) error {
			eng, err := c.Engine()
			if err != nil {
				return err
			}
			return next.Apply(in, eng)
		},
		Create: h.st.CreateDayWeather, Update: h.st.UpdateDayWeather, Delete: h.st.DeleteDayWeather,
		Render: func(_ *httpapi.Request, w *timeline.DayWeather) (any, error) { return renderDayWeather(w), nil },
		Item:   httpapi.ReadAhead(domain.ReadWeather, "weather_id", "id"), Collection: httpapi.ReadAhead(domain.ReadCalendar, "id", ""),
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

func (h handlers) listWeather(r *httpapi.Request) (httpapi.Reply, error) {
	_, c, err := h.visibleCalendar(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if reply, ok, err := r.Deletions(h.st, domain.GoneWeather, c.ID); ok {
		return reply, err
	}
	f, err := r.Filter(domain.FilterAuthors | domain.FilterSync)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListDayWeather(r.Context(), c.CampaignID, c.ID, r.Access, f, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Page(res, page, renderDayWeather), nil
}
