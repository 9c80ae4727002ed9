package entityevents_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// seedEvents stores n one-off events of entity eid on the fixture's calendar, on the first day
// of each year from year (through the store, 4 at once: only the count matters).
func (f fixture) seedEvents(t testing.TB, eid int64, n int, year int64) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(4)
	for i := range n {
		g.Go(func() error {
			ev := timeline.Event{Meta: domain.Meta{CampaignID: f.Campaign, CreatedBy: f.AdminID}, EntityID: eid, CalendarID: f.cal,
				Name: fmt.Sprintf("Old %d", i), Date: calengine.Date{Year: year + int64(i), Month: 1, Day: 1}, Length: 1,
				Visibility: domain.VisibilityAll}
			var err error
			for range 3 { // a loaded DynamoDB Local may time out: the seed, not the test, retries
				if err = eventstore.New(f.Store).CreateEvent(context.Background(), &ev); !errors.Is(err, apperr.ErrUnavailable) {
					break
				}
				ev.ID, ev.Version = 0, 0
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) audit(t *testing.T) {
	t.Helper()
	if problems, err := ops.Audit(context.Background(), f.Store, f.Campaign); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
}

// Issue 20: a day view reads the recurring events and the one-off events of its window (and
// the 30 days before it), never every event of the calendar, and no entity.
func TestDayViewReadsItsWindowNotTheCalendar(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seedEvents(t, f.entity, 1000, 1000) // years 1000..1999: outside the window
	recurring := []float64{
		f.create(t, f.entity, f.Member, f.event("name", "Yearly", "day", 2, "month", 1, "year", 1, "recurring_periodicity", "yearly"))["id"].(float64),
		f.create(t, f.entity, f.Member, f.event("name", "Long", "day", 1, "month", 1, "year", 499, "length", 400))["id"].(float64),
	}
	inside := []float64{
		f.create(t, f.entity, f.Member, f.event("name", "In", "day", 10, "month", 2, "year", 500))["id"].(float64),
		// Starts 30 days before the window (499-4-1 is the day before it) and lasts 31: its
		// last day is the window's first.
		f.create(t, f.entity, f.Member, f.event("name", "Reaching in", "day", 2, "month", 3, "year", 499, "length", 31))["id"].(float64),
	}
	// Starts 31 days before the window, lasts 31: ends the day before it.
	before := f.create(t, f.entity, f.Member, f.event("name", "Just before", "day", 1, "month", 3, "year", 499, "length", 31))["id"].(float64)
	negative := f.create(t, f.entity, f.Member, f.event("name", "Ancient", "day", 3, "month", 1, "year", -5))["id"].(float64)

	cases := []struct {
		name     string
		from, to string
		want     map[float64]string // event id -> its first date in the view
		absent   []float64
		maxItems int64
	}{
		// The window is 500-1-1 .. 500-4-1 (one year is 31+28+30+1 = 90 days, +1 in leap years).
		{"a year", "500-1-1", "500-4-1", map[float64]string{recurring[0]: "500-1-2", recurring[1]: "500-1-1", inside[0]: "500-2-10", inside[1]: "500-1-1"},
			[]float64{before, negative}, int64(len(recurring)) + 40},
		{"negative years keep date order", "-5-1-1", "-5-1-31", map[float64]string{negative: "-5-1-3"}, []float64{before, inside[0], recurring[0]}, int64(len(recurring)) + 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.Counter.Reset()
			view, _ := f.dayView(t, f.Member, c.from, c.to)
			if n := f.Counter.N(); n != 1+3 {
				t.Errorf("%d DynamoDB calls, want 4 (access, two concurrent Queries, the days' weather)", n)
			}
			if n := f.Counter.Scanned(); n > c.maxItems {
				t.Errorf("evaluated %d items with 1,000 events outside the window, want <= %d", n, c.maxItems)
			}
			for id, first := range c.want {
				if dates := datesWith(view, id); len(dates) == 0 || !slices.Contains(dates, first) {
					t.Errorf("event %v: on %v, want %s among them", id, dates, first)
				}
			}
			for _, id := range c.absent {
				if dates := datesWith(view, id); len(dates) > 0 {
					t.Errorf("event %v shown on %v", id, dates)
				}
			}
		})
	}
	f.audit(t)
}

// remindersPage reads one page of the calendar's reminders.
func (f fixture) remindersPage(t *testing.T, token, query string) apitest.Response {
	t.Helper()
	r := f.Do("GET", apitest.Path(f.Campaign, fmt.Sprintf("/calendars/%d/reminders?%s", f.cal, query)), token, nil)
	if r.Status != 200 {
		t.Fatalf("reminders: %d %s", r.Status, r.Raw)
	}
	return r
}

// allReminders follows the cursor through every page, checking each page's cost.
func (f fixture) allReminders(t *testing.T, token string, limit int) (ids []float64, total float64) {
	t.Helper()
	query := fmt.Sprintf("limit=%d", limit)
	for pages := 0; ; pages++ {
		f.Counter.Reset()
		r := f.remindersPage(t, token, query)
		if n := f.Counter.N(); n > 1+2 {
			t.Fatalf("page %d: %d DynamoDB calls, want the access and the ranges' Queries", pages, n)
		}
		if n := f.Counter.Scanned(); n > int64(2*(limit+1)) {
			t.Fatalf("page %d: evaluated %d items, want <= %d (limit+1 per range)", pages, n, 2*(limit+1))
		}
		for _, it := range r.List() {
			ids = append(ids, it.(map[string]any)["id"].(float64))
		}
		meta := r.Body["meta"].(map[string]any)
		total = meta["total"].(float64)
		next, _ := r.Body["links"].(map[string]any)["next"].(string)
		if next == "" || pages > 100 {
			return ids, total
		}
		_, query, _ = strings.Cut(next, "?")
	}
}

// Issue 20: a calendar's reminders are a list page like any other: a real cursor, limit+1
// items per range, an exact total, the entity's privacy applied by placement; and a privacy
// change of the entity moves its events' links in both views.
func TestRemindersPageByCursorAndFollowTheirEntity(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	loc := domain.Location{Meta: domain.Meta{CampaignID: f.Campaign, CreatedBy: f.AdminID}, Owner: domain.Owner{Name: "Keep"}}
	if err := locstore.New(f.Store).CreateLocation(context.Background(), &loc); err != nil {
		t.Fatal(err)
	}
	f.seedEvents(t, loc.EntityID, 25, 100)
	f.seedEvents(t, f.entity, 20, 100)
	f.create(t, f.entity, f.Admin, f.event("is_private", true))
	f.create(t, f.entity, f.Member, f.event("visibility", "self"))

	check := func(t *testing.T, token string, want int) {
		t.Helper()
		ids, total := f.allReminders(t, token, 10)
		if len(ids) != want || int(total) != want || !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != want {
			t.Fatalf("%d reminders (total %v), want %d, ascending and distinct: %v", len(ids), total, want, ids)
		}
	}
	t.Run("placed by audience", func(t *testing.T) {
		check(t, f.Admin, 25+20+1)  // the member's `self` event is not the admins'
		check(t, f.Member, 25+20+1) // its own `self` event, not the private one
		check(t, f.Viewer, 25+20)
	})
	setPrivate := func(t *testing.T, private bool) {
		t.Helper()
		prev, err := locstore.New(f.Store).GetLocation(context.Background(), f.Campaign, loc.ID)
		if err != nil {
			t.Fatal(err)
		}
		next := *prev
		next.IsPrivate = private
		if err := locstore.New(f.Store).UpdateLocation(context.Background(), prev, &next); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("entity made private", func(t *testing.T) {
		setPrivate(t, true)
		check(t, f.Admin, 25+20+1)
		check(t, f.Member, 20+1)
		// Years 100..110: the member sees 11 events of the public entity and its own, none of
		// the private entity's 11.
		view, _ := f.dayView(t, f.Member, "100-1-1", "110-1-1")
		seen := map[float64]bool{}
		for _, ids := range view {
			for _, id := range ids {
				seen[id] = true
			}
		}
		if len(seen) != 11+1 {
			t.Fatalf("member's day view shows %d events, want 12: %v", len(seen), view)
		}
		f.audit(t)
	})
	t.Run("an event written while it is private stays hidden", func(t *testing.T) {
		r := f.Do("POST", eventsOf(f.Campaign, loc.EntityID), f.Admin, f.event("name", "Hidden"))
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		check(t, f.Member, 20+1)
		f.audit(t)
	})
	t.Run("entity made public again", func(t *testing.T) {
		setPrivate(t, false)
		check(t, f.Member, 25+1+20+1)
		f.audit(t)
	})
	t.Run("entity deleted", func(t *testing.T) {
		l, err := locstore.New(f.Store).GetLocation(context.Background(), f.Campaign, loc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := locstore.New(f.Store).DeleteLocation(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		check(t, f.Admin, 20+1)
		f.audit(t)
	})
}
