// Command entity-events is the Lambda of the entity-events family. It wires everything once at
// cold start; requests only run the shared handler.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/lorekeep/lorekeep/shared/entityevents"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/lambdaapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

func main() {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	st, err := store.Open(context.Background(), store.ConfigFromEnv(os.Getenv))
	if err != nil {
		slog.Error("configure dynamodb", "err", err)
		os.Exit(1)
	}
	api := httpapi.New(httpapi.OptionsFromEnv(os.Getenv, lambdaapi.AuthorizerIdentity, st))
	entityevents.Register(api, st)
	lambda.Start(lambdaapi.Handler(api))
}
