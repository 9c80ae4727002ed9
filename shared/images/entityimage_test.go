package images_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/sweeper"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
)

func (e env) uploadAs(method, path, token, field string, fields map[string]string, data []byte) apitest.Response {
	e.T.Helper()
	ct, body := formFile(fields, field, data)
	return e.DoRaw(method, path, token, ct, body)
}

// Kanka's entities/{entity_id}/image: upload (`image` of 2022, `file` of today), show, remove,
// over records of any kind with images; replaced images are swept.
func TestEntityImageRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	ctx := context.Background()
	loc := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Plain"})
	cal := e.upload("POST", apitest.Path(e.Campaign, "/calendars"), e.Admin, withCalendar(map[string]string{"name": "Cal"}), nil)
	if loc.Status != 200 || cal.Status != 200 {
		t.Fatalf("%d %s / %d %s", loc.Status, loc.Raw, cal.Status, cal.Raw)
	}
	for _, c := range []struct {
		name, kind, field string
		rec               map[string]any
	}{
		{"location, image", "/locations/", "image", loc.Data()},
		{"calendar, file", "/calendars/", "file", cal.Data()},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := apitest.Path(e.Campaign, "/entities/"+itoa(c.rec["entity_id"])+"/image")
			e.Counter.Reset()
			res := e.uploadAs("POST", path, e.Admin, c.field, nil, imagetest.PNG(64, 32))
			if res.Status != 200 {
				t.Fatalf("upload: %d %s", res.Status, res.Raw)
			}
			// The campaign access, the entity (read ahead), the image's queue item, the record,
			// the transaction.
			if n := e.Counter.N(); n != 5 {
				t.Errorf("upload: %d DynamoDB calls, want 5", n)
			}
			d := res.Data()
			if d["entity_id"] != c.rec["entity_id"] || d["child_id"] != c.rec["id"] {
				t.Fatalf("ids: %v", d)
			}
			p := e.checkImage(t, d, "png", 64, 32)
			got := e.Do("GET", apitest.Path(e.Campaign, c.kind+itoa(c.rec["id"])), e.Viewer, nil)
			if got.Status != 200 || got.Data()["image"] != p || got.Data()["image_thumb"] != d["image_thumb"] {
				t.Fatalf("record: %d %s", got.Status, got.Raw)
			}
			shown := e.Do("GET", path, e.Viewer, nil)
			if shown.Status != 200 || shown.Data()["image_full"] != d["image_full"] || shown.Data()["has_custom_image"] != true {
				t.Fatalf("show: %d %s", shown.Status, shown.Raw)
			}
			// A second upload replaces it; the first is swept.
			res = e.uploadAs("POST", path, e.Member, c.field, nil, imagetest.JPEG(20, 40))
			if res.Status != 200 || res.Data()["image"] == p {
				t.Fatalf("replace: %d %s", res.Status, res.Raw)
			}
			if r, err := sweeper.Run(ctx, e.Store, 0, e.bucket); err != nil || r.Images != 1 {
				t.Fatalf("sweep: %+v %v", r, err)
			}
			del := e.Do("DELETE", path, e.Admin, nil)
			if del.Status != 200 || del.Data()["has_custom_image"] != false || del.Data()["image_full"] != "" {
				t.Fatalf("remove: %d %s", del.Status, del.Raw)
			}
			if r, err := sweeper.Run(ctx, e.Store, 0, e.bucket); err != nil || r.Images != 1 {
				t.Fatalf("sweep: %+v %v", r, err)
			}
			got = e.Do("GET", apitest.Path(e.Campaign, c.kind+itoa(c.rec["id"])), e.Admin, nil)
			if got.Data()["has_custom_image"] != false || got.Data()["image"] != "" {
				t.Fatalf("record after remove: %s", got.Raw)
			}
		})
	}
	e.audit(t)
}

func TestEntityImageRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	ctx := context.Background()
	pub := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Public"})
	priv := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Secret", "is_private": true})
	// Entity ids count per campaign: the other campaign's third is an id this one has not.
	var other apitest.Response
	for range 3 {
		other = e.Do("POST", apitest.Path(e.OtherCampaign, "/locations"), e.Stranger, map[string]any{"name": "Theirs"})
	}
	if pub.Status != 200 || priv.Status != 200 || other.Status != 200 {
		t.Fatalf("%s %s %s", pub.Raw, priv.Raw, other.Raw)
	}
	path := func(cid int64, rec apitest.Response) string {
		return apitest.Path(cid, "/entities/"+itoa(rec.Data()["entity_id"])+"/image")
	}
	png := imagetest.PNG(8, 8)
	for _, c := range []struct {
		name, method, path, token, field string
		fields                           map[string]string
		data                             []byte
		want                             int
		errField, errText                string
	}{
		{"viewer upload", "POST", path(e.Campaign, pub), e.Viewer, "image", nil, png, 403, "", ""},
		{"viewer remove", "DELETE", path(e.Campaign, pub), e.Viewer, "", nil, nil, 403, "", ""},
		{"outsider", "POST", path(e.Campaign, pub), e.Outsider, "image", nil, png, 404, "", ""},
		{"no token", "POST", path(e.Campaign, pub), "", "image", nil, png, 401, "", ""},
		{"other campaign's entity", "POST", path(e.Campaign, other), e.Admin, "image", nil, png, 404, "", ""},
		{"other campaign", "POST", path(e.OtherCampaign, other), e.Admin, "image", nil, png, 404, "", ""},
		{"private record, member upload", "POST", path(e.Campaign, priv), e.Member, "image", nil, png, 404, "", ""},
		{"private record, member show", "GET", path(e.Campaign, priv), e.Member, "", nil, nil, 404, "", ""},
		{"private record, member remove", "DELETE", path(e.Campaign, priv), e.Member, "", nil, nil, 404, "", ""},
		{"unknown entity", "POST", apitest.Path(e.Campaign, "/entities/999999/image"), e.Admin, "image", nil, png, 404, "", ""},
		{"not an image", "POST", path(e.Campaign, pub), e.Admin, "file", nil, []byte("<html><script>x</script>"), 422, "file", "must be a file of type"},
		{"bomb", "POST", path(e.Campaign, pub), e.Admin, "image", nil, imagetest.BombPNG(30000, 30000), 422, "image", "pixels"},
		{"no file", "POST", path(e.Campaign, pub), e.Admin, "", map[string]string{"name": "x"}, nil, 422, "image", "required"},
		{"file as text", "POST", path(e.Campaign, pub), e.Admin, "", map[string]string{"image": "aGVsbG8="}, nil, 422, "image", "one file"},
		{"header image", "POST", path(e.Campaign, pub), e.Admin, "file", map[string]string{"is_header": "1"}, png, 422, "is_header", "Header images"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var res apitest.Response
			if c.method == "POST" {
				res = e.uploadAs(c.method, c.path, c.token, c.field, c.fields, c.data)
			} else {
				res = e.Do(c.method, c.path, c.token, nil)
			}
			if res.Status != c.want {
				t.Fatalf("%d, want %d: %s", res.Status, c.want, res.Raw)
			}
			if c.errField != "" {
				msg, _ := res.Errors()[c.errField].([]any)
				if len(msg) != 1 || !strings.Contains(strings.ToLower(str(msg[0])), strings.ToLower(c.errText)) {
					t.Fatalf("errors: %s", res.Raw)
				}
			}
		})
	}
	// Nothing stored: no record holds an image, no queue item is due.
	for _, rec := range []apitest.Response{pub, priv} {
		got := e.Do("GET", apitest.Path(e.Campaign, "/locations/"+itoa(rec.Data()["id"])), e.Admin, nil)
		if got.Status != http.StatusOK || got.Data()["has_custom_image"] != false {
			t.Fatalf("%s", got.Raw)
		}
	}
	if r, err := sweeper.Run(ctx, e.Store, 0, e.bucket); err != nil || r.Images != 0 {
		t.Fatalf("sweep: %+v %v", r, err)
	}
	e.audit(t)
}

// Concurrent image writes on one record, through the entity route and the record's own update:
// one image is held at the end, every other stored one is swept, and the audit is clean.
func TestEntityImageRaces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	ctx := context.Background()
	loc := e.Do("POST", apitest.Path(e.Campaign, "/locations"), e.Admin, map[string]any{"name": "Contested"})
	if loc.Status != 200 {
		t.Fatalf("%d %s", loc.Status, loc.Raw)
	}
	entityPath := apitest.Path(e.Campaign, "/entities/"+itoa(loc.Data()["entity_id"])+"/image")
	recordPath := apitest.Path(e.Campaign, "/locations/"+itoa(loc.Data()["id"]))
	const writers = 6
	statuses := make([]int, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				statuses[i] = e.uploadAs("POST", entityPath, e.Admin, "file", nil, imagetest.PNG(10+i, 10)).Status
			} else {
				statuses[i] = e.upload("PATCH", recordPath, e.Admin, map[string]string{"name": "Contested"}, imagetest.PNG(10+i, 10)).Status
			}
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != 200 && s != 409 {
			t.Errorf("writer %d: %d, want 200 or 409", i, s)
		}
	}
	held := e.Do("GET", entityPath, e.Admin, nil)
	path := str(held.Data()["image"])
	if held.Status != 200 || path == "" {
		t.Fatalf("held: %d %s", held.Status, held.Raw)
	}
	// Every reservation but the held one is due now (replaced, or its write failed).
	if r, err := sweeper.Run(ctx, e.Store, 0, e.bucket); err != nil || r.Images != writers-1 {
		t.Fatalf("sweep: %+v %v, want %d images", r, err, writers-1)
	}
	if _, err := e.bucket.Get(ctx, path); err != nil {
		t.Fatalf("the held image: %v", err)
	}
	e.audit(t)
}

// Every image write moves the record's updated_at and sync pointers (and its entity's) in its
// transaction: a lastSync reader of the record's list and of the entities list sees each one,
// and not the record left alone.
func TestImageWritesMoveLastSync(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	for _, kind := range []string{"/locations", "/calendars"} {
		t.Run(kind, func(t *testing.T) {
			mk := func(name string) map[string]any {
				res := e.upload("POST", apitest.Path(e.Campaign, kind), e.Admin, withKind(kind, map[string]string{"name": name}), nil)
				if res.Status != 200 {
					t.Fatalf("%d %s", res.Status, res.Raw)
				}
				return res.Data()
			}
			rec, _ := mk("Changed"), mk("Left alone")
			id, eid := rec["id"], rec["entity_id"]
			imagePath := apitest.Path(e.Campaign, "/entities/"+itoa(eid)+"/image")
			recPath := apitest.Path(e.Campaign, kind+"/"+itoa(id))
			sync := str(e.Do("GET", apitest.Path(e.Campaign, kind), e.Admin, nil).Body["sync"])
			updated := str(rec["updated_at"])
			for _, w := range []struct {
				name  string
				by    int64
				write func() apitest.Response
			}{
				{"entity image upload", e.MemberID, func() apitest.Response {
					return e.uploadAs("POST", imagePath, e.Member, "file", nil, imagetest.PNG(30, 20))
				}},
				{"entity image removal", e.AdminID, func() apitest.Response { return e.Do("DELETE", imagePath, e.Admin, nil) }},
				{"record update with an image", e.MemberID, func() apitest.Response {
					return e.upload("PATCH", recPath, e.Member, withKind(kind, map[string]string{"name": "Changed"}), imagetest.PNG(20, 30))
				}},
				{"record update removing it", e.AdminID, func() apitest.Response {
					return e.Do("PATCH", recPath, e.Admin, map[string]any{"image_url": nil})
				}},
			} {
				if res := w.write(); res.Status != 200 {
					t.Fatalf("%s: %d %s", w.name, res.Status, res.Raw)
				}
				for _, list := range []struct{ path, id string }{{kind, itoa(id)}, {"/entities", itoa(eid)}} {
					res := e.Do("GET", apitest.Path(e.Campaign, list.path)+"?lastSync="+url.QueryEscape(sync), e.Admin, nil)
					rows := res.List()
					if res.Status != 200 || len(rows) != 1 {
						t.Fatalf("%s: %s since %s: %d %s", w.name, list.path, sync, res.Status, res.Raw)
					}
					row, _ := rows[0].(map[string]any)
					if itoa(row["id"]) != list.id || str(row["updated_at"]) <= updated || row["updated_by"] != float64(w.by) {
						t.Fatalf("%s: %s since %s: %v (updated before %s)", w.name, list.path, sync, row, updated)
					}
				}
				got := e.Do("GET", recPath, e.Admin, nil).Data()
				sync, updated = str(e.Do("GET", apitest.Path(e.Campaign, kind), e.Admin, nil).Body["sync"]), str(got["updated_at"])
			}
		})
	}
	e.audit(t)
}

func withKind(kind string, f map[string]string) map[string]string {
	if kind == "/calendars" {
		return withCalendar(f)
	}
	return f
}
