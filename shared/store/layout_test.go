package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// Every write moves a record's home, copies, counts and links in step: after each change of
// visibility, privacy, calendar or parent, the audit finds the campaign consistent and each
// reader lists exactly what it may see.
func TestWritesKeepTheLayoutConsistent(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, _ := campstore.New(st).EnsureUser(ctx, "admin")
	member, _ := campstore.New(st).EnsureUser(ctx, "member")
	c, err := campstore.New(st).CreateCampaign(ctx, domain.Campaign{Name: "c", OwnerID: admin.ID, IsPublic: true})
	if err != nil {
		t.Fatal(err)
	}
	audit := func(step string) {
		t.Helper()
		if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
			t.Fatalf("after %s: %v %q", step, err, problems)
		}
	}
	meta := func(uid int64) domain.Meta { return domain.Meta{CampaignID: c.ID, CreatedBy: uid} }
	parent := &domain.Location{Meta: meta(admin.ID), Owner: domain.Owner{Name: "Parent"}}
	other := &domain.Location{Meta: meta(admin.ID), Owner: domain.Owner{Name: "Other", IsPrivate: true}}
	for _, l := range []*domain.Location{parent, other} {
		if err := locstore.New(st).CreateLocation(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	cal1 := &timeline.Calendar{Meta: meta(admin.ID), Owner: domain.Owner{Name: "One"}}
	cal2 := &timeline.Calendar{Meta: meta(admin.ID), Owner: domain.Owner{Name: "Two"}}
	for _, cal := range []*timeline.Calendar{cal1, cal2} {
		if err := calstore.New(st).CreateCalendar(ctx, cal); err != nil {
			t.Fatal(err)
		}
	}
	audit("creates")

	// A location moved between parents, made private and public.
	kid := &domain.Location{Meta: meta(admin.ID), Owner: domain.Owner{Name: "Kid"}, ParentID: &parent.ID}
	if err := locstore.New(st).CreateLocation(ctx, kid); err != nil {
		t.Fatal(err)
	}
	audit("a child")
	for i, change := range []func(l *domain.Location){
		func(l *domain.Location) { l.ParentID = &other.ID },
		func(l *domain.Location) { l.IsPrivate = true },
		func(l *domain.Location) { l.ParentID = nil; l.IsPrivate = false },
	} {
		prev, _ := locstore.New(st).GetLocation(ctx, c.ID, kid.ID)
		next := prev.Clone()
		change(next)
		if err := locstore.New(st).UpdateLocation(ctx, prev, next); err != nil {
			t.Fatalf("location change %d: %v", i, err)
		}
		audit("a location change")
	}

	// A note through every visibility, then an event made private and moved between calendars.
	acc := map[string]domain.Access{
		"admin":  {UserID: admin.ID, CampaignID: c.ID, Role: domain.RoleAdmin},
		"member": {UserID: member.ID, CampaignID: c.ID, Role: domain.RoleMember},
		"public": {UserID: 999, CampaignID: c.ID, Role: domain.RolePublic},
	}
	note := &domain.Note{Meta: meta(member.ID), EntityID: parent.EntityID, Name: "n", Visibility: domain.VisibilitySelf}
	if err := notestore.New(st).CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	for _, v := range []domain.Visibility{domain.VisibilityAll, domain.VisibilityMember, domain.VisibilityAdmin, domain.VisibilitySelfAdmin, domain.VisibilitySelf} {
		_, prev, err := notestore.New(st).GetNoteAndEntity(ctx, c.ID, parent.EntityID, note.ID)
		if err != nil {
			t.Fatal(err)
		}
		next := *prev
		next.Visibility = v
		if err := notestore.New(st).UpdateNote(ctx, prev, &next); err != nil {
			t.Fatalf("note to %s: %v", v, err)
		}
		audit("a note to " + string(v))
		for who, a := range acc {
			p, err := notestore.New(st).ListNotes(ctx, c.ID, parent.EntityID, a, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 45})
			want := a.CanSeeVisibility(v, member.ID)
			if err != nil || (len(p.Items) == 1) != want || p.Total != len(p.Items) {
				t.Errorf("note %s as %s: %d listed, total %d (%v), want visible %v", v, who, len(p.Items), p.Total, err, want)
			}
		}
	}
	ev := &timeline.Event{Meta: meta(admin.ID), EntityID: parent.EntityID, CalendarID: cal1.ID, Name: "e", Length: 1, Visibility: domain.VisibilityAll}
	if err := eventstore.New(st).CreateEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	for i, change := range []func(e *timeline.Event){
		func(e *timeline.Event) { e.IsPrivate = true },
		func(e *timeline.Event) { e.CalendarID = cal2.ID },
		func(e *timeline.Event) { e.IsPrivate, e.Visibility = false, domain.VisibilitySelfAdmin },
	} {
		_, prev, err := eventstore.New(st).GetEventAndEntity(ctx, c.ID, parent.EntityID, ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		next := *prev
		change(&next)
		if err := eventstore.New(st).UpdateEvent(ctx, prev, &next); err != nil {
			t.Fatalf("event change %d: %v", i, err)
		}
		audit("an event change")
	}

	// Deleting calendar two takes the event (on another entity) along; deleting the parent
	// orphans nothing (its child moved) and takes the note.
	c2, _ := calstore.New(st).GetCalendar(ctx, c.ID, cal2.ID)
	if err := calstore.New(st).DeleteCalendar(ctx, c2); err != nil {
		t.Fatal(err)
	}
	audit("the calendar's delete")
	if _, _, err := eventstore.New(st).GetEventAndEntity(ctx, c.ID, parent.EntityID, ev.ID); !errors.Is(err, apperr.ErrNotFound) {
		t.Errorf("the event on the deleted calendar: %v", err)
	}
	p, _ := locstore.New(st).GetLocation(ctx, c.ID, parent.ID)
	if err := locstore.New(st).DeleteLocation(ctx, p); err != nil {
		t.Fatal(err)
	}
	audit("the location's delete")
}
