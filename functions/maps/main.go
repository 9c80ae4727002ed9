// Command maps is the Lambda of the maps family (maps; their layers, groups and markers as
// they are served): a function of its own, the others being near their size budget.
// It wires everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/maps"
)

func main() {
	api, st := lambdaapi.ColdStart(kinds.OpenFromEnv)
	maps.Register(api, st)
	images.Serve(api, st) // maps' and layers' pictures
	lambdaapi.Start(api)
}
