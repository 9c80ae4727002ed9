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
	"github.com/lorekeep/lorekeep/shared/imagework"
	"github.com/lorekeep/lorekeep/shared/sweeper"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
)

// TestMapImages: a map's picture through the maps routes, against the local S3: multipart
// `image` on create and update and `image_url` fetched; each stored (full and thumbnail), its
// size answered as width/height, the replaced ones and, after the purge, the deleted map's
// removed by the sweeper.
func TestMapImages(t *testing.T) {
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
