// Command webhooks is the Lambda subscribed to the table's change stream: it turns record
// changes into the campaigns' webhook events on the delivery queue, and sends nothing itself
// (functions/webhook-delivery does). It wires everything once at cold start.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/lorekeep/lorekeep/shared/gcpolicy"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/webhooks"
	"github.com/lorekeep/lorekeep/shared/webhooks/stream"
)

func main() {
	gcpolicy.ForLambda(os.Getenv)
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	st, err := kinds.OpenFromEnv(context.Background(), os.Getenv)
	if err != nil {
		slog.Error("configure dynamodb", "err", err)
		os.Exit(1)
	}
	q, err := webhooks.QueueFromEnv(st, os.Getenv)
	if err != nil {
		slog.Error("configure the delivery queue", "err", err)
		os.Exit(1)
	}
	wh := webhooks.NewStorage(st)
	lambda.Start(stream.LambdaHandler(wh, webhooks.NewDeliverer(wh, q, webhooks.SettingsFromEnv(os.Getenv))))
}
