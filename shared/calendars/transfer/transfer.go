// Package transfer is the Fantasy-Calendar transfer of the calendars family: POST
// calendars/import makes a calendar from a Fantasy-Calendar export, GET calendars/{id}/export
// writes one. It shares the calendar's wire shape (calwire), not the family's handlers.
package transfer

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/calendars/calwire"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Store is the storage the transfer uses (eventstore serves it).
type Store interface {
	httpapi.EntityBatchReader
	calwire.Getter
	CreateCalendar(ctx context.Context, c *timeline.Calendar) error
	CreateImportedEvents(ctx context.Context, evs []*timeline.Event) (int, error)
	ListReminders(ctx context.Context, cid, calID int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[timeline.Event], error)
}

// Register mounts the transfer's routes. The import is a literal path beside the family's
// calendars/{id}: in one API (lorekeep serve) the family's routes answer its other methods.
func Register(api *httpapi.API, kernel *store.Store) {
	st := eventstore.New(kernel)
	h := handlers{st: st}
	api.HandleShadowing("POST", "/calendars/import", h.importCalendar)
	// The export reads the calendar with its reminders' counts (ReadReminderList), then its
	// reminders (one Query, none without any).
	api.Handle("GET", "/calendars/{id}/export", h.exportCalendar, httpapi.ReadAhead(store.ReadReminderList, "id", ""))
}

type handlers struct{ st Store }
