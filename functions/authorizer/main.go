// Command authorizer is the API Gateway Lambda authorizer: it turns a bearer token into a user
// id and nothing more (see package lambdaapi).
package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

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
	lambda.Start(lambdaapi.Authorizer(st, time.Now))
}
