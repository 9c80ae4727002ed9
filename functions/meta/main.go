// Command meta is the Lambda of the routes that need no token: the entry point, health and the
// OpenAPI document. It needs no storage.
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/lorekeep/lorekeep/shared/apidoc"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
)

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	api := httpapi.New(httpapi.Options{Identify: lambdaapi.AuthorizerIdentity})
	apidoc.Register(api, "")
	lambda.Start(lambdaapi.Handler(api))
}
