// Command webhook-routes is the Lambda of the campaign webhooks' routes (admins only). It wires
// everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/webhooks"
)

func main() {
	api, st := lambdaapi.ColdStart(kinds.OpenFromEnv)
	webhooks.Register(api, st)
	lambdaapi.Start(api)
}
