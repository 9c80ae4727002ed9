// Command entities is the Lambda of Kanka's read-only routes: the campaign's entities, and the
// first screen of a Kanka client (profile, campaigns, a campaign and its members, entity
// types). It wires everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/campaigns"
	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
)

func main() {
	api, st := lambdaapi.ColdStart(kinds.OpenFromEnv)
	entities.Register(api, st)
	campaigns.Register(api, st)
	lambdaapi.Start(api)
}
