// Package sweeper finishes the deletes and cascades left pending (store.SweepDeletes), removes
// expired tombstones and purges expired trash (store.SweepPurges): on AWS a scheduled
// Lambda (Serve), locally `lorekeep serve` (Every) and `lorekeep sweep` (Run). Each sweep
// writes one JSON log line, like a request.
package sweeper

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/lorekeep/lorekeep/shared/gcpolicy"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/kinds"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/telemetry"
)

// Bucket deletes stored images (imagestore.Bucket).
type Bucket interface {
	Delete(ctx context.Context, paths []string) error
}

// Run sweeps once: it finishes every delete pending for longer than olderThan (as many as
// one sweep takes), deletes the stored images due in the image queue from bucket (nil: none
// configured, the queue waits) and logs what it did. A delete's own images are queued in its
// first step, so one sweep may finish the delete and remove its images.
func Run(ctx context.Context, st *store.Store, olderThan time.Duration, bucket Bucket) (store.SweepResult, error) {
	start := time.Now()
	ctx, rec := telemetry.With(ctx)
	res, err := st.SweepDeletes(ctx, olderThan)
	if err == nil { // and the sync tombstones whose 30 days are over
		var more bool
		res.Expired, more, err = st.SweepGone(ctx)
		res.Remaining = res.Remaining || more
	}
	if err == nil { // and the trashes whose 30 days are over
		var more bool
		res.Purged, more, err = st.SweepPurges(ctx)
		res.Remaining = res.Remaining || more
	}
	if err == nil && bucket != nil {
		var more bool
		res.Images, more, err = st.SweepImages(ctx, bucket.Delete)
		res.Remaining = res.Remaining || more
	}
	attrs := []slog.Attr{slog.Int("finished", res.Finished), slog.Int("stale", res.Stale), slog.Int("failed", res.Failed),
		slog.Int("expired", res.Expired), slog.Int("purged", res.Purged), slog.Int("images", res.Images), slog.Bool("remaining", res.Remaining), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		slog.Int("dynamodb_calls", rec.Snapshot().DBCalls)}
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelError
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	slog.LogAttrs(ctx, level, "sweep", attrs...)
	return res, err
}

// sweepTimeout bounds one sweep as the scheduled function's timeout does (template.yaml):
// what it leaves, the next sweep continues.
const sweepTimeout = time.Minute

// Every sweeps every interval until ctx ends, one sweep at a time.
func Every(ctx context.Context, st *store.Store, interval, olderThan time.Duration, bucket Bucket) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sctx, cancel := context.WithTimeout(ctx, sweepTimeout)
			_, _ = Run(sctx, st, olderThan, bucket) // logged; the next sweep retries
			cancel()
		}
	}
}

// Handler is the scheduled Lambda's handler: one sweep of the deletes pending for longer than
// store.PendingDeleteAge, bounded by the invocation's deadline. A failure is returned, so the
// invocation counts as failed in the function's metrics.
func Handler(st *store.Store, bucket Bucket) func(context.Context) (store.SweepResult, error) {
	return func(ctx context.Context) (store.SweepResult, error) {
		return Run(ctx, st, store.PendingDeleteAge, bucket)
	}
}

// Serve is the sweeper Lambda's whole main: JSON logs and the store, built once.
func Serve() {
	gcpolicy.ForLambda(os.Getenv)
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	st, err := kinds.Open(context.Background(), store.ConfigFromEnv(os.Getenv))
	if err != nil {
		slog.Error("configure dynamodb", "err", err)
		os.Exit(1)
	}
	bucket, err := imagestore.Open(imagestore.ConfigFromEnv(os.Getenv))
	if err != nil {
		slog.Error("configure the image bucket", "err", err)
		os.Exit(1)
	}
	lambda.Start(Handler(st, bucket))
}
