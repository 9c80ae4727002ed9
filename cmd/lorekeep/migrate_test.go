package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/testing/imagetest"
)

// The command end to end (the rewrite itself is tested in the store): one JSON object, and a
// second run is as good as the first. A fresh campaign's only counters are its membership's
// (the campaign's member count and its owner's campaign count), rewritten by each recount.
func TestMigrateCommand(t *testing.T) {
	l := newLorekeep(t)
	l.json("campaign", "create", "--name", "C", "--owner", "alice")
	for run := 0; run < 2; run++ {
		r := l.json("migrate")
		if r["layout"] != float64(3) || r["records_rewritten"] != float64(0) || r["counters_written"] != float64(4) || r["images"] != nil {
			t.Fatalf("run %d: %v", run, r)
		}
	}
}

// With an image bucket, `lorekeep migrate` fetches the old records' image_url into it (from a
// local server: S3_ENDPOINT allows loopback with IMAGES_ALLOW_LOOPBACK), once.
func TestMigrateCommandImages(t *testing.T) {
	l := newLorekeep(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/map.png" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(imagetest.PNG(40, 40))
	}))
	defer srv.Close()
	s3 := os.Getenv("LOREKEEP_TEST_S3")
	if s3 == "" {
		t.Fatal("LOREKEEP_TEST_S3 is not set: run the tests through scripts/test.sh")
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	l.env = append(l.env, "S3_ENDPOINT="+s3, "IMAGE_BUCKET=test-"+hex.EncodeToString(rnd[:]), "IMAGES_ALLOW_LOOPBACK=1")
	c := l.json("campaign", "create", "--name", "C", "--owner", "alice")
	cid, uid := int64(c["campaign_id"].(float64)), int64(c["user_id"].(float64))
	ctx := context.Background()
	var eids []int64
	for _, u := range []string{srv.URL + "/map.png", srv.URL + "/missing.png"} {
		loc := domain.Location{Meta: domain.Meta{CampaignID: cid, CreatedBy: uid, UpdatedBy: uid}, Owner: domain.Owner{Name: "Old", ImageURL: u}}
		if err := locstore.New(l.st).CreateLocation(ctx, &loc); err != nil {
			t.Fatal(err)
		}
		eids = append(eids, loc.EntityID)
	}
	r := l.json("migrate", "--images", "5")
	im, _ := r["images"].(map[string]any)
	failed, _ := im["images_failed"].([]any)
	if im["images_stored"] != float64(1) || im["images_done"] != true || len(failed) != 1 ||
		!strings.Contains(failed[0].(map[string]any)["reason"].(string), "HTTP 404") {
		t.Fatalf("migrate: %v", r)
	}
	e, err := l.st.GetEntity(ctx, cid, eids[0])
	if err != nil || !strings.HasPrefix(e.ImagePath, "img/") || e.ImageURL != "" {
		t.Fatalf("entity after: %+v %v", e, err)
	}
	if e, err := l.st.GetEntity(ctx, cid, eids[1]); err != nil || e.ImagePath != "" || e.ImageURL != srv.URL+"/missing.png" {
		t.Fatalf("failed entity after: %+v %v", e, err)
	}
	r = l.json("migrate", "--images", "5")
	if im, _ := r["images"].(map[string]any); im["images_stored"] != float64(0) || im["images_done"] != true {
		t.Fatalf("second run: %v", r)
	}
	l.fails("migrate", "--images", "-1")
}
