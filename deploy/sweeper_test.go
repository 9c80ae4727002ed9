package deploy_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/sweeper"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/faultproxy"
)

// TestSweeperFinishesPendingDeletesWithinItsPolicy leaves a location's and a calendar's
// delete pending (their cascades fail after the first step), then sweeps as the scheduled
// function does while recording its DynamoDB calls: its policy must allow exactly those. The
// schedule's sample event is what EventBridge sends; the function's handler leaves a delete
// pending for less than a minute alone.
func TestSweeperFinishesPendingDeletesWithinItsPolicy(t *testing.T) {
	tpl := loadTemplate(t)
	ctx := context.Background()
	p := faultproxy.Start(t, dynamotest.Endpoint(t))
	api, cfg := dynamotest.NewStore(t, p.Attach, func(c *aws.Config) { c.Retryer = func() aws.Retryer { return aws.NopRetryer{} } })
	seed(t, api)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	meta := func() domain.Meta { return domain.Meta{CampaignID: 1, CreatedBy: 1} }
	// A location with a child and a map point; a calendar with another entity's event on it.
	loc := &domain.Location{Meta: meta(), Owner: domain.Owner{Name: "Saltmarsh"}}
	must(locstore.New(api).CreateLocation(ctx, loc))
	must(locstore.New(api).CreateLocation(ctx, &domain.Location{Meta: meta(), Owner: domain.Owner{Name: "Dock"}, ParentID: &loc.ID}))
	gate := "Gate"
	must(locstore.New(api).CreateMapPoint(ctx, &domain.MapPoint{Meta: meta(), LocationID: loc.ID, Name: &gate, Colour: "blue", Size: "standard", Icon: "pin", Shape: "circle"}))
	cal := &timeline.Calendar{Meta: meta(), Owner: domain.Owner{Name: "Reckoning"}, Date: calengine.Date{Year: 1, Month: 1, Day: 1},
		Months: []calengine.Month{{Name: "A", Length: 30}, {Name: "B", Length: 30}}, Weekdays: []string{"X", "Y"}}
	must(calstore.New(api).CreateCalendar(ctx, cal))
	hero := &domain.Location{Meta: meta(), Owner: domain.Owner{Name: "Hero"}}
	must(locstore.New(api).CreateLocation(ctx, hero))
	must(eventstore.New(api).CreateEvent(ctx, &timeline.Event{Meta: meta(), EntityID: hero.EntityID, CalendarID: cal.ID, Name: "Feast", Length: 1,
		Date: calengine.Date{Year: 1, Month: 1, Day: 5}, Visibility: domain.VisibilityAll}))

	p.Inject(faultproxy.Rule{Op: "Query", Fault: faultproxy.InternalServerError})
	must(locstore.New(api).DeleteLocation(ctx, loc)) // the first step is written: the delete has happened
	must(calstore.New(api).DeleteCalendar(ctx, cal))
	if p.Faults("Query") == 0 {
		t.Fatal("no cascade failed: nothing is pending")
	}
	p.Reset()

	rec := &iamRecorder{}
	st, err := store.Open(ctx, cfg, rec.attach) // straight to DynamoDB Local
	must(err)
	var ev events.EventBridgeEvent
	must(json.Unmarshal(readEvent(t, "sweeper-schedule.json"), &ev))
	if ev.DetailType != "Scheduled Event" || ev.Source != "aws.events" {
		t.Fatalf("events/sweeper-schedule.json is not a scheduled event: %+v", ev)
	}
	if res, err := sweeper.Handler(st, nil)(ctx); err != nil || res != (store.SweepResult{}) {
		t.Fatalf("the scheduled sweep of deletes pending for seconds: %+v %v, want nothing done", res, err)
	}
	// A minute later, as far as the sweeper can tell.
	if res, err := sweeper.Run(ctx, st, 0, nil); err != nil || res != (store.SweepResult{Finished: 2}) {
		t.Fatalf("sweep: %+v %v, want 2 deletes finished", res, err)
	}
	// 31 days later the trash is purged: the location's and the calendar's partitions and what
	// they hid go.
	later := st.AtTime(func() time.Time { return time.Now().Add(31 * 24 * time.Hour) })
	if res, err := sweeper.Run(ctx, later, 0, nil); err != nil || res.Purged != 2 {
		t.Fatalf("sweep 31 days on: %+v %v, want 2 purged", res, err)
	}
	checkPolicy(t, tpl, "SweeperFunction", rec)
	problems, err := ops.Audit(ctx, st, 1)
	if err != nil || len(problems) > 0 {
		t.Fatalf("after the sweep: %v %v", problems, err)
	}
}
