// Command calendar-transfer is the Lambda of the calendars' Fantasy-Calendar import and export
// (package transfer), apart from the calendars function so that neither links the other's
// code. It wires everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/calendars/transfer"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

func main() {
	api, st := lambdaapi.ColdStart(store.OpenFromEnv)
	transfer.Register(api, st)
	lambdaapi.Start(api)
}
