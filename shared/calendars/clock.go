package calendars

import (
	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// worldClockJSON is an instant of a calendar's clock both ways: seconds since its epoch (day
// 0 at 0:00) and the date, time and second they name.
type worldClockJSON struct {
	Seconds       int64  `json:"seconds"`
	Date          string `json:"date"`
	Hour          int    `json:"hour"`
	Minute        int    `json:"minute"`
	Second        int    `json:"second"`
	SecondsPerDay int64  `json:"seconds_per_day"`
}

// worldClock converts, on the calendar of the path, ?seconds=N to its date and time, or
// ?date=Y-M-D (with hour, minute, second, 0 when left out) to its seconds: a virtual tabletop's
// game time in seconds follows the calendar (issue 36). One read (the calendar, read ahead).
func (h handlers) worldClock(r *httpapi.Request) (httpapi.Reply, error) {
	c, err := calwire.Visible(r, h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	eng, err := c.Engine()
	if err != nil {
		return httpapi.Reply{}, err
	}
	k, ok := eng.Clock()
	if !ok {
		return httpapi.Reply{}, apperr.Invalid("seconds", "The calendar has no clock.")
	}
	rd := domain.NewReader(r.Query())
	secs := rd.Int("seconds", -1<<63, 1<<63-1)
	date := rd.String("date", 64)
	hour, minute, second := rd.Int("hour", 0, int64(k.Hours)-1), rd.Int("minute", 0, int64(k.Minutes)-1), rd.Int("second", 0, calengine.SecondsPerMinute-1)
	if err := rd.Err(); err != nil {
		return httpapi.Reply{}, err
	}
	out := worldClockJSON{SecondsPerDay: int64(k.Hours) * int64(k.Minutes) * calengine.SecondsPerMinute}
	switch {
	case secs.Present() && date.Present():
		return httpapi.Reply{}, apperr.Invalid("seconds", "Send the seconds or the date, not both.")
	case secs.Present():
		d, t, s, err := eng.AtSeconds(secs.Value)
		if err != nil {
			return httpapi.Reply{}, apperr.Invalid("seconds", "The seconds are out of the calendar's range.")
		}
		out.Seconds, out.Date, out.Hour, out.Minute, out.Second = secs.Value, d.String(), t.Hour, t.Minute, s
	case date.Present():
		d, err := calengine.ParseDate(date.Value)
		if err != nil {
			return httpapi.Reply{}, apperr.Invalid("date", "The date must be a date of the calendar (Y-M-D).")
		}
		t := calengine.Time{Hour: int(hour.Value), Minute: int(minute.Value)}
		n, err := eng.SecondsOf(d, t, int(second.Value))
		if err != nil {
			return httpapi.Reply{}, apperr.Invalid("date", "The date must be a date of the calendar (Y-M-D), within its range.")
		}
		out.Seconds, out.Date, out.Hour, out.Minute, out.Second = n, d.String(), t.Hour, t.Minute, int(second.Value)
	default:
		return httpapi.Reply{}, apperr.Invalid("seconds", "The seconds or the date is required.")
	}
	return httpapi.One(out), nil
}
