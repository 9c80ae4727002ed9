package layout

import (
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
)

// A calendar's manual weather lives in the calendar's partition, placed by visibility as notes
// are (ChildSlots), so its list is paged like theirs and the calendar's purge removes it. Its
// day key (WeatherDaySK), a copy written in the same transaction, keeps one weather a day and
// lets a day view read its days' weather with one Query.
type DayWeatherItem struct {
	MetaAttrs
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

func (it DayWeatherItem) DayWeather() timeline.DayWeather {
	return timeline.DayWeather{Meta: it.Meta(), CalendarID: it.CalendarID,
		Date:    calengine.Date{Year: it.Year, Month: it.Month, Day: it.Day},
		Weather: it.Weather, Temperature: it.Temperature, Precipitation: it.Precipitation, Wind: it.Wind,
		Effect: it.Effect, Name: it.Name, Visibility: domain.Visibility(it.Visibility)}
}
