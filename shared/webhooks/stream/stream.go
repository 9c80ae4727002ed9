// Package stream runs webhook delivery from the table's change stream: the Lambda handler of
// the webhooks function (stream batches and the scheduled retry run) and, for `lorekeep serve`,
// the same work over DynamoDB Local's stream.
package stream

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/webhooks"
)

// Handle queues and sends the webhook events of stream records; it answers how many records
// were handled completely (all of them unless err).
func Handle(ctx context.Context, st *webhooks.Hooks, d *webhooks.Deliverer, recs []store.StreamRecord) (string, error) {
	changes, err := store.StreamChanges(ctx, st.Store, recs)
	if err != nil {
		if len(recs) > 0 {
			return recs[0].Seq, err
		}
		return "", err
	}
	i, err := d.Handle(ctx, changes)
	if err != nil {
		return changes[i].StreamSeq, err
	}
	return "", nil
}

// LambdaHandler is the webhooks function: a DynamoDB stream batch (with Records), whose failed
// record it reports so that Lambda retries from there, in order; or the scheduled event, which
// drains the queues whose retry is due.
func LambdaHandler(st *webhooks.Hooks, d *webhooks.Deliverer) func(context.Context, json.RawMessage) (any, error) {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var probe struct {
			Records []json.RawMessage `json:"Records"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, err
		}
		if probe.Records == nil {
			n, err := d.Sweep(ctx)
			slog.Info("webhook retries", "queues", n, "error", err)
			return nil, err
		}
		var ev events.DynamoDBEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, err
		}
		seq, err := Handle(ctx, st, d, LambdaRecords(ev))
		res := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
		if err != nil {
			slog.Error("webhook stream batch", "failed_at", seq, "error", err)
			res.BatchItemFailures = append(res.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: seq})
		}
		return res, nil
	}
}

// SweepInterval is how often Serve runs the retry sweep (the AWS schedule runs every minute).
const SweepInterval = 30 * time.Second

// Serve reads the table's stream from its current end and sweeps due retries until ctx ends:
// what the webhooks function and its schedule do on AWS.
func Serve(ctx context.Context, st *webhooks.Hooks, table string, d *webhooks.Deliverer) error {
	go func() {
		t := time.NewTicker(SweepInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := d.Sweep(ctx); err != nil && ctx.Err() == nil {
					slog.Error("webhook retries", "error", err)
				}
			}
		}
	}()
	return ReadStream(ctx, st.Store, table, false, func(ctx context.Context, recs []store.StreamRecord) error {
		seq, err := Handle(ctx, st, d, recs)
		if err != nil {
			slog.Error("webhook stream batch", "failed_at", seq, "error", err)
		}
		return err
	})
}
