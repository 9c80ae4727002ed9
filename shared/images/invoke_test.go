package images_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/sweeper"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
	"github.com/lorekeep/lorekeep/shared/testing/lambdatest"
	"github.com/lorekeep/lorekeep/shared/testing/s3test"
)

// The family functions' side (images.Invoker: the upload put under incoming/, a SigV4-signed
// Invoke) against ImagesFunction's real handler (imagework.LambdaHandler) behind a local
// server of Lambda's Invoke API: stored images, a bad file's 422 naming the field, the guard's
// 422 naming image_url; a crashed function's 422 naming the field (never a 503, which says
// DynamoDB is unavailable) that writes no record, and a refused invoke's 429.
func TestInvokeProtocol(t *testing.T) {
	t.Parallel()
	b, base := s3test.Bucket(t)
	var worker *imagework.Worker
	var last images.Job
	crash := ""
	handler := func(ctx context.Context, payload json.RawMessage) (any, error) {
		var req images.InvokeRequest
		if json.Unmarshal(payload, &req) == nil && req.ImageJob != nil {
			last = *req.ImageJob
		}
		switch crash {
		case "before":
			return nil, errors.New("deliberate crash")
		case "panic":
			panic("deliberate panic")
		case "after": // the picture stored, then the function dies (a timeout, say)
			if _, err := imagework.LambdaHandler(nil, worker)(ctx, payload); err != nil {
				return nil, err
			}
			return nil, errors.New("Task timed out after 25.00 seconds")
		case "null":
			return nil, nil
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
	// An unknown function and a throttled or failing Invoke API are ErrImagesBusy (429), nothing stored.
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
		if _, err := inv.Process(ctx, images.Job{CampaignID: e.Campaign, Field: "image", Data: imagetest.PNG(3, 3)}); !errors.Is(err, apperr.ErrImagesBusy) || errors.Is(err, apperr.ErrUnavailable) {
			t.Errorf("%s: %v, want busy", name, err)
		}
	}
	if _, err := images.NewInvoker(b, images.InvokeConfig{}); err == nil {
		t.Error("an invoker without IMAGES_FUNCTION")
	}
	// A family whose invoke is refused answers 429 with Retry-After through HTTP.
	e2 := apitest.NewWith(t, func(api *httpapi.API, st *store.Store) {
		locations.Register(api, st)
		api.SetImages(images.New(slow, st))
	}, apitest.WithAPI(func(o *httpapi.Options) { o.ImageBaseURL = base }))
	res = (env2(e2, b, base)).upload("POST", apitest.Path(e2.Campaign, "/locations"), e2.Admin, map[string]string{"name": "Busy"}, imagetest.PNG(5, 5))
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(str(res.Body["message"]), "image service is busy") {
		t.Fatalf("throttled invoke: %d %v %s", res.Status, res.Header, res.Raw)
	}

	for _, mode := range []string{"before", "panic", "after", "null"} {
		t.Run("crash "+mode, func(t *testing.T) {
			crash = mode
			defer func() { crash = "" }()
			res := env.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "Crash"}, imagetest.PNG(5, 5))
			msg, _ := res.Errors()["image"].([]any)
			if res.Status != 422 || len(msg) != 1 || !strings.Contains(str(msg[0]), "could not be processed") {
				t.Fatalf("crashed function: %d %s", res.Status, res.Raw)
			}
			res = e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Crash", "image_url": "https://example.invalid/a.png"})
			if msg, _ := res.Errors()["image_url"].([]any); res.Status != 422 || len(msg) != 1 {
				t.Fatalf("crashed function on an image_url: %d %s", res.Status, res.Raw)
			}
			if n := env.listCount(t); n != 1 {
				t.Fatalf("%d locations, want 1", n)
			}
			env.audit(t)
		})
	}
	// What the function stored before it died is only reserved: no record holds it, and the
	// sweeper deletes it once the claim window has passed.
	later := e.Store.AtTime(func() time.Time { return time.Now().Add(store.ImageClaimWindow + time.Minute) })
	if r, err := sweeper.Run(ctx, later, 0, b); err != nil || r.Images != 1 {
		t.Fatalf("sweep after the claim window: %+v %v, want the dead job's picture", r, err)
	}
	env.audit(t)
}

func env2(e *apitest.Env, b *imagestore.Bucket, base string) env {
	return env{Env: e, bucket: b, base: base}
}
