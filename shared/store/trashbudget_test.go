package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/maps/mapstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/faultproxy"
)

// The worst record of each owner kind (20 tags, then an entry with the most mentions an update
// allows, written separately) can be deleted, restored and purged: the entry's reverse mention
// items stay through the trash and leave with the purge (or a tag's delete cascade), so no
// first step holds them beside the 40 items of the tag links and packs (it needed 109 items).
func TestWorstRecordDeletes(t *testing.T) {
	var calls dynamotest.Counter
	st, _ := dynamotest.NewStore(t, calls.Attach)
	ctx := context.Background()
	w := newWorst(t, st)
	admin, c, meta, tagIDs, targets, entry := w.admin, w.c, w.meta, w.tags, w.targets, w.entry
	adminAccess := domain.Access{UserID: admin.ID, CampaignID: c.ID, Role: domain.RoleAdmin}
	audit := func(step string) {
		t.Helper()
		if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
			t.Fatalf("%s: audit %v %q", step, err, problems)
		}
	}
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
			if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
				t.Fatal(err)
			}
			next := l
			next.Owner = withEntry(l.Owner)
			if err := locstore.New(st).UpdateLocation(ctx, &l, &next); err != nil {
				t.Fatal(err)
			}
			return record{l.EntityID, func() error {
				got, err := locstore.New(st).GetLocation(ctx, c.ID, l.ID)
				if err != nil {
					return err
				}
				return locstore.New(st).DeleteLocation(ctx, got)
			}, true}
		}},
		{"calendar", func(t *testing.T) record {
			cal := timeline.Calendar{Meta: meta, Owner: owner("C")}
			if err := calstore.New(st).CreateCalendar(ctx, &cal); err != nil {
				t.Fatal(err)
			}
			next := cal
			next.Owner = withEntry(cal.Owner)
			if err := calstore.New(st).UpdateCalendar(ctx, &cal, &next); err != nil {
				t.Fatal(err)
			}
			return record{cal.EntityID, func() error {
				got, err := calstore.New(st).GetCalendar(ctx, c.ID, cal.ID)
				if err != nil {
					return err
				}
				return calstore.New(st).DeleteCalendar(ctx, got)
			}, true}
		}},
		{"map", func(t *testing.T) record {
			m := domain.Map{Meta: meta, Owner: owner("Mp")}
			if err := mapstore.New(st).CreateMap(ctx, &m); err != nil {
				t.Fatal(err)
			}
			next := m
			next.Owner = withEntry(m.Owner)
			if err := mapstore.New(st).UpdateMap(ctx, &m, &next); err != nil {
				t.Fatal(err)
			}
			return record{m.EntityID, func() error {
				got, err := mapstore.New(st).GetMap(ctx, c.ID, m.ID)
				if err != nil {
					return err
				}
				return mapstore.New(st).DeleteMap(ctx, got)
			}, true}
		}},
		{"tag", func(t *testing.T) record {
			tg := domain.Tag{Meta: meta, Owner: owner("Tg")}
			if err := tagstore.New(st).CreateTag(ctx, &tg); err != nil {
				t.Fatal(err)
			}
			next := tg
			next.Owner = withEntry(tg.Owner)
			if err := tagstore.New(st).UpdateTag(ctx, &tg, &next); err != nil {
				t.Fatal(err)
			}
			return record{tg.EntityID, func() error {
				got, err := tagstore.New(st).GetTag(ctx, c.ID, tg.ID)
				if err != nil {
					return err
				}
				return tagstore.New(st).DeleteTag(ctx, got)
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
			if n := calls.N(); n > 30 { // the sweep's 16 shard Queries, the purge and its cascade
				t.Fatalf("purge: %d DynamoDB calls, want at most 30", n)
			}
			audit("purged")
			if mentionedBy(r.eid) {
				t.Fatalf("a purged record is still listed among the mentions")
			}
		})
	}
}

// worst is a campaign with 20 tags and 50 locations, and an entry mentioning all of them.
type worst struct {
	admin   domain.User
	c       domain.Campaign
	meta    domain.Meta
	tags    []int64
	targets []int64
	entry   string
}

func newWorst(t *testing.T, st *store.Store) worst {
	t.Helper()
	ctx := context.Background()
	var w worst
	w.admin, w.c = storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c"})
	w.meta = domain.Meta{CampaignID: w.c.ID, CreatedBy: w.admin.ID, UpdatedBy: w.admin.ID}
	for i := range domain.MaxTags {
		tg := domain.Tag{Meta: w.meta, Owner: domain.Owner{Name: fmt.Sprintf("T%d", i), IsPrivate: i%2 == 0}}
		if err := tagstore.New(st).CreateTag(ctx, &tg); err != nil {
			t.Fatal(err)
		}
		w.tags = append(w.tags, tg.ID)
	}
	var mentions []string
	for i := range domain.MaxMentions {
		l := domain.Location{Meta: w.meta, Owner: domain.Owner{Name: fmt.Sprintf("M%d", i)}}
		if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
			t.Fatal(err)
		}
		w.targets = append(w.targets, l.EntityID)
		mentions = append(mentions, fmt.Sprintf("[location:%d]", l.EntityID))
	}
	w.entry = "<p>" + strings.Join(mentions, " ") + "</p>"
	return w
}

// The cascades that remove the worst record's mention items (a tag's delete, a trash's purge)
// failing after their first step: the audit reports the delete pending, and the sweeper finishes
// it to a clean campaign.
func TestWorstRecordCascadeFaults(t *testing.T) {
	p := faultproxy.Start(t, dynamotest.Endpoint(t))
	st, _ := dynamotest.NewStore(t, p.Attach, func(c *aws.Config) { c.Retryer = func() aws.Retryer { return aws.NopRetryer{} } })
	ctx := context.Background()
	w := newWorst(t, st)
	problems := func() []string {
		t.Helper()
		got, err := ops.Audit(ctx, st, w.c.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	owner := domain.Owner{Name: "X", Tags: w.tags, TagsByAdmin: true}
	tg := domain.Tag{Meta: w.meta, Owner: owner}
	l := domain.Location{Meta: w.meta, Owner: owner}
	if err := tagstore.New(st).CreateTag(ctx, &tg); err != nil {
		t.Fatal(err)
	}
	if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
		t.Fatal(err)
	}
	nextTag, nextLoc := tg, l
	nextTag.Entry, nextLoc.Entry = w.entry, w.entry
	if err := tagstore.New(st).UpdateTag(ctx, &tg, &nextTag); err != nil {
		t.Fatal(err)
	}
	if err := locstore.New(st).UpdateLocation(ctx, &l, &nextLoc); err != nil {
		t.Fatal(err)
	}
	if got := problems(); len(got) > 0 {
		t.Fatalf("written: %q", got)
	}
	steps := []struct {
		name  string
		first func() error
	}{
		{"tag delete", func() error {
			got, err := tagstore.New(st).GetTag(ctx, w.c.ID, tg.ID)
			if err != nil {
				return err
			}
			return tagstore.New(st).DeleteTag(ctx, got)
		}},
		{"purge", func() error {
			got, err := locstore.New(st).GetLocation(ctx, w.c.ID, l.ID)
			if err != nil {
				return err
			}
			if err := locstore.New(st).DeleteLocation(ctx, got); err != nil {
				return err
			}
			if err := store.ExpireTrash(ctx, st, w.c.ID, l.EntityID); err != nil {
				return err
			}
			p.Inject(faultproxy.Rule{Op: "BatchWriteItem", Fault: faultproxy.InternalServerError})
			if n, _, err := st.SweepPurges(ctx); err != nil || n != 1 {
				return fmt.Errorf("purge: %d %v", n, err)
			}
			return nil
		}},
	}
	for _, step := range steps {
		p.Reset()
		if step.name == "tag delete" {
			p.Inject(faultproxy.Rule{Op: "BatchWriteItem", Fault: faultproxy.InternalServerError})
		}
		if err := step.first(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if p.Faults("BatchWriteItem") == 0 {
			t.Fatalf("%s: no cascade call failed", step.name)
		}
		p.Reset()
		if got := problems(); !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "delete pending") }) {
			t.Fatalf("%s failed half-way: audit %q, want its delete pending", step.name, got)
		}
		if _, err := st.SweepDeletes(ctx, 0); err != nil {
			t.Fatalf("%s: sweep: %v", step.name, err)
		}
		if got := problems(); len(got) > 0 {
			t.Fatalf("%s finished by the sweeper: audit %q", step.name, got)
		}
	}
}

// A trash written before the entry's mention items were kept through it has none: the audit
// says so and lorekeep migrate writes them (twice: idempotent), so its restore has them.
func TestMigrateKeepsTrashedEntryMentions(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	ctx := context.Background()
	w := newWorst(t, st)
	l := domain.Location{Meta: w.meta, Owner: domain.Owner{Name: "L", Entry: w.entry[:200] + "</p>"}}
	if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
		t.Fatal(err)
	}
	if err := locstore.New(st).DeleteLocation(ctx, &l); err != nil {
		t.Fatal(err)
	}
	if err := store.DropEntryMentions(ctx, st, w.c.ID, l.EntityID, w.targets); err != nil {
		t.Fatal(err)
	}
	if got, err := ops.Audit(ctx, st, w.c.ID); err != nil || !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "missing") }) {
		t.Fatalf("before the migration: audit %q %v, want missing mentions", got, err)
	}
	storetest.MigrateTwice(t, st, w.c.ID, nil)
	if err := st.RestoreEntity(ctx, w.c.ID, l.EntityID, w.admin.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := ops.Audit(ctx, st, w.c.ID); err != nil || len(got) > 0 {
		t.Fatalf("restored: audit %q %v", got, err)
	}
}

// A post with the most mentions (created with them, its entry then replaced by another with as
// many) is deleted in one step, and so is the owner it hangs from through the trash and purge.
func TestWorstPostDeletes(t *testing.T) {
	var calls dynamotest.Counter
	st, _ := dynamotest.NewStore(t, calls.Attach)
	ctx := context.Background()
	w := newWorst(t, st)
	audit := func(step string) {
		t.Helper()
		if got, err := ops.Audit(ctx, st, w.c.ID); err != nil || len(got) > 0 {
			t.Fatalf("%s: audit %q %v", step, got, err)
		}
	}
	l := domain.Location{Meta: w.meta, Owner: domain.Owner{Name: "Host", Tags: w.tags, TagsByAdmin: true}}
	if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
		t.Fatal(err)
	}
	newNote := func(name string) *domain.Note {
		n := &domain.Note{Meta: w.meta, EntityID: l.EntityID, Name: name, Entry: w.entry, Visibility: domain.VisibilityAll}
		if err := notestore.New(st).CreateNote(ctx, n); err != nil {
			t.Fatalf("note %s: %v", name, err)
		}
		return n
	}
	n := newNote("Busy")
	next := *n
	next.Visibility = domain.VisibilityAdmin // rewrites its 50 items
	if err := notestore.New(st).UpdateNote(ctx, n, &next); err != nil {
		t.Fatalf("note visibility: %v", err)
	}
	audit("note written")
	calls.Reset()
	if err := notestore.New(st).DeleteNote(ctx, &next); err != nil {
		t.Fatalf("note delete: %v", err)
	}
	t.Logf("note delete: %d DynamoDB calls", calls.N())
	if calls.N() > 4 {
		t.Fatalf("note delete: %d DynamoDB calls, want at most 4", calls.N())
	}
	audit("note deleted")
	newNote("Kept")
	if err := locstore.New(st).DeleteLocation(ctx, &l); err != nil {
		t.Fatalf("trash of the host: %v", err)
	}
	audit("host trashed")
	if err := store.ExpireTrash(ctx, st, w.c.ID, l.EntityID); err != nil {
		t.Fatal(err)
	}
	if n, _, err := st.SweepPurges(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	audit("host purged")
}
