package lambdaapi

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// coldStart builds what every Lambda shares, once: JSON logs and the store.
func coldStart() *store.Store {
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	st, err := store.Open(context.Background(), store.ConfigFromEnv(os.Getenv))
	if err != nil {
		slog.Error("configure dynamodb", "err", err)
		os.Exit(1)
	}
	return st
}

// ServeFamily is a family Lambda's whole main: the store and the shared API are built once at
// cold start, register mounts the family's routes, and every request runs that one handler.
func ServeFamily(register func(*httpapi.API, *store.Store)) {
	st := coldStart()
	opts := httpapi.OptionsFromEnv(os.Getenv, AuthorizerIdentity, st)
	opts.SharedRate = st // warm instances share each user's rate bucket
	api := httpapi.New(opts)
	register(api, st)
	lambda.Start(Handler(api))
}
