package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/Admiral-Piett/goaws/app/gosqs"
	"github.com/Admiral-Piett/goaws/app/models"
	"github.com/Admiral-Piett/goaws/app/router"
	"github.com/sirupsen/logrus"
)

// sqsCmd serves an SQS-compatible API (goaws, in memory) for `make run` and `make test`
// (scripts/sqs-local.sh): the webhooks' delivery code talks to it with the real SQS SDK, as to
// SQS on AWS. Local use only; its queues live as long as the process.
func sqsCmd(c *cli, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "127.0.0.1:9324", "listen address")
	if err := parse(c, fs, args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	srv := &http.Server{Handler: sqsHandler(host, port), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(c.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	quit := make(chan bool)
	go gosqs.PeriodicTasks(time.Second, quit) // visibility timeouts, redrive, deduplication window
	go func() {
		<-ctx.Done()
		close(quit)
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	slog.Info("sqs serving", "addr", "http://"+ln.Addr().String())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// sqsHandler is goaws's SQS API with FIFO queues as SQS keeps them. goaws serves requests
// concurrently over maps it does not always lock, and its record of the message groups in
// flight keeps only the last group locked, so that a second message of a group could be handed
// out while the first is still in flight. Here requests are taken one at a time, and before
// each receive the groups in flight are read from the messages themselves; a receive from a
// FIFO queue hands out one message (a batch of one group would be SQS's too) without waiting.
func sqsHandler(host, port string) http.Handler {
	logrus.SetLevel(logrus.WarnLevel)
	models.CurrentEnvironment = models.Environment{Host: host, Port: port, Region: "us-east-1", AccountID: "000000000000",
		EnableDuplicates: true, QueueAttributeDefaults: models.EnvQueueAttributes{VisibilityTimeout: 30, MaximumMessageSize: 262144,
			MessageRetentionPeriod: 1209600}}
	api := router.New()
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".ReceiveMessage") {
			if body, fifo := fifoReceive(r); fifo {
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
				mu.Lock()
				defer mu.Unlock()
				lockGroupsInFlight()
				api.ServeHTTP(w, r)
				return
			}
		}
		mu.Lock()
		defer mu.Unlock()
		api.ServeHTTP(w, r)
	})
}

// fifoReceive rewrites a JSON ReceiveMessage of a FIFO queue to take one message at once.
func fifoReceive(r *http.Request) ([]byte, bool) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return raw, false
	}
	var in map[string]any
	if json.Unmarshal(raw, &in) != nil {
		r.Body = io.NopCloser(bytes.NewReader(raw))
		return raw, false
	}
	if u, _ := in["QueueUrl"].(string); !strings.HasSuffix(u, ".fifo") {
		r.Body = io.NopCloser(bytes.NewReader(raw))
		return raw, false
	}
	in["MaxNumberOfMessages"], in["WaitTimeSeconds"] = 1, 0
	out, _ := json.Marshal(in)
	return out, true
}

// lockGroupsInFlight marks, in every FIFO queue, the groups with a message handed out and not
// yet deleted or visible again.
func lockGroupsInFlight() {
	models.SyncQueues.Lock()
	defer models.SyncQueues.Unlock()
	for _, q := range models.SyncQueues.Queues {
		if !q.IsFIFO {
			continue
		}
		q.FIFOMessages = map[string]int{}
		for _, m := range q.Messages {
			if m.ReceiptHandle != "" {
				q.FIFOMessages[m.GroupID] = 0
			}
		}
	}
}
