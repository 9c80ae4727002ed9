// Command locations is the Lambda of the locations family (locations and their map points)
// and of tags, nested like locations.
// It wires everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/tags"
)

func main() {
	api, st := lambdaapi.ColdStart(kinds.OpenFromEnv)
	locations.Register(api, st)
	tags.Register(api, st)
	images.Serve(api, st)
	lambdaapi.Start(api)
}
