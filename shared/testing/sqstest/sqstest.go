// Package sqstest gives tests the SQS-compatible server `make test` starts
// (scripts/sqs-local.sh: LOREKEEP_TEST_SQS). Without it the tests that need it fail; they never
// skip.
package sqstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/webhooks"
)

// Endpoint is the server's address.
func Endpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv("LOREKEEP_TEST_SQS")
	if ep == "" {
		t.Fatal("LOREKEEP_TEST_SQS is not set: run the tests through scripts/test.sh, which starts `lorekeep sqs`")
	}
	return ep
}

// Queue is a new, empty delivery queue (and dead-letter queue) of its own for one test, made
// as `lorekeep serve` makes its own, reached with st's connection settings.
func Queue(t testing.TB, st *store.Store) *webhooks.Queue {
	t.Helper()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	q, err := webhooks.CreateQueues(context.Background(), webhooks.SQSClient(st, Endpoint(t)), "test-"+hex.EncodeToString(rnd[:]), webhooks.MaxReceives)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
