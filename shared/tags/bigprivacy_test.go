package tags_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// bigTag is a campaign whose tag 1 has n location members (ids 1..n), under the production
// deadline: the locations seeded, the tag created, each tagged through the store.
func bigTag(t *testing.T, n int) (*apitest.Env, int64) {
	t.Helper()
	e := apitest.NewWith(t, withLocations, apitest.WithAPI(func(o *httpapi.Options) {
		o.Timeout, o.Logger = httpapi.DefaultTimeout, slog.New(slog.DiscardHandler)
	}))
	e.SeedLocations(e.PublicCampaign, n, 0)
	tid := create(t, e, e.PublicCampaign, e.Admin, map[string]any{"name": "Crowd"})
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(8)
	for eid := int64(1); eid <= int64(n); eid++ {
		g.Go(func() error {
			_, err := e.Store.ChangeEntityTag(ctx, e.PublicCampaign, eid, store.TagChange{Put: tid, ByAdmin: true})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return e, tid
}

// TestLargeTagPrivacy: a privacy change of a tag with more members than one request can
// re-place (tagstore.MaxPrivacyMembers, lowered here to 12) is a 422 naming is_private and the
// bound, nothing written (issue 38 item 2: 1,000 members answered 503 with Retry-After after
// the deadline, every time, members half re-placed); one within the bound succeeds both ways
// under the production deadline, and non-admins then see neither the tag nor its id on its
// members. Not parallel: it lowers a package variable before the parallel tests resume.
func TestLargeTagPrivacy(t *testing.T) {
	was := tagstore.MaxPrivacyMembers
	tagstore.MaxPrivacyMembers = 12
	t.Cleanup(func() { tagstore.MaxPrivacyMembers = was })
	for _, c := range []struct {
		name    string
		members int
		status  int
	}{{"over the bound", 13, 422}, {"at the bound", 12, 200}} {
		t.Run(c.name, func(t *testing.T) {
			e, tid := bigTag(t, c.members)
			cid := e.PublicCampaign
			ids := func(token string, lid int64) string {
				return fmt.Sprint(e.Do("GET", apitest.Path(cid, fmt.Sprintf("/locations/%d", lid)), token, nil).Data()["tags"])
			}
			shown := fmt.Sprint([]any{float64(tid)})
			for _, private := range []bool{true, false} {
				start := time.Now()
				r := e.Do("PATCH", tagPath(cid, tid), e.Admin, map[string]any{"is_private": private})
				took := time.Since(start)
				t.Logf("PATCH is_private %v on a tag of %d members: %d in %v", private, c.members, r.Status, took)
				if r.Status != c.status || (c.status == 422 && (r.Errors()["is_private"] == nil || !strings.Contains(string(r.Raw), "more than 12 members"))) {
					t.Fatalf("privacy %v of a tag of %d members: %d %s (Retry-After %q) after %v", private, c.members, r.Status, r.Raw, r.Header.Get("Retry-After"), took)
				}
				tg, err := tagstore.New(e.Store).GetTag(context.Background(), cid, tid)
				if err != nil || tg.IsPrivate != (private && c.status == 200) {
					t.Fatalf("stored tag: %+v %v", tg, err)
				}
				hidden := private && c.status == 200
				if tag := e.Do("GET", tagPath(cid, tid), e.Outsider, nil); (tag.Status == 404) != hidden {
					t.Fatalf("the tag for a public reader: %d", tag.Status)
				}
				for _, lid := range []int64{1, int64(c.members)} {
					want := shown
					if hidden {
						want = "[]"
					}
					for _, tok := range []string{e.Outsider, e.Member} {
						if got := ids(tok, lid); got != want {
							t.Fatalf("location %d's tags for a non-admin: %s, want %s", lid, got, want)
						}
					}
					if got := ids(e.Admin, lid); got != shown {
						t.Fatalf("location %d's tags for an admin: %s", lid, got)
					}
				}
				audit(t, e, cid)
				if c.status != 200 {
					break
				}
			}
		})
	}
}
