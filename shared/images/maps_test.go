package images_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/sweeper"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
)

// TestMapImages: a map's picture through the maps routes, against the local S3: multipart
// `image` on create and update and `image_url` fetched; each stored (full and thumbnail), its
// size answered as width/height, the replaced ones and, after the purge, the deleted map's
// removed by the sweeper.
func TestMapImages(t *testing.T) {
	t.Parallel()
	pic := imagetest.PNG(20, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(pic) }))
	defer srv.Close()
	e := newEnv(t, imagework.Options{AllowHTTP: true, AllowLoopback: true})
	ctx := context.Background()
	var id string
	var paths []string
	steps := []struct {
		name string
		do   func() apitest.Response
		ext  string
		w, h int
	}{
		{"create with an upload", func() apitest.Response {
			return e.upload("POST", apitest.Path(e.Campaign, "/maps"), e.Admin, map[string]string{"name": "World", "grid": "10"}, imagetest.PNG(50, 40))
		}, "png", 50, 40},
		{"update with an upload", func() apitest.Response {
			return e.upload("PATCH", apitest.Path(e.Campaign, "/maps/"+id), e.Admin, map[string]string{"name": "World"}, imagetest.JPEG(60, 30))
		}, "jpg", 60, 30},
		{"update with image_url", func() apitest.Response {
			return e.Do("PATCH", apitest.Path(e.Campaign, "/maps/"+id), e.Admin, map[string]any{"image_url": srv.URL + "/map.png", "width": 5})
		}, "png", 20, 10},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res := s.do()
			if res.Status != 200 {
				t.Fatalf("%d %s", res.Status, res.Raw)
			}
			d := res.Data()
			id = itoa(d["id"])
			path := e.checkImage(t, d, s.ext, s.w, s.h)
			if d["width"] != float64(s.w) || d["height"] != float64(s.h) || d["grid"] != float64(10) {
				t.Errorf("width %v, height %v, grid %v; want %d, %d, 10", d["width"], d["height"], d["grid"], s.w, s.h)
			}
			for _, p := range []string{path, domain.ImageThumbPath(path)} {
				if _, err := e.bucket.Get(ctx, p); err != nil {
					t.Errorf("stored object %s: %v", p, err)
				}
			}
			if shown := e.Do("GET", apitest.Path(e.Campaign, "/maps/"+id), e.Member, nil).Data(); shown["image"] != path || shown["width"] != float64(s.w) {
				t.Errorf("member reads %v", shown)
			}
			paths = append(paths, path)
			e.audit(t)
		})
	}
	sweep := func(later time.Duration) (int, int) {
		t.Helper()
		r, err := sweeper.Run(ctx, e.Store.AtTime(func() time.Time { return time.Now().Add(later) }), 0, e.bucket)
		if err != nil {
			t.Fatal(err)
		}
		return r.Images, r.Purged
	}
	if n, _ := sweep(0); n != 2 {
		t.Fatalf("sweep: %d images, want the 2 replaced", n)
	}
	for i, p := range paths {
		_, err := e.bucket.Get(ctx, p)
		if gone := errors.Is(err, apperr.ErrNotFound); gone != (i < 2) {
			t.Errorf("%s after the sweep: %v", p, err)
		}
	}
	// A cleared picture has no size.
	if d := e.Do("PATCH", apitest.Path(e.Campaign, "/maps/"+id), e.Admin, map[string]any{"image_url": nil}).Data(); d["width"] != nil || d["height"] != nil || d["has_custom_image"] != false {
		t.Fatalf("cleared: %v", d)
	}
	res := e.upload("PATCH", apitest.Path(e.Campaign, "/maps/"+id), e.Admin, map[string]string{"name": "World"}, imagetest.PNG(30, 30))
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	last := str(res.Data()["image"])
	if r := e.Do("DELETE", apitest.Path(e.Campaign, "/maps/"+id), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	e.audit(t)
	if n, _ := sweep(0); n != 1 { // the one cleared; the trashed map keeps its own
		t.Fatalf("sweep after the delete: %d images, want 1", n)
	}
	if _, err := e.bucket.Get(ctx, last); err != nil {
		t.Fatalf("the trashed map's picture: %v", err)
	}
	if n, purged := sweep(31 * 24 * time.Hour); purged != 1 || n != 1 {
		t.Fatalf("sweep 31 days on: %d images, %d purged; want the map purged and its picture deleted", n, purged)
	}
	for _, p := range []string{last, domain.ImageThumbPath(last)} {
		if _, err := e.bucket.Get(ctx, p); !errors.Is(err, apperr.ErrNotFound) {
			t.Fatalf("the purged map's %s: %v", p, err)
		}
	}
	e.audit(t)
}

// TestLayerImages: a layer's picture through the map_layers routes, as a map's: multipart
// `image` on create, `image_url` fetched on update, each stored with its thumbnail and size;
// a layer cannot lose its picture; the replaced picture, the deleted layer's and, after the
// map's purge, the last layer's are removed by the sweeper; nothing is left in the bucket.
func TestLayerImages(t *testing.T) {
	t.Parallel()
	pic := imagetest.PNG(20, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(pic) }))
	defer srv.Close()
	e := newEnv(t, imagework.Options{AllowHTTP: true, AllowLoopback: true})
	ctx := context.Background()
	mid := itoa(e.Do("POST", apitest.Path(e.Campaign, "/maps"), e.Admin, map[string]any{"name": "World"}).Data()["id"])
	layers := apitest.Path(e.Campaign, "/maps/"+mid+"/map_layers")
	sweep := func(later time.Duration) (int, int) {
		t.Helper()
		r, err := sweeper.Run(ctx, e.Store.AtTime(func() time.Time { return time.Now().Add(later) }), 0, e.bucket)
		if err != nil {
			t.Fatal(err)
		}
		return r.Images, r.Purged
	}
	stored := func(t *testing.T, d map[string]any, ext string, w, h int) string {
		t.Helper()
		path := e.checkImage(t, d, ext, w, h)
		if d["width"] != float64(w) || d["height"] != float64(h) {
			t.Errorf("width %v, height %v; want %d, %d", d["width"], d["height"], w, h)
		}
		for _, p := range []string{path, domain.ImageThumbPath(path)} {
			if _, err := e.bucket.Get(ctx, p); err != nil {
				t.Errorf("stored object %s: %v", p, err)
			}
		}
		return path
	}
	gone := func(t *testing.T, paths ...string) {
		t.Helper()
		for _, p := range paths {
			for _, o := range []string{p, domain.ImageThumbPath(p)} {
				if _, err := e.bucket.Get(ctx, o); !errors.Is(err, apperr.ErrNotFound) {
					t.Errorf("%s after the sweep: %v", o, err)
				}
			}
		}
	}

	res := e.upload("POST", layers, e.Admin, map[string]string{"name": "Night", "type_id": "1"}, imagetest.PNG(50, 40))
	if res.Status != 201 && res.Status != 200 {
		t.Fatalf("create: %d %s", res.Status, res.Raw)
	}
	first := stored(t, res.Data(), "png", 50, 40)
	lid := itoa(res.Data()["id"])
	res = e.Do("PATCH", layers+"/"+lid, e.Admin, map[string]any{"image_url": srv.URL + "/night.png"})
	if res.Status != 200 {
		t.Fatalf("update: %d %s", res.Status, res.Raw)
	}
	second := stored(t, res.Data(), "png", 20, 10)
	// The map answer embeds the layer with the same fields, for a member too.
	m := e.Do("GET", apitest.Path(e.Campaign, "/maps/"+mid), e.Member, nil).Data()
	if ls, _ := m["layers"].([]any); len(ls) != 1 || ls[0].(map[string]any)["image"] != second || ls[0].(map[string]any)["width"] != float64(20) {
		t.Errorf("map's layers = %v", m["layers"])
	}
	e.audit(t)
	// Bad input changes nothing: no picture, a cleared one, a file that is no image.
	for _, bad := range []struct {
		name string
		res  apitest.Response
	}{
		{"create without a picture", e.Do("POST", layers, e.Admin, map[string]any{"name": "Bare"})},
		{"picture cleared", e.Do("PATCH", layers+"/"+lid, e.Admin, map[string]any{"image_url": nil})},
		{"not an image", e.upload("PATCH", layers+"/"+lid, e.Admin, map[string]string{"name": "Night"}, []byte("<html>no</html>"))},
	} {
		if bad.res.Status != 422 {
			t.Errorf("%s: %d %s", bad.name, bad.res.Status, bad.res.Raw)
		}
	}
	if d := e.Do("GET", layers+"/"+lid, e.Admin, nil).Data(); d["image"] != second {
		t.Errorf("after refused writes the layer shows %v", d["image"])
	}
	if n, _ := sweep(0); n != 1 {
		t.Fatalf("sweep: %d images, want the 1 replaced", n)
	}
	gone(t, first)
	// A deleted layer's picture is swept.
	if r := e.Do("DELETE", layers+"/"+lid, e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	e.audit(t)
	if n, _ := sweep(0); n != 1 {
		t.Fatalf("sweep after the layer's delete: %d images, want 1", n)
	}
	gone(t, second)
	// The map's purge takes its last layer's picture.
	res = e.upload("POST", layers, e.Admin, map[string]string{"name": "Day"}, imagetest.JPEG(30, 30))
	last := stored(t, res.Data(), "jpg", 30, 30)
	if r := e.Do("DELETE", apitest.Path(e.Campaign, "/maps/"+mid), e.Admin, nil); r.Status != 200 {
		t.Fatalf("map delete: %d %s", r.Status, r.Raw)
	}
	e.audit(t)
	if n, _ := sweep(0); n != 0 {
		t.Fatalf("sweep while the map is in the trash: %d images, want 0", n)
	}
	if n, purged := sweep(31 * 24 * time.Hour); purged != 1 || n != 1 {
		t.Fatalf("sweep 31 days on: %d images, %d purged; want the map purged and its layer's picture deleted", n, purged)
	}
	gone(t, last)
	e.audit(t)
}
