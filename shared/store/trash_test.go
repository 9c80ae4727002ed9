package store_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/relations/relstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// A trash hides every reference to the trashed record (its events on other calendars, the
// relations to and from it, a calendar's other entities' events, a location's children, made
// roots) and a restore brings all of them back as they were; the campaign audits clean at each
// step. An expired trash is neither listed nor restorable, and the sweeper purges it.
func TestTrashRestoreAndPurge(t *testing.T) {
	var calls dynamotest.Counter
	st, _ := dynamotest.NewStore(t, calls.Attach)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c", IsPublic: true})
	adminAccess := domain.Access{UserID: admin.ID, CampaignID: c.ID, Role: domain.RoleAdmin}
	publicAccess := domain.Access{UserID: 999, CampaignID: c.ID, Role: domain.RolePublic}
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}
	cal := timeline.Calendar{Meta: meta, Owner: domain.Owner{Name: "Reckoning"}}
	if err := calstore.New(st).CreateCalendar(ctx, &cal); err != nil {
		t.Fatal(err)
	}
	parent := domain.Location{Meta: meta, Owner: domain.Owner{Name: "Parent", Entry: "see [location:1]"}}
	if err := locstore.New(st).CreateLocation(ctx, &parent); err != nil {
		t.Fatal(err)
	}
	child := domain.Location{Meta: meta, Owner: domain.Owner{Name: "Child"}, ParentID: &parent.ID}
	other := domain.Location{Meta: meta, Owner: domain.Owner{Name: "Other"}}
	for _, l := range []*domain.Location{&child, &other} {
		if err := locstore.New(st).CreateLocation(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	evs := []timeline.Event{{EntityID: parent.EntityID}, {EntityID: other.EntityID}}
	for i := range evs {
		ev := &evs[i]
		ev.Meta, ev.CalendarID, ev.Name, ev.Visibility, ev.Length = meta, cal.ID, "E", domain.VisibilityAll, 1
		ev.Date = calengine.Date{Year: 5, Month: 1, Day: 3}
		if err := eventstore.New(st).CreateEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	rel := domain.Relation{Meta: meta, OwnerID: other.EntityID, TargetID: parent.EntityID, Relation: "ally", Visibility: domain.VisibilityAll, TwoWay: true}
	if err := relstore.New(st).CreateRelation(ctx, &rel); err != nil {
		t.Fatal(err)
	}
	audit := func(step string) {
		t.Helper()
		if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
			t.Fatalf("%s: audit %v %q", step, err, problems)
		}
	}
	page := domain.PageRequest{Page: 1, Limit: 45}
	reminders := func() []int64 {
		t.Helper()
		p, err := eventstore.New(st).ListReminders(ctx, c.ID, cal.ID, adminAccess, domain.Filter{}, page)
		if err != nil {
			t.Fatal(err)
		}
		return storetest.IDs(p.Items, func(e timeline.Event) int64 { return e.ID })
	}
	relations := func(a domain.Access) []int64 {
		t.Helper()
		p, err := relstore.New(st).ListCampaignRelations(ctx, c.ID, a, domain.Filter{}, page)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != len(p.Items) {
			t.Fatalf("relations total %d for %d items", p.Total, len(p.Items))
		}
		return storetest.IDs(p.Items, func(r domain.Relation) int64 { return r.ID })
	}
	trash := func() []int64 {
		t.Helper()
		p, err := st.ListTrash(ctx, c.ID, page)
		if err != nil {
			t.Fatal(err)
		}
		return storetest.IDs(p.Items, func(e domain.Entity) int64 { return e.ID })
	}
	audit("created")
	allRels := relations(adminAccess)
	if len(allRels) != 2 || len(reminders()) != 2 {
		t.Fatalf("before: relations %v reminders %v", allRels, reminders())
	}

	// Trash the parent: its relations and its event on the calendar go from every list, its
	// child becomes a root.
	if err := locstore.New(st).DeleteLocation(ctx, &parent); err != nil {
		t.Fatal(err)
	}
	audit("parent trashed")
	if _, err := locstore.New(st).GetLocation(ctx, c.ID, parent.ID); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("trashed parent read: %v", err)
	}
	if got, _ := locstore.New(st).GetLocation(ctx, c.ID, child.ID); got.ParentID != nil {
		t.Fatalf("child of the trashed parent: parent %v, want a root", *got.ParentID)
	}
	if got := relations(adminAccess); len(got) != 0 {
		t.Fatalf("relations with the parent trashed: %v", got)
	}
	if got := reminders(); !reflect.DeepEqual(got, []int64{evs[1].ID}) {
		t.Fatalf("reminders with the parent trashed: %v", got)
	}
	if got := trash(); !reflect.DeepEqual(got, []int64{parent.EntityID}) {
		t.Fatalf("trash: %v", got)
	}

	// Trash the calendar: the other location's event leaves its entity's list.
	if err := calstore.New(st).DeleteCalendar(ctx, &cal); err != nil {
		t.Fatal(err)
	}
	audit("calendar trashed")
	if p, err := eventstore.New(st).ListEvents(ctx, c.ID, other.EntityID, adminAccess, domain.Filter{}, page); err != nil || len(p.Items) != 0 || p.Total != 0 {
		t.Fatalf("events of a trashed calendar: %+v %v", p, err)
	}
	calls.Reset()
	if got := trash(); len(got) != 2 || calls.N() != 1 {
		t.Fatalf("trash: %v in %d calls, want 2 in 1", got, calls.N())
	}

	// Restore both: everything comes back.
	calls.Reset()
	if err := st.RestoreEntity(ctx, c.ID, cal.EntityID, admin.ID); err != nil {
		t.Fatal(err)
	}
	t.Logf("calendar restore: %d DynamoDB calls", calls.N())
	audit("calendar restored")
	if p, err := eventstore.New(st).ListEvents(ctx, c.ID, other.EntityID, adminAccess, domain.Filter{}, page); err != nil || len(p.Items) != 1 || p.Items[0].ID != evs[1].ID {
		t.Fatalf("events of the restored calendar: %+v %v", p, err)
	}
	if err := st.RestoreEntity(ctx, c.ID, parent.EntityID, admin.ID); err != nil {
		t.Fatal(err)
	}
	audit("parent restored")
	got, err := locstore.New(st).GetLocation(ctx, c.ID, parent.ID)
	if err != nil || got.Version != parent.Version+1 || !got.UpdatedAt.After(parent.UpdatedAt) {
		t.Fatalf("restored parent: %+v %v", got, err)
	}
	if got, _ := locstore.New(st).GetLocation(ctx, c.ID, child.ID); got.ParentID == nil || *got.ParentID != parent.ID {
		t.Fatalf("child after the restore: parent %v, want %d", got.ParentID, parent.ID)
	}
	if got := relations(adminAccess); !reflect.DeepEqual(got, allRels) {
		t.Fatalf("relations after the restore: %v, want %v", got, allRels)
	}
	if got := relations(publicAccess); !reflect.DeepEqual(got, allRels) {
		t.Fatalf("public relations after the restore: %v, want %v", got, allRels)
	}
	if got := reminders(); !reflect.DeepEqual(got, []int64{evs[0].ID, evs[1].ID}) {
		t.Fatalf("reminders after the restore: %v", got)
	}
	if got := trash(); len(got) != 0 {
		t.Fatalf("trash after the restores: %v", got)
	}
	if err := st.RestoreEntity(ctx, c.ID, parent.EntityID, admin.ID); !errors.Is(err, domain.ErrNotTrashed) {
		t.Fatalf("second restore: %v", err)
	}

	// Expiry: not listed, not restorable, purged by the sweeper with its partitions.
	if err := locstore.New(st).DeleteLocation(ctx, got); err != nil {
		t.Fatal(err)
	}
	if n, _, err := st.SweepPurges(ctx); err != nil || n != 0 {
		t.Fatalf("sweep before expiry: %d %v", n, err)
	}
	if err := store.ExpireTrash(ctx, st, c.ID, parent.EntityID); err != nil {
		t.Fatal(err)
	}
	if got := trash(); len(got) != 0 {
		t.Fatalf("trash with an expired entity: %v", got)
	}
	if err := st.RestoreEntity(ctx, c.ID, parent.EntityID, admin.ID); !errors.Is(err, domain.ErrNotTrashed) {
		t.Fatalf("restore of an expired trash: %v", err)
	}
	if n, more, err := st.SweepPurges(ctx); err != nil || n != 1 || more {
		t.Fatalf("sweep after expiry: %d %v %v", n, more, err)
	}
	audit("purged")
	if p, err := eventstore.New(st).ListEvents(ctx, c.ID, parent.EntityID, adminAccess, domain.Filter{}, page); err != nil || p.Total != 0 {
		t.Fatalf("events of a purged entity: %+v %v", p, err)
	}
	if err := st.RestoreEntity(ctx, c.ID, parent.EntityID, admin.ID); !errors.Is(err, domain.ErrNotTrashed) {
		t.Fatalf("restore of a purged entity: %v", err)
	}
}

// Races on a trash, each round audited: a restore against a purge that sees the trash expired
// (exactly one wins: a restored entity, or a purged one that no restore brings back), and a
// trash against writes of its children (an event created on its entity, one of another entity
// created on the trashed calendar: either written before the trash, and then hidden with it,
// or refused).
func TestTrashRaces(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c"})
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}
	later := st.AtTime(func() time.Time { return time.Now().Add(31 * 24 * time.Hour) })
	audit := func(round int) {
		t.Helper()
		if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
			t.Fatalf("round %d: audit %v %q", round, err, problems)
		}
	}
	for round := 0; round < 4; round++ {
		l := domain.Location{Meta: meta, Owner: domain.Owner{Name: "L"}}
		if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
			t.Fatal(err)
		}
		if err := locstore.New(st).DeleteLocation(ctx, &l); err != nil {
			t.Fatal(err)
		}
		var restoreErr, purgeErr error
		var purged int
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); restoreErr = st.RestoreEntity(ctx, c.ID, l.EntityID, admin.ID) }()
		go func() { defer wg.Done(); purged, _, purgeErr = later.SweepPurges(ctx) }()
		wg.Wait()
		if purgeErr != nil && !errors.Is(purgeErr, apperr.ErrConflict) {
			t.Fatalf("round %d: purge %v", round, purgeErr)
		}
		_, getErr := locstore.New(st).GetLocation(ctx, c.ID, l.ID)
		switch {
		case restoreErr == nil && purged == 0 && getErr == nil: // the restore won
		case errors.Is(restoreErr, domain.ErrNotTrashed) && purged == 1 && errors.Is(getErr, apperr.ErrNotFound): // the purge won
		default:
			t.Fatalf("round %d: restore %v, purged %d (%v), read %v", round, restoreErr, purged, purgeErr, getErr)
		}
		if _, _, err := later.SweepPurges(ctx); err != nil { // a queue item a lost purge left
			t.Fatal(err)
		}
		audit(round)
	}

	for round := 0; round < 4; round++ {
		cal := timeline.Calendar{Meta: meta, Owner: domain.Owner{Name: "C"}}
		if err := calstore.New(st).CreateCalendar(ctx, &cal); err != nil {
			t.Fatal(err)
		}
		other := domain.Location{Meta: meta, Owner: domain.Owner{Name: "O"}}
		if err := locstore.New(st).CreateLocation(ctx, &other); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 3)
		newEvent := func(eid int64) *timeline.Event {
			return &timeline.Event{Meta: meta, EntityID: eid, CalendarID: cal.ID, Name: "E", Length: 1, Visibility: domain.VisibilityAll,
				Date: calengine.Date{Year: 1, Month: 1, Day: 1}}
		}
		wg.Add(3)
		go func() { defer wg.Done(); errs[0] = calstore.New(st).DeleteCalendar(ctx, &cal) }()
		go func() { defer wg.Done(); errs[1] = eventstore.New(st).CreateEvent(ctx, newEvent(cal.EntityID)) }()
		go func() { defer wg.Done(); errs[2] = eventstore.New(st).CreateEvent(ctx, newEvent(other.EntityID)) }()
		wg.Wait()
		if errs[0] != nil {
			t.Fatalf("round %d: trash %v", round, errs[0])
		}
		for _, err := range errs[1:] {
			// Refused: the entity is gone, a conflict, or the calendar_id names a gone calendar.
			if code := apperr.ErrorCode(err); err != nil && code != apperr.ENotFound && code != apperr.EConflict && code != apperr.EInvalid {
				t.Fatalf("round %d: event write %v", round, err)
			}
		}
		audit(round)
		if p, err := eventstore.New(st).ListEvents(ctx, c.ID, other.EntityID, domain.Access{UserID: admin.ID, CampaignID: c.ID, Role: domain.RoleAdmin}, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 10}); err != nil || p.Total != 0 {
			t.Fatalf("round %d: the other entity's events on the trashed calendar: %+v %v", round, p.Items, err)
		}
		if err := st.RestoreEntity(ctx, c.ID, cal.EntityID, admin.ID); err != nil {
			t.Fatal(err)
		}
		audit(round)
	}
}
