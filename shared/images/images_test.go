package images_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars"
	"github.com/lorekeep/lorekeep/shared/calendars/calendardays"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entities"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/images"
	"github.com/lorekeep/lorekeep/shared/images/imageproc"
	"github.com/lorekeep/lorekeep/shared/images/imagestore"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/maps"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/sweeper"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/guardtest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
	"github.com/lorekeep/lorekeep/shared/testing/s3test"
)

type env struct {
	*apitest.Env
	bucket *imagestore.Bucket
	base   string
}

func newEnv(t *testing.T, opts imagework.Options) env {
	b, base := s3test.Bucket(t)
	e := apitest.NewWith(t, func(api *httpapi.API, st *store.Store) {
		locations.Register(api, st)
		calendars.Register(api, st)
		calendardays.Register(api, st)
		entities.Register(api, st)
		maps.Register(api, st)
		svc := images.New(imagework.New(b, st, opts), st)
		api.SetImages(svc)
		images.Register(api, st, svc)
	}, apitest.WithAPI(func(o *httpapi.Options) { o.ImageBaseURL = base }))
	return env{Env: e, bucket: b, base: base}
}

// form is a multipart body: fields, and the file `image` when data is not nil.
func form(fields map[string]string, data []byte) (string, io.Reader) {
	return formFile(fields, "image", data)
}

// formFile is form with the file under name.
func formFile(fields map[string]string, name string, data []byte) (string, io.Reader) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	if data != nil {
		f, _ := w.CreateFormFile(name, "picture.png") // the name and type say nothing
		_, _ = f.Write(data)
	}
	_ = w.Close()
	return w.FormDataContentType(), &buf
}

func (e env) upload(method, path, token string, fields map[string]string, data []byte) apitest.Response {
	e.T.Helper()
	ct, body := form(fields, data)
	return e.DoRaw(method, path, token, ct, body)
}

// fetch reads a URL the API answered, as a reader's browser does.
func fetch(t *testing.T, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, res.StatusCode)
	}
	return b
}

func str(v any) string { s, _ := v.(string); return s }

// checkImage checks a record's image fields and the pictures they point at.
func (e env) checkImage(t *testing.T, rec map[string]any, ext string, w, h int) string {
	t.Helper()
	path := str(rec["image"])
	if rec["has_custom_image"] != true || !strings.HasPrefix(path, "img/") || !strings.HasSuffix(path, "."+ext) ||
		str(rec["image_full"]) != e.base+"/"+path || !strings.HasPrefix(str(rec["image_thumb"]), e.base+"/") {
		t.Fatalf("image fields: %v %v %v %v", rec["image"], rec["image_full"], rec["image_thumb"], rec["has_custom_image"])
	}
	for i, u := range []string{str(rec["image_full"]), str(rec["image_thumb"])} {
		b := fetch(t, u)
		if bytes.Contains(b, []byte(imagetest.Secret)) {
			t.Errorf("%s keeps the file's metadata", u)
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if i == 0 && (cfg.Width != w || cfg.Height != h) {
			t.Errorf("full %dx%d, want %dx%d", cfg.Width, cfg.Height, w, h)
		}
		if i == 1 && (cfg.Width > imageproc.ThumbSide || cfg.Height > imageproc.ThumbSide || max(cfg.Width, cfg.Height) != min(imageproc.ThumbSide, max(w, h))) {
			t.Errorf("thumb %dx%d", cfg.Width, cfg.Height)
		}
	}
	return path
}

func (e env) audit(t *testing.T) {
	t.Helper()
	problems, err := ops.Audit(context.Background(), e.Store, e.Campaign)
	if err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
}

func TestUploadEachFormat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	for _, c := range []struct {
		name, ext string
		data      []byte
		w, h      int
	}{
		{"png", "png", imagetest.PNG(640, 320), 640, 320},
		{"jpeg", "jpg", imagetest.JPEG(300, 600), 300, 600},
		{"gif", "gif", imagetest.GIF(120, 80), 120, 80},
		{"still gif", "png", imagetest.GIFFrames(120, 80, 1), 120, 80},
		{"jpeg turned upright", "jpg", imagetest.OrientedJPEG(imagetest.Quadrants(300, 600), 6, true), 600, 300},
		{"webp", "png", imagetest.WebP, 0, 0},
	} {
		for _, kind := range []string{"/locations", "/calendars"} {
			t.Run(c.name+kind, func(t *testing.T) {
				fields := map[string]string{"name": "With " + c.name}
				if kind == "/calendars" {
					for k, v := range calendarFields {
						fields[k] = v
					}
				}
				e.Counter.Reset()
				res := e.upload("POST", apitest.Path(e.Campaign, kind), e.Admin, fields, c.data)
				if res.Status != http.StatusOK {
					t.Fatalf("create: %d %s", res.Status, res.Raw)
				}
				calls := e.Counter.N()
				w, h := c.w, c.h
				if w == 0 {
					cfg, _ := imageproc.Process(c.data)
					w, h = cfg.Full.Width, cfg.Full.Height
				}
				rec := res.Data()
				e.checkImage(t, rec, c.ext, w, h)
				// A reader sees the same fields.
				got := e.Do("GET", apitest.Path(e.Campaign, kind+"/"+itoa(rec["id"])), e.Viewer, nil)
				if got.Status != 200 || got.Data()["image_full"] != rec["image_full"] || got.Data()["has_custom_image"] != true {
					t.Fatalf("viewer read: %d %v", got.Status, got.Data()["image_full"])
				}
				// The campaign access, the ids, the image's queue item, the transaction.
				if calls != 4 {
					t.Errorf("create with an image: %d DynamoDB calls, want 4", calls)
				}
			})
		}
	}
	e.audit(t)
}

func itoa(v any) string { f, _ := v.(float64); return strconv.FormatInt(int64(f), 10) }

// listCount is how many locations the admin sees.
func (e env) listCount(t *testing.T) int {
	t.Helper()
	res := e.Do("GET", apitest.Path(e.Campaign, "/locations"), e.Admin, nil)
	if res.Status != 200 {
		t.Fatalf("list: %d", res.Status)
	}
	return len(res.List())
}

func TestBadFilesWriteNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	png := imagetest.PNG(20, 20)
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"text", "must be a file of type", []byte("just text, named picture.png")},
		{"svg", "must be a file of type", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)},
		{"html", "must be a file of type", []byte("<html><script>alert(1)</script></html>")},
		{"truncated", "could not be decoded", png[:70]},
		{"bomb", "pixels", imagetest.BombPNG(30000, 30000)},
		{"bomb within sides", "pixels", imagetest.BombPNG(9000, 9000)},
		{"empty", "must be a file", []byte{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			res := e.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "Bad"}, c.data)
			msg, _ := res.Errors()["image"].([]any)
			if res.Status != 422 || len(msg) != 1 || !strings.Contains(str(msg[0]), c.want) {
				t.Fatalf("%d %s", res.Status, res.Raw)
			}
			if n := e.Counter.N(); n > 1 { // the campaign access only: nothing reserved, nothing written
				t.Errorf("%d DynamoDB calls for a refused image", n)
			}
		})
	}
	// Too large for the body: refused before it is read.
	big := append(imagetest.PNG(10, 10), make([]byte, httpapi.MaxUploadBytes)...)
	if res := e.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "Big"}, big); res.Status != 413 ||
		res.Body["message"] != "A multipart request body must not be larger than 4.25 MiB: an image file of at most 4 MiB and the other fields." {
		t.Fatalf("huge upload: %d %s, want 413 naming the multipart limit", res.Status, res.Raw)
	}
	// An image sent as a text field is no file.
	if res := e.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "T", "image": "aGVsbG8="}, nil); res.Status != 422 || res.Errors()["image"] == nil {
		t.Fatalf("text image: %d %s", res.Status, res.Raw)
	}
	if n := e.listCount(t); n != 0 {
		t.Fatalf("%d locations written by refused requests", n)
	}
	e.audit(t)
}

func TestImageURLGuard(t *testing.T) {
	t.Parallel()
	pic := imagetest.JPEG(400, 100)
	mux := http.NewServeMux()
	mux.HandleFunc("/pic.jpg", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(pic) })
	mux.HandleFunc("/text", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png") // the header is not trusted
		_, _ = w.Write([]byte("not an image"))
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(pic)
		_, _ = w.Write(make([]byte, imageproc.MaxBytes))
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.0.0.1/pic.jpg", http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	local := newEnv(t, imagework.Options{AllowHTTP: true, AllowLoopback: true}) // as `make run` may
	res := local.Do("POST", apitest.Path(local.Campaign, "/locations"), local.Admin, map[string]any{"name": "Fetched", "image_url": srv.URL + "/pic.jpg"})
	if res.Status != 200 {
		t.Fatalf("fetch: %d %s", res.Status, res.Raw)
	}
	local.checkImage(t, res.Data(), "jpg", 400, 100)
	for _, c := range []struct{ path, want string }{
		{"/text", "must be a file of type"},
		{"/huge", "larger than"},
		{"/missing", "HTTP 404"},
		{"/to-metadata", "public internet address"},
		{"/to-private", "public internet address"},
		{"/to-file", "public internet address"},
		{"/loop", "redirects more than"},
	} {
		t.Run(c.path, func(t *testing.T) {
			res := local.Do("POST", apitest.Path(local.Campaign, "/locations"), local.Admin, map[string]any{"name": "X", "image_url": srv.URL + c.path})
			msg, _ := res.Errors()["image_url"].([]any)
			if res.Status != 422 || len(msg) != 1 || !strings.Contains(str(msg[0]), c.want) {
				t.Fatalf("%d %s", res.Status, res.Raw)
			}
		})
	}

	// The service's own guard: no loopback, private, link-local or metadata address, by IP or
	// name, and https only.
	e := newEnv(t, imagework.Options{})
	for _, u := range []string{
		srv.URL + "/pic.jpg", // loopback (and http)
		"https://127.0.0.1/pic.jpg", "https://[::1]/pic.jpg", "https://localhost/pic.jpg",
		"https://169.254.169.254/latest/meta-data/", "https://[fd00:ec2::254]/", "https://10.1.2.3/a.png",
		"https://192.168.0.1/a.png", "https://[::ffff:127.0.0.1]/a.png", "https://0.0.0.0/a.png",
		"ftp://example.com/a.png", "https://user:pw@example.com/a.png", "not a url",
	} {
		res := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "X", "image_url": u})
		if res.Status != 422 || res.Errors()["image_url"] == nil {
			t.Errorf("%s: %d %s", u, res.Status, res.Raw)
		}
	}
	if n := e.listCount(t); n != 0 {
		t.Fatalf("%d locations written", n)
	}
	e.audit(t)
}

// Every hostile image_url host (guardtest: non-public addresses in every spelling) is a 422
// naming image_url on create and update, with loopback allowed or not; nothing is written, no
// picture reserved.
func TestHostileImageURLsAreRefused(t *testing.T) {
	t.Parallel()
	local := newEnv(t, imagework.Options{AllowHTTP: true, AllowLoopback: true})
	prod := newEnv(t, imagework.Options{})
	res := local.Do("POST", apitest.Path(local.Campaign, "/locations"), local.Admin, map[string]any{"name": "Kept"})
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	item := apitest.Path(local.Campaign, "/locations/"+itoa(res.Data()["id"]))
	refused := func(e env, method, path, u string) {
		t.Helper()
		res := e.Do(method, path, e.Admin, map[string]any{"name": "X", "image_url": u})
		msg, _ := res.Errors()["image_url"].([]any)
		if res.Status != 422 || len(msg) != 1 || !strings.HasPrefix(str(msg[0]), "The image url must ") {
			t.Errorf("%s %s: %d %s, want 422 naming image_url", method, u, res.Status, res.Raw)
		}
	}
	for _, h := range guardtest.Hostile {
		u := "http://" + h.Host + "/latest/meta-data/"
		refused(local, "POST", apitest.Path(local.Campaign, "/locations"), u)
		refused(local, "PATCH", item, u)
		refused(prod, "POST", apitest.Path(prod.Campaign, "/locations"), strings.Replace(u, "http:", "https:", 1))
	}
	for _, h := range guardtest.Loopback {
		refused(prod, "POST", apitest.Path(prod.Campaign, "/locations"), "https://"+h.Host+"/a.png")
	}
	res = local.Do("GET", item, local.Admin, nil)
	if res.Status != 200 || res.Data()["name"] != "Kept" || res.Data()["has_custom_image"] != false {
		t.Errorf("after the refused updates: %d %s", res.Status, res.Raw)
	}
	if n := local.listCount(t); n != 1 {
		t.Errorf("%d locations, want the one kept", n)
	}
	if n := prod.listCount(t); n != 0 {
		t.Errorf("%d locations written by refused creates", n)
	}
	for _, e := range []env{local, prod} {
		later := e.Store.AtTime(func() time.Time { return time.Now().Add(store.ImageClaimWindow + time.Minute) })
		if r, err := sweeper.Run(context.Background(), later, 0, e.bucket); err != nil || r.Images != 0 {
			t.Errorf("sweep: %+v %v, want no picture reserved", r, err)
		}
		e.audit(t)
	}
}

func TestReplacedAndDeletedImagesAreSwept(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	ctx := context.Background()
	res := e.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "Keep"}, imagetest.PNG(50, 50))
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	id := itoa(res.Data()["id"])
	first := str(res.Data()["image"])
	// Update with a new picture: the first is queued for the sweeper, in the same transaction.
	e.Counter.Reset()
	res = e.upload("PATCH", apitest.Path(e.Campaign, "/locations/"+id), e.Admin, map[string]string{"name": "Keep"}, imagetest.JPEG(60, 40))
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	if n := e.Counter.N(); n != 3 { // the record (read ahead with the access), the queue item, the transaction
		t.Errorf("update with an image: %d DynamoDB calls, want 3", n)
	}
	second := e.checkImage(t, res.Data(), "jpg", 60, 40)
	e.audit(t)
	sweep := func() store.SweepResult {
		r, err := sweeper.Run(ctx, e.Store, 0, e.bucket)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := sweep(); r.Images != 1 {
		t.Fatalf("sweep: %+v", r)
	}
	for _, p := range []string{first, domain.ImageThumbPath(first)} {
		if _, err := e.bucket.Get(ctx, p); !errors.Is(err, apperr.ErrNotFound) {
			t.Fatalf("%s after the sweep: %v", p, err)
		}
	}
	if _, err := e.bucket.Get(ctx, second); err != nil {
		t.Fatalf("the held image: %v", err)
	}
	// An update without an image keeps it; image_url null removes it.
	res = e.Do("PATCH", apitest.Path(e.Campaign, "/locations/"+id), e.Admin, map[string]any{"type": "Town"})
	if str(res.Data()["image"]) != second {
		t.Fatalf("image after an update without one: %v", res.Data()["image"])
	}
	// Delete: the trash keeps the image (a restore brings it back); the purge, 30 days on,
	// queues it and the sweep deletes it.
	if res := e.Do("DELETE", apitest.Path(e.Campaign, "/locations/"+id), e.Admin, nil); res.Status != 200 && res.Status != 204 {
		t.Fatalf("delete: %d", res.Status)
	}
	if r := sweep(); r.Images != 0 {
		t.Fatalf("sweep after delete: %+v, want the trashed record's image kept", r)
	}
	if _, err := e.bucket.Get(ctx, second); err != nil {
		t.Fatalf("the trashed record's image: %v", err)
	}
	e.audit(t)
	later := e.Store.AtTime(func() time.Time { return time.Now().Add(31 * 24 * time.Hour) })
	if r, err := sweeper.Run(ctx, later, 0, e.bucket); err != nil || r.Purged != 1 || r.Images != 1 {
		t.Fatalf("sweep 31 days on: %+v %v, want the record purged and its image deleted", r, err)
	}
	if _, err := e.bucket.Get(ctx, second); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("the purged record's image: %v", err)
	}
	if r := sweep(); r.Images != 0 {
		t.Fatalf("a second sweep: %+v", r)
	}
	e.audit(t)
}

func TestImageClearedByNull(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	res := e.upload("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, withCalendar(map[string]string{"name": "C"}), imagetest.PNG(5, 5))
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	id := itoa(res.Data()["id"])
	res = e.Do("PATCH", apitest.Path(e.Campaign, "/calendars/"+id), e.Admin, map[string]any{"image_url": nil})
	if res.Status != 200 || res.Data()["has_custom_image"] != false || res.Data()["image_full"] != "" {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	if r, err := sweeper.Run(context.Background(), e.Store, 0, e.bucket); err != nil || r.Images != 1 {
		t.Fatalf("sweep: %+v %v", r, err)
	}
	e.audit(t)
}

func TestImageAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	res := e.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "Mine"}, imagetest.PNG(8, 8))
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	id := itoa(res.Data()["id"])
	other := e.upload("POST", apitest.Path(e.OtherCampaign, "/locations"), e.Stranger, map[string]string{"name": "Theirs"}, imagetest.PNG(8, 8))
	if other.Status != 200 {
		t.Fatalf("%d %s", other.Status, other.Raw)
	}
	for _, c := range []struct {
		name, method, path, token string
		want                      int
	}{
		{"viewer create", "POST", apitest.Path(e.Campaign, "/locations"), e.Viewer, 403},
		{"viewer update", "PATCH", apitest.Path(e.Campaign, "/locations/"+id), e.Viewer, 403},
		{"outsider update", "PATCH", apitest.Path(e.Campaign, "/locations/"+id), e.Outsider, 404},
		{"other campaign's record", "PATCH", apitest.Path(e.OtherCampaign, "/locations/"+itoa(other.Data()["id"])), e.Admin, 404},
		{"no token", "POST", apitest.Path(e.Campaign, "/locations"), "", 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.Counter.Reset()
			res := e.upload(c.method, c.path, c.token, map[string]string{"name": "Changed"}, imagetest.PNG(8, 8))
			if res.Status != c.want {
				t.Fatalf("%d, want %d: %s", res.Status, c.want, res.Raw)
			}
		})
	}
	// Nothing was reserved for the refused writes: the only queue items are none (both images held).
	if r, err := sweeper.Run(context.Background(), e.Store, 0, e.bucket); err != nil || r.Images != 0 {
		t.Fatalf("sweep: %+v %v", r, err)
	}
	e.audit(t)
}

var calendarFields = map[string]string{"month_name[0]": "Early", "month_length[0]": "30", "month_name[1]": "Late",
	"month_length[1]": "31", "weekday[0]": "Moon", "weekday[1]": "Sun"}

func withCalendar(f map[string]string) map[string]string {
	for k, v := range calendarFields {
		f[k] = v
	}
	return f
}

// A write that answered an error after its transaction committed settles its image as failed:
// the discard is conditional on the reservation, so the held image is never queued.
func TestDiscardNeverTakesAHeldImage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	ctx := context.Background()
	res := e.upload("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]string{"name": "Held"}, imagetest.PNG(9, 9))
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	path := str(res.Data()["image"])
	if err := e.Store.DiscardImage(ctx, e.Campaign, path); err != nil {
		t.Fatal(err)
	}
	if r, err := sweeper.Run(ctx, e.Store, 0, e.bucket); err != nil || r.Images != 0 {
		t.Fatalf("sweep: %+v %v", r, err)
	}
	if _, err := e.bucket.Get(ctx, path); err != nil {
		t.Fatalf("held image: %v", err)
	}
	// A reservation never claimed is discarded: its objects go with the next sweep.
	orphan, err := e.Store.ReserveImage(ctx, e.Campaign, "png")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.bucket.Put(ctx, orphan, "image/png", imagetest.PNG(2, 2)); err != nil {
		t.Fatal(err)
	}
	if err := e.Store.DiscardImage(ctx, e.Campaign, orphan); err != nil {
		t.Fatal(err)
	}
	if r, err := sweeper.Run(ctx, e.Store, 0, e.bucket); err != nil || r.Images != 1 {
		t.Fatalf("sweep: %+v %v", r, err)
	}
	if _, err := e.bucket.Get(ctx, orphan); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("orphan after the sweep: %v", err)
	}
	e.audit(t)
}

// A write that stores an image has httpapi.ImageTimeout, not the 1.8 s of every other request:
// a slow image_url (2.5 s) is stored.
func TestImageWritesOutliveTheRequestDeadline(t *testing.T) {
	t.Parallel()
	pic := imagetest.JPEG(40, 20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(2500 * time.Millisecond)
		_, _ = w.Write(pic)
	}))
	defer srv.Close()
	b, base := s3test.Bucket(t)
	e := apitest.NewWith(t, func(api *httpapi.API, st *store.Store) {
		locations.Register(api, st)
		api.SetImages(images.New(imagework.New(b, st, imagework.Options{AllowHTTP: true, AllowLoopback: true}), st))
	}, apitest.WithAPI(func(o *httpapi.Options) { o.ImageBaseURL, o.Timeout = base, httpapi.DefaultTimeout }))
	env := env{Env: e, bucket: b, base: base}
	res := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Slow", "image_url": srv.URL + "/pic.jpg"})
	if res.Status != 200 {
		t.Fatalf("slow image_url: %d %s", res.Status, res.Raw)
	}
	env.checkImage(t, res.Data(), "jpg", 40, 20)
	// And an update (read, conflict retries, write) the same.
	res = e.Do("PATCH", apitest.Path(e.Campaign, "/locations/"+itoa(res.Data()["id"])), e.Admin, map[string]any{"image_url": srv.URL + "/again.jpg"})
	if res.Status != 200 {
		t.Fatalf("slow image_url on update: %d %s", res.Status, res.Raw)
	}
	env.checkImage(t, res.Data(), "jpg", 40, 20)
	env.audit(t)
}
