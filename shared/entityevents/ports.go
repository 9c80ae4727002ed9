package entityevents

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Store is the storage the entity events family uses (eventstore serves it).
type Store interface {
	httpapi.GoneReader
	httpapi.EntityReader
	GetEventAndEntity(ctx context.Context, cid, eid, id int64) (*domain.Entity, *timeline.Event, error)
	ListEvents(ctx context.Context, cid, eid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.Event], error)
	LifeEvents(ctx context.Context, cid, eid int64, a domain.Access) ([]timeline.Event, error)
	CreateEvent(ctx context.Context, ev *timeline.Event) error
	UpdateEvent(ctx context.Context, prev, next *timeline.Event) error
	DeleteEvent(ctx context.Context, ev *timeline.Event) error
	GetCalendar(ctx context.Context, cid, id int64) (*timeline.Calendar, error)
	GetCalendars(ctx context.Context, cid int64, ids []int64) (map[int64]*timeline.Calendar, error)
	ListReminders(ctx context.Context, cid, calID int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.Event], error)
}
