package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// The worst record of each owner kind (20 tags, then an entry with the most mentions an update
// allows, written separately) can be deleted, restored and purged: the entry's reverse mention
// items stay through the trash and leave with the purge (or a tag's delete cascade), so no
// first step holds them beside the 40 items of the tag links and packs (it needed 109 items).
func TestWorstRecordDeletes(t *testing.T) {
	var calls dynamotest.Counter
	st, _ := dynamotest.NewStore(t, calls.Attach)
	ctx := context.Background()
	admin, c := ownedCampaign(t, st, domain.Campaign{Name: "c"})
	adminAccess := domain.Access{UserID: admin.ID, CampaignID: c.ID, Role: domain.RoleAdmin}
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID, UpdatedBy: admin.ID}
	audit := func(step string) {
		t.Helper()
		if problems, err := st.Audit(ctx, c.ID); err != nil || len(problems) > 0 {
			t.Fatalf("%s: audit %v %q", step, err, problems)
		}
	}
	var tagIDs []int64
	for i := range domain.MaxTags {
		tg := domain.Tag{Meta: meta, Owner: domain.Owner{Name: fmt.Sprintf("T%d", i), IsPrivate: i%2 == 0}}
		if err := st.CreateTag(ctx, &tg); err != nil {
			t.Fatal(err)
		}
		tagIDs = append(tagIDs, tg.ID)
	}
	var mentions []string
	var targets []int64
	for i := range domain.MaxMentions {
		l := domain.Location{Meta: meta, Owner: domain.Owner{Name: fmt.Sprintf("M%d", i)}}
		if err := st.CreateLocation(ctx, &l); err != nil {
			t.Fatal(err)
		}
		targets = append(targets, l.EntityID)
		mentions = append(mentions, fmt.Sprintf("[location:%d]", l.EntityID))
	}
	entry := "<p>" + strings.Join(mentions, " ") + "</p>"
	owner := func(name string) domain.Owner {
		return domain.Owner{Name: name, Tags: append([]int64{}, tagIDs...), TagsByAdmin: true}
	}
	withEntry := func(o domain.Owner) domain.Owner { o.Entry = entry; return o }
	mentionedBy := func(src int64) bool { // as a reader of the first target's mentions sees it
		t.Helper()
		rows, err := st.Mentions(ctx, &domain.Entity{ID: targets[0], CampaignID: c.ID, Type: "location"}, adminAccess, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.EntityID == src {
				return true
			}
		}
		return false
	}
	type record struct {
		eid    int64
		del    func() error
		trashy bool // tags have no trash: their delete is final
	}
	kinds := []struct {
		name  string
		build func(t *testing.T) record
	}{
		{"location", func(t *testing.T) record {
			l := domain.Location{Meta: meta, Owner: owner("L")}
			if err := st.CreateLocation(ctx, &l); err != nil {
				t.Fatal(err)
			}
			next := l
			next.Owner = withEntry(l.Owner)
			if err := st.UpdateLocation(ctx, &l, &next); err != nil {
				t.Fatal(err)
			}
			return record{l.EntityID, func() error {
				got, err := st.GetLocation(ctx, c.ID, l.ID)
				if err != nil {
					return err
				}
				return st.DeleteLocation(ctx, got)
			}, true}
		}},
		{"calendar", func(t *testing.T) record {
			cal := timeline.Calendar{Meta: meta, Owner: owner("C")}
			if err := st.CreateCalendar(ctx, &cal); err != nil {
				t.Fatal(err)
			}
			next := cal
			next.Owner = withEntry(cal.Owner)
			if err := st.UpdateCalendar(ctx, &cal, &next); err != nil {
				t.Fatal(err)
			}
			return record{cal.EntityID, func() error {
				got, err := st.GetCalendar(ctx, c.ID, cal.ID)
				if err != nil {
					return err
				}
				return st.DeleteCalendar(ctx, got)
			}, true}
		}},
		{"map", func(t *testing.T) record {
			m := domain.Map{Meta: meta, Owner: owner("Mp")}
			if err := st.CreateMap(ctx, &m); err != nil {
				t.Fatal(err)
			}
			next := m
			next.Owner = withEntry(m.Owner)
			if err := st.UpdateMap(ctx, &m, &next); err != nil {
				t.Fatal(err)
			}
			return record{m.EntityID, func() error {
				got, err := st.GetMap(ctx, c.ID, m.ID)
				if err != nil {
					return err
				}
				return st.DeleteMap(ctx, got)
			}, true}
		}},
		{"tag", func(t *testing.T) record {
			tg := domain.Tag{Meta: meta, Owner: owner("Tg")}
			if err := st.CreateTag(ctx, &tg); err != nil {
				t.Fatal(err)
			}
			next := tg
			next.Owner = withEntry(tg.Owner)
			if err := st.UpdateTag(ctx, &tg, &next); err != nil {
				t.Fatal(err)
			}
			return record{tg.EntityID, func() error {
				got, err := st.GetTag(ctx, c.ID, tg.ID)
				if err != nil {
					return err
				}
				return st.DeleteTag(ctx, got)
			}, false}
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			r := k.build(t)
			audit("written")
			if !mentionedBy(r.eid) {
				t.Fatalf("the first target does not list the record's mention")
			}
			calls.Reset()
			if err := r.del(); err != nil {
				t.Fatalf("delete: %v", err)
			}
			t.Logf("delete: %d DynamoDB calls", calls.N())
			if n := calls.N(); n > 12 {
				t.Fatalf("delete: %d DynamoDB calls, want at most 12", n)
			}
			audit("deleted")
			if mentionedBy(r.eid) {
				t.Fatalf("a deleted record is still listed among the mentions")
			}
			if !r.trashy {
				return
			}
			calls.Reset()
			if err := st.RestoreEntity(ctx, c.ID, r.eid, admin.ID); err != nil {
				t.Fatalf("restore: %v", err)
			}
			t.Logf("restore: %d DynamoDB calls", calls.N())
			if n := calls.N(); n > 16 {
				t.Fatalf("restore: %d DynamoDB calls, want at most 16", n)
			}
			audit("restored")
			if !mentionedBy(r.eid) {
				t.Fatalf("the restored record's mention is not listed")
			}
			if err := r.del(); err != nil {
				t.Fatalf("second delete: %v", err)
			}
			if err := store.ExpireTrash(ctx, st, c.ID, r.eid); err != nil {
				t.Fatal(err)
			}
			calls.Reset()
			if n, _, err := st.SweepPurges(ctx); err != nil || n != 1 {
				t.Fatalf("purge: %d %v", n, err)
			}
			t.Logf("purge: %d DynamoDB calls", calls.N())
			audit("purged")
			if mentionedBy(r.eid) {
				t.Fatalf("a purged record is still listed among the mentions")
			}
		})
	}
}
