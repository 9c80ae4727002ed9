// Command entity-notes is the Lambda of the entity-notes family. It wires everything once at
// cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/entitynotes"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

func main() {
	api, st := lambdaapi.ColdStart(store.OpenFromEnv)
	entitynotes.Register(api, st)
	lambdaapi.Start(api)
}
