package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// A lastSync read answers the same from the pointers and, when more records changed than it
// evaluates, from the range it falls back to; an expired tombstone (DynamoDB Local never
// removes one) is never answered, a live one is.
func TestLastSyncFallbackAndTombstoneExpiry(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	c, err := campstore.New(st).CreateCampaign(ctx, domain.Campaign{Name: "c", OwnerID: 1})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := 0; i < 6; i++ {
		l := domain.Location{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: 1}, Owner: domain.Owner{Name: fmt.Sprint("L", i), IsPrivate: i == 4}}
		if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	since := time.Now().UTC()
	time.Sleep(5 * time.Millisecond)
	for _, id := range ids[2:] {
		prev, err := locstore.New(st).GetLocation(ctx, c.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		next := prev.Clone()
		next.Type = "Ruin"
		if err := locstore.New(st).UpdateLocation(ctx, prev, next); err != nil {
			t.Fatal(err)
		}
	}
	f := domain.Filter{UpdatedAfter: &since}
	for _, max := range []int{2000, 3} { // 4 changed: the second reads the range
		t.Run(fmt.Sprint("at most ", max, " pointers"), func(t *testing.T) {
			defer store.SetMaxSyncPointers(max)()
			for _, hide := range []bool{false, true} {
				page, err := locstore.New(st).ListLocations(ctx, c.ID, f, hide, domain.PageRequest{Page: 1, Limit: 45})
				if err != nil {
					t.Fatal(err)
				}
				var got []int64
				for _, l := range page.Items {
					got = append(got, l.ID)
				}
				want := slices.Clone(ids[2:])
				if hide {
					want = slices.DeleteFunc(want, func(id int64) bool { return id == ids[4] })
				}
				if !slices.Equal(got, want) || page.Total != len(want) {
					t.Errorf("hide private %v: %v (total %d), want %v", hide, got, page.Total, want)
				}
			}
		})
	}

	now := time.Now().UTC()
	admin := domain.Access{UserID: 1, CampaignID: c.ID, Role: domain.RoleAdmin}
	if err := store.PutGone(ctx, st, c.ID, 900, now.Add(-time.Hour), now.Add(-time.Minute)); err != nil { // expired
		t.Fatal(err)
	}
	if err := store.PutGone(ctx, st, c.ID, 901, now.Add(-time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	page, bound, err := st.ListGone(ctx, c.ID, domain.GoneQuery{List: domain.GoneLocations, Since: now.Add(-2 * time.Hour)}, admin, domain.PageRequest{Page: 1, Limit: 45})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != 901 || page.Total != 1 || !bound.Equal(now.Add(-2*time.Hour)) {
		t.Errorf("tombstones: %+v %v %v, want 901 only, bound the lastSync", page, bound, err)
	}
	// The sweeper removes the expired one (and its queue item), keeps the other.
	if n, more, err := st.SweepGone(ctx); err != nil || n != 1 || more {
		t.Fatalf("sweep: %d %v %v, want 1 removed", n, more, err)
	}
	if n, _, err := st.SweepGone(ctx); err != nil || n != 0 {
		t.Fatalf("second sweep: %d %v, want nothing", n, err)
	}
	tombs := 0
	items, err := st.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(cfg.TableName)})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items.Items {
		if sk := it["sk"].(*types.AttributeValueMemberS).Value; strings.HasPrefix(sk, "GONE#") {
			tombs++
		}
	}
	if tombs != 1 {
		t.Errorf("%d tombstones stored after the sweep, want 1 (location 901's)", tombs)
	}
}

// The pointers decide who sees a changed note or event as its placement does: for every reader
// class and visibility, a lastSync read from the pointers answers what the range read answers.
func TestLastSyncPointersKeepEachReadersAudience(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	ctx := context.Background()
	c, err := campstore.New(st).CreateCampaign(ctx, domain.Campaign{Name: "c", OwnerID: 1, IsPublic: true})
	if err != nil {
		t.Fatal(err)
	}
	l := domain.Location{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: 1}, Owner: domain.Owner{Name: "L"}}
	if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
		t.Fatal(err)
	}
	since := time.Now().UTC()
	time.Sleep(5 * time.Millisecond)
	vis := []domain.Visibility{domain.VisibilityAll, domain.VisibilityMember, domain.VisibilityAdmin, domain.VisibilitySelf, domain.VisibilitySelfAdmin}
	for i, v := range vis {
		for _, creator := range []int64{1, 2} {
			n := domain.Note{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: creator}, EntityID: l.EntityID, Name: fmt.Sprint("n", i), Visibility: v}
			if err := notestore.New(st).CreateNote(ctx, &n); err != nil {
				t.Fatal(err)
			}
		}
	}
	readers := map[string]domain.Access{
		"admin":           {UserID: 1, CampaignID: c.ID, Role: domain.RoleAdmin},
		"member, creator": {UserID: 2, CampaignID: c.ID, Role: domain.RoleMember},
		"other member":    {UserID: 3, CampaignID: c.ID, Role: domain.RoleMember},
		"public":          {UserID: 4, CampaignID: c.ID, Role: domain.RolePublic},
	}
	list := func(a domain.Access) []int64 {
		p, err := notestore.New(st).ListNotes(ctx, c.ID, l.EntityID, a, domain.Filter{UpdatedAfter: &since}, domain.PageRequest{Page: 1, Limit: 45})
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, n := range p.Items {
			out = append(out, n.ID)
		}
		if len(out) != p.Total {
			t.Errorf("%d rows, total %d", len(out), p.Total)
		}
		return out
	}
	for name, a := range readers {
		fromPointers := list(a)
		restore := store.SetMaxSyncPointers(0) // every read falls back to the range
		fromRange := list(a)
		restore()
		if !slices.Equal(fromPointers, fromRange) || len(fromRange) == 0 {
			t.Errorf("%s: pointers %v, range %v", name, fromPointers, fromRange)
		}
	}
}
