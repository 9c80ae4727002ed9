package maps_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
	"github.com/lorekeep/lorekeep/shared/testing/s3test"
)

// withImages is an environment whose maps store pictures (a layer needs one) in a local
// bucket, and the address of a local server answering a PNG of 20×10 for their image_url.
func withImages(t *testing.T) (*apitest.Env, string) {
	t.Helper()
	pic := imagetest.PNG(20, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(pic) }))
	t.Cleanup(srv.Close)
	b, base := s3test.Bucket(t)
	e := apitest.NewWith(t, func(api *httpapi.API, st *store.Store) {
		register(api, st)
		api.SetImages(images.New(imagework.New(b, st, imagework.Options{AllowHTTP: true, AllowLoopback: true}), st))
	}, apitest.WithAPI(func(o *httpapi.Options) { o.ImageBaseURL = base }))
	return e, srv.URL
}
