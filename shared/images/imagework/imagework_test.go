package imagework_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imageproc"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
	"github.com/lorekeep/lorekeep/shared/testing/s3test"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }

// queued counts the image queue's paths due within the claim window from now (what a crashed
// or failed job left for the sweeper), without deleting anything.
func queued(t *testing.T, st *store.Store) int {
	t.Helper()
	later := st.AtTime(func() time.Time { return time.Now().Add(store.ImageClaimWindow + time.Minute) })
	n := 0
	stop := errors.New("counted")
	_, _, err := later.SweepImages(context.Background(), func(_ context.Context, paths []string) error {
		n += len(paths)
		return stop
	})
	if err != nil && !errors.Is(err, stop) {
		t.Fatal(err)
	}
	return n
}

// The worker's failures as the family and the client see them: a panic while decoding is the
// file's 422 (nothing reserved), a bucket that does not answer is ErrImagesBusy (a 429, never
// the 503 that says DynamoDB is unavailable) with its reservation made due for the sweeper.
func TestWorkerFailures(t *testing.T) {
	ctx := context.Background()
	st, _ := dynamotest.NewStore(t)
	b, _ := s3test.Bucket(t)
	job := images.Job{CampaignID: 7, Field: "image", Data: imagetest.PNG(20, 10)}

	restore := imagework.SetProcess(func([]byte) (imageproc.Result, error) { panic("a decoder's bug") })
	w := imagework.New(b, st, imagework.Options{})
	_, err := w.Process(ctx, job)
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.EInvalid || !ae.Fields.Has("image") ||
		!strings.Contains(ae.Fields.Messages("image")[0], "could not be processed") {
		t.Fatalf("a panic: %v, want a 422 naming image", err)
	}
	if ans, err := images.Answer(ctx, w, job); err != nil || ans.Field != "image" || ans.Path != "" {
		t.Fatalf("a panic's answer: %+v %v, want the field's problem (no function error)", ans, err)
	}
	restore()
	if n := queued(t, st); n != 0 {
		t.Fatalf("%d paths reserved by a job that panicked", n)
	}

	// S3 slowing down, as it answers (503 SlowDown).
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"))
	}))
	defer slow.Close()
	missing, err := imagestore.Open(imagestore.Config{Bucket: "images", Endpoint: slow.URL})
	if err != nil {
		t.Fatal(err)
	}
	w = imagework.New(missing, st, imagework.Options{})
	if _, err := w.Process(ctx, job); !errors.Is(err, apperr.ErrImagesBusy) || errors.Is(err, apperr.ErrUnavailable) {
		t.Fatalf("a failing bucket: %v, want busy and not unavailable", err)
	}
	if ans, err := images.Answer(ctx, w, job); err != nil || ans.Busy == "" || ans.Unavailable != "" {
		t.Fatalf("a failing bucket's answer: %+v %v", ans, err)
	}
	// Both reservations are due now: the sweeper takes them at once.
	now := 0
	if _, _, err := st.SweepImages(ctx, func(_ context.Context, p []string) error { now += len(p); return nil }); err != nil || now != 2 {
		t.Fatalf("sweep: %d paths, %v; want the 2 failed jobs' reservations", now, err)
	}
}

// A fetch the URL rule lets through (loopback allowed there) is refused when the connection is
// made, by IP and by name: a 422 naming image_url, no request served, nothing reserved.
func TestFetchRefusedAtDialTime(t *testing.T) {
	ctx := context.Background()
	st, _ := dynamotest.NewStore(t)
	b, _ := s3test.Bucket(t)
	var hits atomic.Int32
	pic := imagetest.PNG(20, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write(pic)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := strings.Cut(srv.Listener.Addr().String(), ":")
	opts := imagework.Options{AllowHTTP: true, AllowLoopback: true}
	guarded := imagework.NewDialGuarded(b, st, opts)
	for _, u := range []string{srv.URL + "/pic.png", "http://localhost:" + port + "/pic.png", "http://[::ffff:127.0.0.1]:" + port + "/pic.png"} {
		_, err := guarded.Process(ctx, images.Job{CampaignID: 7, Field: "image_url", URL: u})
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != apperr.EInvalid || !ae.Fields.Has("image_url") ||
			!strings.Contains(ae.Fields.Messages("image_url")[0], "must point to a public internet address") {
			t.Errorf("%s: %v, want a 422 naming image_url", u, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server on loopback got %d requests", n)
	}
	if n := queued(t, st); n != 0 {
		t.Errorf("%d paths reserved", n)
	}
	// The same fetch with loopback allowed at dial time too: the refusals above were the guard's.
	if path, err := imagework.New(b, st, opts).Process(ctx, images.Job{CampaignID: 7, Field: "image_url", URL: srv.URL + "/pic.png"}); err != nil || path == "" || hits.Load() != 1 {
		t.Fatalf("unguarded fetch: %q %v, %d requests", path, err, hits.Load())
	}
}
