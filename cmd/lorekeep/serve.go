package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/lorekeep/lorekeep/shared/apidoc"
	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/mcp"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/sweeper"
	"github.com/lorekeep/lorekeep/shared/webhooks"
	"github.com/lorekeep/lorekeep/shared/webhooks/stream"
)

// newHandler is the local server: every family and the public routes, as on Lambda, plus the
// docs page and the MCP endpoint; images in bucket (nil: writes with an image are refused).
func newHandler(st *store.Store, getenv func(string) string, bucket ...*imagestore.Bucket) http.Handler {
	opts := httpapi.OptionsFromEnv(getenv, httpapi.BearerAuth(st.Tokens(), time.Now), st)
	opts.FieldSet = httpapi.BearerFieldSet
	api := httpapi.New(opts)
	families.Register(api, st)
	if len(bucket) > 0 && bucket[0] != nil {
		// In process: the image work ImagesFunction does on AWS (DESIGN 13).
		svc := images.New(imagework.New(bucket[0], st, localFetch(getenv)), st)
		api.SetImages(svc)
		images.Register(api, st, svc)
	}
	apidoc.Register(api)             // the public routes and the docs page, as the meta function serves them
	mcp.Register(api, mcp.Options{}) // the MCP endpoint, whose tools call this same API, as McpFunction serves it
	return api
}

func serveCmd(c *cli, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "127.0.0.1:3000", "listen address")
	sweepEvery := fs.Duration("sweep-every", time.Minute, "how often to finish the deletes left pending, as the scheduled sweeper does on AWS (0: never)")
	sweepOlderThan := fs.Duration("sweep-older-than", store.PendingDeleteAge, "finish the deletes pending for longer than this")
	if err := parse(c, fs, args); err != nil {
		return err
	}
	if *sweepEvery < 0 || *sweepOlderThan < 0 {
		return usagef("%s: --sweep-every and --sweep-older-than must not be negative", fs.Name())
	}
	st, err := c.store()
	if err != nil {
		return err
	}
	bucket, err := localImages(c.ctx, c.getenv)
	if err != nil {
		return err
	}
	handler := newHandler(st, c.getenv, bucket)
	// Listen first: "serving" is printed only once a client can connect.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(c.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if *sweepEvery > 0 {
		swept := make(chan struct{})
		go func() { defer close(swept); sweeper.Every(ctx, st, *sweepEvery, *sweepOlderThan, sweepBucket(bucket)) }()
		defer func() { stop(); <-swept }() // a sweep under way ends (cancelled) and logs before serve returns
	}
	// Webhooks: the table's stream read with the webhooks function's code (DynamoDB Local
	// keeps streams too; a table without one, made before webhooks, gets it from init/demo),
	// and the delivery queue read with the delivery function's, on the local SQS-compatible
	// server at SQS_ENDPOINT (`lorekeep sqs`, which make run starts). The table's name names
	// the queue.
	streamed := make(chan struct{})
	go func() {
		defer close(streamed)
		ep := c.getenv("SQS_ENDPOINT")
		if ep == "" {
			slog.Warn("webhooks: SQS_ENDPOINT is not set: no webhook is delivered (make run starts `lorekeep sqs` and sets it)")
			return
		}
		q, err := webhooks.CreateQueues(ctx, webhooks.SQSClient(st, ep), c.cfg.TableName+"-webhooks", webhooks.MaxReceives)
		if err != nil {
			slog.Error("webhooks: no delivery queue: no webhook is delivered", "endpoint", ep, "error", err)
			return
		}
		wh := webhooks.NewStorage(st)
		d := webhooks.NewDeliverer(wh, q, webhooks.SettingsFromEnv(c.getenv))
		if err := stream.Serve(ctx, wh, c.cfg.TableName, q, d); err != nil {
			slog.Error("webhooks: the table's stream cannot be read; run `lorekeep init`", "error", err)
		}
	}()
	defer func() { stop(); <-streamed }()
	slog.Info("serving", "addr", "http://"+ln.Addr().String())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
