// Command entity-events is the Lambda of the entity-events family. It wires everything once at
// cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/entityevents"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
)

func main() {
	api, st := lambdaapi.ColdStart(kinds.OpenFromEnv)
	entityevents.Register(api, st)
	lambdaapi.Start(api)
}
