// Package families mounts every resource family together: the local server's whole API, and
// the tests that drive it as a client would. Each Lambda mounts its own family instead.
package families

import (
	"os"

	"github.com/lorekeep/lorekeep/shared/attributes"
	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarmonth"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarweather"
	"github.com/lorekeep/lorekeep/shared/calendars/transfer"
	"github.com/lorekeep/lorekeep/shared/campaigns"
	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/entityabilities"
	"github.com/lorekeep/lorekeep/shared/entityevents"
	"github.com/lorekeep/lorekeep/shared/entitynotes"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/inventory"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/maps"
	"github.com/lorekeep/lorekeep/shared/modules"
	"github.com/lorekeep/lorekeep/shared/relations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/tags"
	"github.com/lorekeep/lorekeep/shared/webhooks"
)

// Register mounts every family's routes on api.
func Register(api *httpapi.API, st *store.Store) {
	locations.Register(api, st)
	tags.Register(api, st)
	maps.Register(api, st)
	calendars.Register(api, st)
	calendardays.Register(api, st)
	calendarmonth.Register(api, st, calendarmonth.KeyFromEnv(os.Getenv))
	transfer.Register(api, st)
	calendarweather.Register(api, st)
	entityevents.Register(api, st)
	entitynotes.Register(api, st)
	attributes.Register(api, st)
	relations.Register(api, st)
	entities.Register(api, st)
	campaigns.Register(api, st)
	webhooks.Register(api, st)
	modules.Register(api, st)
	inventory.Register(api, st)
	entityabilities.Register(api, st)
}
