// Command calendars is the Lambda of the calendars family (calendars, their day view and moves).
// It wires everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

func main() {
	api, st := lambdaapi.ColdStart(store.OpenFromEnv)
	calendars.Register(api, st)
	images.Serve(api, st)
	lambdaapi.Start(api)
}
