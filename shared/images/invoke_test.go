package images_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/imagework"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
	"github.com/lorekeep/lorekeep/shared/testing/lambdatest"
	"github.com/lorekeep/lorekeep/shared/testing/s3test"
)

// The family functions' side (images.Invoker: the upload put under incoming/, a SigV4-signed
// Invoke) against ImagesFunction's real handler (imagework.LambdaHandler) behind a local
// server of Lambda's Invoke API: stored images, a bad file's 422 naming the field, the guard's
// 422 naming image_url, and a crashed function's 503 that writes nothing.
func TestInvokeProtocol(t *testing.T) {
	b, base := s3test.Bucket(t)
	var worker *imagework.Worker
	var last images.Job
	crash := false
	handler := func(ctx context.Context, payload json.RawMessage) (any, error) {
		var req images.InvokeRequest
		if json.Unmarshal(payload, &req) == nil && req.ImageJob != nil {
			last = *req.ImageJob
		}
		if crash {
			return nil, errors.New("deliberate crash")
		}
		return imagework.LambdaHandler(nil, worker)(ctx, payload)
	}
	fn := lambdatest.Serve(t, "ImagesFunction", handler)
	e := apitest.NewWith(t, func(api *httpapi.API, st *store.Store) {
		worker = imagework.New(b, st, imagework.Options{})
		inv, err := images.NewInvoker(b, images.InvokeConfig{Function: "ImagesFunction", Endpoint: fn.URL})
		if err != nil {
			t.Fatal(err)
		}
		locations.Register(api, st)
		api.SetImages(images.New(inv, st))
	}, apitest.WithAPI(func(o *httpapi.Options) { o.ImageBaseURL = base }))
	env := env{Env: e, bucket: b, base: base}
	ctx := context.Background()

	res := env.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "Invoked"}, imagetest.PNG(300, 150))
	if res.Status != 200 {
		t.Fatalf("create: %d %s", res.Status, res.Raw)
	}
	env.checkImage(t, res.Data(), "png", 300, 150)
	if fn.Calls.Load() != 1 || !strings.HasPrefix(last.Incoming, images.IncomingPrefix(e.Campaign)) || last.Field != "image" {
		t.Fatalf("invocations %d, job %+v", fn.Calls.Load(), last)
	}
	if _, err := b.Get(ctx, last.Incoming); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("the incoming upload is left: %v", err)
	}

	for _, c := range []struct {
		name, field, want string
		send              func() apitest.Response
	}{
		{"not an image", "image", "must be a file of type", func() apitest.Response {
			return env.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "Bad"}, []byte("<svg/>"))
		}},
		{"metadata address", "image_url", "public internet address", func() apitest.Response {
			return e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Bad", "image_url": "https://169.254.169.254/latest/meta-data/"})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := c.send()
			msg, _ := res.Errors()[c.field].([]any)
			if res.Status != 422 || len(msg) != 1 || !strings.Contains(str(msg[0]), c.want) {
				t.Fatalf("%d %s", res.Status, res.Raw)
			}
		})
	}
	// An unknown function and a throttled or failing Invoke API are 503s, nothing stored.
	other, err := images.NewInvoker(b, images.InvokeConfig{Function: "NoSuchFunction", Endpoint: fn.URL})
	if err != nil {
		t.Fatal(err)
	}
	throttled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"Type":"User","message":"Rate Exceeded."}`))
	}))
	defer throttled.Close()
	slow, err := images.NewInvoker(b, images.InvokeConfig{Function: "ImagesFunction", Endpoint: throttled.URL})
	if err != nil {
		t.Fatal(err)
	}
	for name, inv := range map[string]*images.Invoker{"unknown function": other, "throttled": slow} {
		if _, err := inv.Process(ctx, images.Job{CampaignID: e.Campaign, Field: "image", Data: imagetest.PNG(3, 3)}); !errors.Is(err, apperr.ErrUnavailable) {
			t.Errorf("%s: %v, want unavailable", name, err)
		}
	}
	if _, err := images.NewInvoker(b, images.InvokeConfig{}); err == nil {
		t.Error("an invoker without IMAGES_FUNCTION")
	}
	crash = true
	if res := env.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "Crash"}, imagetest.PNG(5, 5)); res.Status != http.StatusServiceUnavailable {
		t.Fatalf("crashed function: %d %s", res.Status, res.Raw)
	}
	if n := env.listCount(t); n != 1 {
		t.Fatalf("%d locations, want 1", n)
	}
	env.audit(t)
}
