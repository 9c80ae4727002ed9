// Command entities is the Lambda of the campaign's entities (Kanka's entities endpoint, read
// only). It wires everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

func main() {
	api, st := lambdaapi.ColdStart(store.OpenFromEnv)
	entities.Register(api, st)
	lambdaapi.Start(api)
}
