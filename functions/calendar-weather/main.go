// Command calendar-weather is the Lambda of Kanka's calendar_weather (package calendarweather),
// apart from the calendars function so that it stays within its size budget. It wires
// everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/calendars/calendarweather"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

func main() {
	api, st := lambdaapi.ColdStart(store.OpenFromEnv)
	calendarweather.Register(api, st)
	lambdaapi.Start(api)
}
