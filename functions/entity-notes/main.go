// Command entity-notes is the Lambda of what hangs from an entity besides its events: the
// entity-notes, attributes and relations families (and the campaign-wide relations list). It
// wires everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/attributes"
	"github.com/lorekeep/lorekeep/shared/entitynotes"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/relations"
)

func main() {
	api, st := lambdaapi.ColdStart(kinds.OpenFromEnv)
	entitynotes.Register(api, st)
	attributes.Register(api, st)
	relations.Register(api, st)
	lambdaapi.Start(api)
}
