// Command entities is the Lambda of the campaign's entities, the first screen of a Kanka client
// (profile, campaigns, a campaign and its members, entity types) and Kanka's modules served as
// declarations (characters, organisations... package modules) and any entity's inventory, under one route of any module
// path the other functions' routes do not claim. It wires everything once at cold start;
// requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/campaigns"
	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/entityabilities"
	"github.com/lorekeep/lorekeep/shared/inventory"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/modules"
)

func main() {
	api, st := lambdaapi.ColdStart(kinds.OpenFromEnv)
	entities.Register(api, st)
	campaigns.Register(api, st)
	modules.Register(api, st)
	inventory.Register(api, st)
	entityabilities.Register(api, st)
	lambdaapi.Start(api)
}
