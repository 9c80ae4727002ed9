// Package stream runs webhook delivery: the Lambda handlers of the webhooks function (the
// table's change stream, whose records it turns into queued events) and of the delivery
// function (the queue's batches, which it sends), and, for `lorekeep serve`, the same work over
// DynamoDB Local's stream and a local SQS-compatible server.
package stream

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/webhooks"
)

// Handle queues the webhook events of stream records; it answers the sequence number of the
// first record not queued when err.
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

// LambdaHandler is the webhooks function: a DynamoDB stream batch, whose first record not
// queued it reports so that Lambda retries from there, in order.
func LambdaHandler(st *webhooks.Hooks, d *webhooks.Deliverer) func(context.Context, json.RawMessage) (events.DynamoDBEventResponse, error) {
	return func(ctx context.Context, raw json.RawMessage) (events.DynamoDBEventResponse, error) {
		res := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
		var ev events.DynamoDBEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return res, err
		}
		seq, err := Handle(ctx, st, d, LambdaRecords(ev))
		if err != nil {
			slog.Error("webhook stream batch", "failed_at", seq, "error", err)
			res.BatchItemFailures = append(res.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: seq})
		}
		return res, nil
	}
}

// DeliveryHandler is the delivery function: a batch of the queue's messages, whose messages
// to hand out again it reports (Lambda deletes the others).
func DeliveryHandler(d *webhooks.Deliverer) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		batch := make([]webhooks.Received, len(ev.Records))
		for i, r := range ev.Records {
			batch[i] = webhooks.Received{ID: r.MessageId, Receipt: r.ReceiptHandle, Body: r.Body}
		}
		res := events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{}}
		for _, id := range d.Deliver(ctx, batch) {
			res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
		return res, nil
	}
}

// Consumers is how many delivery runs the local consumer has at once (the template's bound on
// the delivery function's concurrency).
const Consumers = 10

// PollInterval is how long a local consumer waits after finding the queue empty.
const PollInterval = 100 * time.Millisecond

// Consume hands the queue's messages to the deliverer until ctx ends, with `workers` runs at
// once, each bounded by the delivery function's timeout: what the delivery function's event
// source mapping does on AWS.
func Consume(ctx context.Context, q *webhooks.Queue, d *webhooks.Deliverer, workers int) {
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				batch, err := q.Receive(ctx, 10)
				if err != nil && ctx.Err() == nil {
					slog.Warn("webhook queue receive failed; trying again", "error", err)
				}
				if len(batch) == 0 {
					select {
					case <-ctx.Done():
					case <-time.After(PollInterval):
					}
					continue
				}
				run, cancel := context.WithTimeout(ctx, webhooks.DeliveryTimeout)
				d.Deliver(run, batch) // it deletes what it settled, and hides what it did not
				cancel()
			}
		}()
	}
	wg.Wait()
}

// Serve reads the table's stream from its current end, queuing its events, and delivers them
// from the queue until ctx ends: what the webhooks and delivery functions do on AWS.
func Serve(ctx context.Context, st *webhooks.Hooks, table string, q *webhooks.Queue, d *webhooks.Deliverer) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		Consume(ctx, q, d, Consumers)
	}()
	defer func() { <-done }()
	return ReadStream(ctx, st.Store, table, false, func(ctx context.Context, recs []store.StreamRecord) error {
		seq, err := Handle(ctx, st, d, recs)
		if err != nil {
			slog.Error("webhook stream batch", "failed_at", seq, "error", err)
		}
		return err
	})
}
