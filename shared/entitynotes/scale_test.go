package entitynotes_test

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Issue 10: an entity with 400 notes of every visibility, some the member's own. Every reader's
// page evaluates what its page holds (its audience range and its own range), never the notes it
// may not see, and its total is exact.
func TestNotePagesCostThePageForEveryReader(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	eid := entity(t, e, e.Campaign, false)
	vis := []domain.Visibility{domain.VisibilityAll, domain.VisibilityMember, domain.VisibilityAdmin, domain.VisibilitySelf, domain.VisibilitySelfAdmin}
	// Note i: visibility vis[i%5]; created by the member when i%10 < 5, else by the admin.
	want := map[string]int{}
	var g errgroup.Group
	g.SetLimit(8)
	for i := 0; i < 400; i++ {
		v, creator := vis[i%5], e.AdminID
		if i%10 < 5 {
			creator = e.MemberID
		}
		for role, uid := range map[string]int64{"admin": e.AdminID, "member": e.MemberID, "member2": e.Member2ID} {
			a := domain.Access{UserID: uid, Role: domain.RoleMember}
			if role == "admin" {
				a.Role = domain.RoleAdmin
			}
			if a.CanSeeVisibility(v, creator) {
				want[role]++
			}
		}
		g.Go(func() error {
			n := &domain.Note{Meta: domain.Meta{CampaignID: e.Campaign, CreatedBy: creator}, EntityID: eid, Name: fmt.Sprint("N", i), Visibility: v}
			return notestore.New(e.Store).CreateNote(context.Background(), n)
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		role, token, query string
	}{
		{"admin", e.Admin, ""}, {"member", e.Member, ""}, {"member2", e.Member2, ""},
		{"member", e.Member, "?page=4"}, {"member2", e.Member2, "?page=3"},
	} {
		e.Counter.Reset()
		r := e.Do("GET", notes(e.Campaign, eid)+c.query, c.token, nil)
		calls, evaluated := e.Counter.N(), e.Counter.Scanned()
		t.Logf("notes %s as %s: %d calls (+1 token), %d items evaluated, total %v", c.query, c.role, calls, evaluated, r.Body["meta"].(map[string]any)["total"])
		// The access read (with the entity and the counter totals), then at most two queries at
		// once; ?page=N first finds its bucket in each range's counter segments (two Queries at
		// once): three round trips.
		budget := int64(3)
		if c.query != "" {
			budget = 5
		}
		if r.Status != 200 || calls > budget || evaluated > 3*45 {
			t.Errorf("%s %s: %d, %d calls, %d evaluated", c.role, c.query, r.Status, calls, evaluated)
		}
		if total := r.Body["meta"].(map[string]any)["total"]; total != float64(want[c.role]) {
			t.Errorf("%s: total %v, want %d", c.role, total, want[c.role])
		}
	}

	// Pages by number and pages by cursor list the same notes, in id order, each once.
	for _, token := range []string{e.Admin, e.Member, e.Member2} {
		var byNumber, byCursor []float64
		for page := 1; page <= 9; page++ {
			for _, it := range e.Do("GET", fmt.Sprintf("%s?page=%d", notes(e.Campaign, eid), page), token, nil).List() {
				byNumber = append(byNumber, it.(map[string]any)["id"].(float64))
			}
		}
		for next := notes(e.Campaign, eid); next != ""; {
			r := e.Do("GET", next, token, nil)
			for _, it := range r.List() {
				byCursor = append(byCursor, it.(map[string]any)["id"].(float64))
			}
			next = ""
			if l, ok := r.Body["links"].(map[string]any)["next"].(string); ok {
				u, _ := url.Parse(l)
				next = u.RequestURI()
			}
		}
		if fmt.Sprint(byNumber) != fmt.Sprint(byCursor) || !sort.Float64sAreSorted(byNumber) {
			t.Errorf("by number %v\nby cursor %v", byNumber, byCursor)
		}
	}
}
