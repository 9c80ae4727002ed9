// Package s3test gives tests the S3-compatible server `make test` starts (scripts/s3-local.sh:
// LOREKEEP_TEST_S3). Without it the tests that need it fail; they never skip.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/lorekeep/lorekeep/shared/images/imagestore"
)

// Bucket is a new, empty bucket of its own for one test, and its address for readers.
func Bucket(t testing.TB) (*imagestore.Bucket, string) {
	t.Helper()
	ep := os.Getenv("LOREKEEP_TEST_S3")
	if ep == "" {
		t.Fatal("LOREKEEP_TEST_S3 is not set: run the tests through scripts/test.sh, which starts `lorekeep s3`")
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := "test-" + hex.EncodeToString(rnd[:])
	b, err := imagestore.Open(imagestore.Config{Bucket: name, Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	return b, ep + "/" + name
}
