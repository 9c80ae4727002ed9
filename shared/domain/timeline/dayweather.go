package timeline

import (
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// DayWeather is Kanka's calendar_weather: the weather a member wrote down for one day of a
// calendar. A calendar holds at most one per day (the store keeps the day unique); it wins over
// the calendar's procedural weather in the day view.
type DayWeather struct {
	domain.Meta
	CalendarID int64
	Date       calengine.Date
	// Weather is Kanka's weather type (a free word in Kanka's API: its form's icons are
	// suggestions); the others are free text as in Kanka.
	Weather, Temperature, Precipitation, Wind, Effect, Name string
	Visibility                                              domain.Visibility
}

// Limits of a day's weather (Kanka's columns are 191 characters; its name is at most 40).
const (
	MaxWeatherText = 191
	MaxWeatherName = 40
)

// WeatherDayTaken refuses a second weather for a day that has one (Kanka's form replaces the
// day's weather; its API would keep both, which no day view could show).
func WeatherDayTaken() error {
	return apperr.Invalid("day", "The calendar already has weather for this day; update that one instead.")
}

// Clone copies w (it holds no pointers).
func (w *DayWeather) Clone() *DayWeather { c := *w; return &c }

// Apply merges the sent fields into w and validates the result against the calendar eng of the
// path: the date must be one of its days.
func (w *DayWeather) Apply(in domain.Input, eng *calengine.Calendar) error {
	r := domain.NewReader(in)
	if f := r.Int("day", 1, maxDatePart); f.Present() {
		w.Date.Day = int(f.Value)
	}
	if f := r.Int("month", 1, maxDatePart); f.Present() {
		w.Date.Month = int(f.Value)
	}
	if f := r.Int("year", -maxEventYear, maxEventYear); f.Present() {
		w.Date.Year = f.Value
	}
	if f := r.String("weather", MaxWeatherText); f.Set {
		w.Weather = strings.TrimSpace(f.Value)
	}
	for _, t := range []struct {
		name string
		to   *string
	}{{"temperature", &w.Temperature}, {"precipitation", &w.Precipitation}, {"wind", &w.Wind}, {"effect", &w.Effect}} {
		if f := r.String(t.name, MaxWeatherText); f.Set {
			*t.to = strings.TrimSpace(f.Value)
		}
	}
	if f := r.String("name", MaxWeatherName); f.Set {
		w.Name = strings.TrimSpace(f.Value)
	}
	if v, ok := domain.ReadVisibility(r); ok {
		w.Visibility = v
	}
	if w.Visibility == "" {
		w.Visibility = domain.VisibilityAll
	}
	r.Required("weather", w.Weather != "")
	for _, name := range []string{"day", "month", "year"} {
		v, sent := in[name]
		if (w.ID == 0 && !sent) || (sent && v == nil) {
			r.Required(name, false)
		}
	}
	if r.Errs.Has("day") || r.Errs.Has("month") || r.Errs.Has("year") {
		return r.Err()
	}
	if !eng.Valid(w.Date) {
		r.Errs.Add("day", "The date "+w.Date.String()+" is not a day of the calendar.")
	}
	return r.Err()
}
