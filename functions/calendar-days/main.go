// Command calendar-days is the Lambda of a calendar's day view (package calendardays), apart
// from the calendars function so that each stays within its size budget. It wires everything
// once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

func main() {
	api, st := lambdaapi.ColdStart(store.OpenFromEnv)
	calendardays.Register(api, st)
	lambdaapi.Start(api)
}
