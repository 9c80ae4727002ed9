package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3afero"
	"github.com/spf13/afero"

	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/sweeper"
)

// s3Cmd serves an S3-compatible API (gofakes3) over files under --dir, for `make run` and
// `make test` (scripts/s3-local.sh): the image code talks to it with the real S3 SDK. It
// answers GETs without credentials, as CloudFront does for the bucket on AWS. Local use only.
func s3Cmd(c *cli, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "127.0.0.1:9000", "listen address")
	dir := fs.String("dir", "", "directory holding the buckets (required)")
	if err := parse(c, fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("%s: --dir is required", fs.Name())
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	base, err := s3afero.NewBasePathFs(afero.NewOsFs(), *dir, s3afero.FsPathCreate)
	if err != nil {
		return err
	}
	backend, err := s3afero.MultiBucket(base)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: gofakes3.New(backend, gofakes3.WithAutoBucket(true)).Server(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(c.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	slog.Info("s3 serving", "addr", "http://"+ln.Addr().String(), "dir", *dir)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// localImages is the images of the local server when S3_ENDPOINT and IMAGE_BUCKET are set
// (scripts/run.sh sets them): the bucket, created when missing; nil without them.
func localImages(ctx context.Context, getenv func(string) string) (*imagestore.Bucket, error) {
	cfg := imagestore.ConfigFromEnv(getenv)
	if cfg.Endpoint == "" || cfg.Bucket == "" {
		return nil, nil
	}
	b, err := imagestore.Open(cfg)
	if err != nil {
		return nil, err
	}
	if err := b.Ensure(ctx); err != nil {
		return nil, fmt.Errorf("the image bucket at %s: %w", cfg.Endpoint, err)
	}
	return b, nil
}

// openBucket is the image bucket of IMAGE_BUCKET: the local server's (S3_ENDPOINT, created
// when missing) or AWS's.
func openBucket(ctx context.Context, getenv func(string) string) (*imagestore.Bucket, error) {
	if getenv("S3_ENDPOINT") != "" {
		return localImages(ctx, getenv)
	}
	return imagestore.Open(imagestore.ConfigFromEnv(getenv))
}

// localFetchIf is localFetch against a local bucket (S3_ENDPOINT set), else the guard as on
// AWS (https only, public addresses only).
func localFetchIf(getenv func(string) string) imagework.Options {
	if getenv("S3_ENDPOINT") == "" {
		return imagework.Options{}
	}
	return localFetch(getenv)
}

// localFetch is how the local server fetches image_url: http allowed, and loopback only when
// IMAGES_ALLOW_LOOPBACK is set (a picture served on this machine).
func localFetch(getenv func(string) string) imagework.Options {
	return imagework.Options{AllowHTTP: true, AllowLoopback: getenv("IMAGES_ALLOW_LOOPBACK") == "1"}
}

// sweepBucket is bucket as the sweeper takes it: a nil interface when there is none.
func sweepBucket(b *imagestore.Bucket) sweeper.Bucket {
	if b == nil {
		return nil
	}
	return b
}
