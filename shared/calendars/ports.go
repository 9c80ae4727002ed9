package calendars

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is the storage the calendars family uses (calstore serves it).
type Store interface {
	httpapi.GoneReader
	embeds.Store
	GetCalendar(ctx context.Context, cid, id int64) (*timeline.Calendar, error)
	ListCalendars(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[timeline.Calendar], error)
	CreateCalendar(ctx context.Context, c *timeline.Calendar) error
	UpdateCalendar(ctx context.Context, prev, next *timeline.Calendar) error
	DeleteCalendar(ctx context.Context, c *timeline.Calendar) error
	ResumeCalendarDelete(ctx context.Context, cid, id int64) (bool, error)
}
