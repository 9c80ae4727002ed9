// Command meta is the Lambda of the routes that need no token: the entry point, health, the
// OpenAPI document and its docs page (Redoc embedded: apidoc). It needs no storage.
package main

import (
	"github.com/lorekeep/lorekeep/shared/apidoc"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
)

func main() {
	api := lambdaapi.PublicAPI()
	apidoc.Register(api)
	lambdaapi.Start(api)
}
