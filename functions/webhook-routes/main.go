// Command webhook-routes is the Lambda of the campaign webhooks' routes (admins only). It wires
// everything once at cold start; requests only run the shared handler.
package main

import (
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/webhooks"
)

func main() {
	lambdaapi.ServeFamily(func(api *httpapi.API, st *store.Store) { webhooks.Register(api, store.NewWebhooks(st)) })
}
