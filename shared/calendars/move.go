package calendars

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Limits of Lorekeep's additions to Kanka's calendars.
const (
	// MaxMoveDays bounds one advance or retreat.
	MaxMoveDays = 1_000_000
)

func (h handlers) advance(r *httpapi.Request) (httpapi.Reply, error) { return h.move(r, 1) }
func (h handlers) retreat(r *httpapi.Request) (httpapi.Reply, error) { return h.move(r, -1) }

// move shifts the current date (and time) by the body's `days`, `hours` and `minutes` in
// direction sign (one day when none is sent), with the same conditional write and retries as
// an update. Hours and minutes need the calendar's clock.
func (h handlers) move(r *httpapi.Request, sign int64) (httpapi.Reply, error) {
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	rd := domain.NewReader(in)
	var days, hours, minutes int64
	if f := rd.Int("days", 1, MaxMoveDays); f.Present() {
		days = f.Value
	}
	if f := rd.Int("hours", 0, timeline.MaxMoveHours); f.Present() {
		hours = f.Value
	}
	if f := rd.Int("minutes", 0, timeline.MaxMoveMinutes); f.Present() {
		minutes = f.Value
	}
	if err := rd.Err(); err != nil {
		return httpapi.Reply{}, err
	}
	if days == 0 && hours == 0 && minutes == 0 && !rd.Has("hours") && !rd.Has("minutes") {
		days = 1
	}
	return h.kind.Write(r, func(_ httpapi.None, _, next *timeline.Calendar) error {
		return next.MoveTime(sign*days, sign*hours, sign*minutes)
	})
}
