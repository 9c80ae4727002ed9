package images_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/images/imagework"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
)

// `lorekeep migrate`'s image step: the image_urls of records written before images were stored
// are fetched through the guard from a real local server into the bucket, a bounded batch a
// run from a checkpoint; a non-image, a missing file and a refused address leave their records
// as they were and are reported; a second pass stores nothing twice.
func TestMigrateLegacyImages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, imagework.Options{})
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/wide.png":
			_, _ = w.Write(imagetest.PNG(80, 40))
		case "/photo.jpg":
			_, _ = w.Write(imagetest.JPEG(30, 60))
		case "/page.html":
			w.Header().Set("Content-Type", "image/png") // a lie: the bytes decide
			_, _ = w.Write([]byte("<html><body>not a picture</body></html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	w := imagework.New(e.bucket, e.Store, imagework.Options{AllowHTTP: true, AllowLoopback: true})

	meta := domain.Meta{CampaignID: e.Campaign, CreatedBy: e.AdminID, UpdatedBy: e.AdminID}
	legacy := map[string]string{ // name: its image_url
		"Wide":     srv.URL + "/wide.png",
		"Secret":   srv.URL + "/wide.png",
		"Page":     srv.URL + "/page.html",
		"Gone":     srv.URL + "/gone.png",
		"Metadata": "http://169.254.169.254/latest/meta-data/",
		"Plain":    "",
	}
	ids := map[string]int64{}
	for name, u := range legacy {
		l := domain.Location{Meta: meta, Owner: domain.Owner{Name: name, ImageURL: u, IsPrivate: name == "Secret"}}
		if err := locstore.New(e.Store).CreateLocation(ctx, &l); err != nil {
			t.Fatal(err)
		}
		ids[name] = l.ID
	}
	cal := timeline.Calendar{Meta: meta, Owner: domain.Owner{Name: "Photo", ImageURL: srv.URL + "/photo.jpg"},
		Date: calengine.Date{Year: 1, Month: 1, Day: 1}, Months: []calengine.Month{{Name: "Early", Length: 30}, {Name: "Late", Length: 31}},
		Weekdays: []string{"Moon", "Sun"}}
	if err := calstore.New(e.Store).CreateCalendar(ctx, &cal); err != nil {
		t.Fatal(err)
	}
	sync := str(e.Do("GET", apitest.Path(e.Campaign, "/locations"), e.Admin, nil).Body["sync"])

	// The checkpoint moves only when a batch is saved: an interrupted run's batch comes again.
	b1, err := ops.LegacyImages(ctx, e.Store, 2)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := ops.LegacyImages(ctx, e.Store, 2)
	if len(b1.Images) != 2 || b1.Done || len(b2.Images) != 2 || b1.Images[0] != b2.Images[0] || b1.Images[1] != b2.Images[1] {
		t.Fatalf("batches %+v, %+v", b1, b2)
	}

	var stored, skipped, runs int
	failed := map[int64]string{}
	for done := false; !done; runs++ {
		if runs > 5 {
			t.Fatal("the pass does not end")
		}
		res, err := ops.MigrateLegacyImages(ctx, e.Store, w, 2)
		if err != nil {
			t.Fatal(err)
		}
		if n := res.Stored + res.Skipped + len(res.Failed); n > 2 {
			t.Fatalf("run %d handled %d records, bound 2", runs, n)
		}
		stored, skipped, done = stored+res.Stored, skipped+res.Skipped, res.Done
		for _, f := range res.Failed {
			failed[f.EntityID] = f.Reason
		}
	}
	if stored != 3 || skipped != 0 || len(failed) != 3 || runs != 3 {
		t.Fatalf("stored %d, skipped %d, failed %v in %d runs", stored, skipped, failed, runs)
	}
	// What each record shows now.
	for name, u := range legacy {
		got := e.Do("GET", apitest.Path(e.Campaign, "/locations/"+itoa(float64(ids[name]))), e.Admin, nil).Data()
		switch name {
		case "Wide", "Secret":
			e.checkImage(t, got, "png", 80, 40)
			if str(got["updated_at"]) <= sync {
				t.Errorf("%s: updated_at %v not moved", name, got["updated_at"])
			}
		default:
			if got["image"] != u || got["image_full"] != u || got["has_custom_image"] != false || str(got["updated_at"]) > sync {
				t.Errorf("%s changed: %v %v %v", name, got["image"], got["has_custom_image"], got["updated_at"])
			}
			if eid := int64(got["entity_id"].(float64)); (u == "") == (failed[eid] != "") {
				t.Errorf("%s: reported %q", name, failed[eid])
			}
		}
	}
	c := e.Do("GET", apitest.Path(e.Campaign, "/calendars/"+itoa(float64(cal.ID))), e.Admin, nil).Data()
	e.checkImage(t, c, "jpg", 30, 60)
	for _, want := range []string{"must be a file of type", "could not be fetched (HTTP 404)", "public internet address"} {
		found := false
		for _, reason := range failed {
			found = found || strings.Contains(reason, want)
		}
		if !found {
			t.Errorf("no failure reported as %q: %v", want, failed)
		}
	}
	// lastSync readers see the converted records, and only them.
	res := e.Do("GET", apitest.Path(e.Campaign, "/locations")+"?lastSync="+url.QueryEscape(sync), e.Admin, nil)
	if len(res.List()) != 2 {
		t.Fatalf("locations since the migration: %s", res.Raw)
	}
	e.audit(t)

	// A new pass: the converted records no longer match, the failed ones are tried again. Its
	// DynamoDB calls: the checkpoint, one scan page (the table is under 500 items), the
	// checkpoint's removal; a failed fetch costs none (a conversion costs 4: the reservation,
	// the entity, the record, the transaction).
	e.Counter.Reset()
	res2, err := ops.MigrateLegacyImages(ctx, e.Store, w, 10)
	if err != nil || res2.Stored != 0 || len(res2.Failed) != 3 || !res2.Done {
		t.Fatalf("second pass: %+v %v", res2, err)
	}
	if n := e.Counter.N(); n != 3 {
		t.Errorf("a pass of failures: %d DynamoDB calls, want 3", n)
	}
	// A record changed between the scan and the conversion keeps its new image.
	b, err := ops.LegacyImages(ctx, e.Store, 1)
	if err != nil || len(b.Images) != 1 {
		t.Fatalf("%+v %v", b, err)
	}
	if err := ops.AdoptLegacyImage(ctx, e.Store, ops.LegacyImage{CampaignID: e.Campaign, EntityID: b.Images[0].EntityID, URL: "https://elsewhere.example/x.png"}, "img/1/x.png"); err != store.ErrLegacyImageChanged {
		t.Fatalf("a changed record: %v", err)
	}
	e.audit(t)
}
