// Command calendars is the Lambda of the calendars family: calendars and their moves, their
// day view, their month page and share links, their Fantasy-Calendar import and export and Kanka's calendar_weather. It wires
// everything once at cold start; requests only run the shared handler.
package main

import (
	"os"

	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarmonth"
	"github.com/lorekeep/lorekeep/shared/calendars/calendarweather"
	"github.com/lorekeep/lorekeep/shared/calendars/transfer"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
)

func main() {
	api, st := lambdaapi.ColdStart(kinds.OpenFromEnv)
	calendars.Register(api, st)
	calendardays.Register(api, st)
	calendarmonth.Register(api, st, calendarmonth.KeyFromEnv(os.Getenv))
	transfer.Register(api, st)
	calendarweather.Register(api, st)
	images.Serve(api, st)
	lambdaapi.Start(api)
}
