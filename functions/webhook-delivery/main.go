// Command webhook-delivery is the Lambda that reads the webhooks' delivery queue: it sends each
// batch's events, a webhook's in order, retries by hiding a failed event for its backoff, and
// gives up on one to the dead-letter queue. It wires everything once at cold start.
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
	lambda.Start(stream.DeliveryHandler(webhooks.NewDeliverer(wh, q, webhooks.SettingsFromEnv(os.Getenv))))
}
