package ops_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/calengine"
	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// downgradeToLayout2 turns the campaign's layout 3 items into what layout 2 stored: no day or
// reminder links (nor their counters) and no links_private, but an EVENTLINK# per event and
// the events' GSI1 keys on their homes.
func downgradeToLayout2(t *testing.T, st *store.Store, table string, cid int64) {
	t.Helper()
	ctx := context.Background()
	out, err := st.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	cpk := storetest.Key("CAMPAIGN", cid)
	for _, it := range out.Items {
		pk, sk := it["pk"].(*types.AttributeValueMemberS).Value, it["sk"].(*types.AttributeValueMemberS).Value
		if !strings.HasPrefix(pk, cpk) {
			continue
		}
		id := func() int64 {
			var n int64
			if v, ok := it["id"].(*types.AttributeValueMemberN); ok {
				fmt.Sscan(v.Value, &n)
			}
			return n
		}
		switch {
		case strings.Contains(pk, "#CALENDAR#") && (strings.HasPrefix(sk, "DAY#") || strings.HasPrefix(sk, "RECUR#") || strings.Contains(sk, "REM")):
			if _, err := st.Client().DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: raw{"pk": it["pk"], "sk": it["sk"]}}); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(sk, "COUNT#") && !strings.Contains(sk, "REM") {
				eid := it["entity_id"].(*types.AttributeValueMemberN).Value
				link := raw{"pk": it["pk"], "sk": storetest.SV(fmt.Sprintf("EVENTLINK#%012s#%012d", eid, id())), "entity_id": it["entity_id"], "id": it["id"]}
				if _, err := st.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: link}); err != nil {
					t.Fatal(err)
				}
			}
		case strings.Contains(pk, "#ENTITY#") && strings.TrimPrefix(sk, "SELF#") == storetest.Key("EVENT", id()):
			cal := it["calendar_id"].(*types.AttributeValueMemberN).Value
			it["gsi1pk"], it["gsi1sk"] = storetest.SV(fmt.Sprintf("%s#CALENDAR#%012s", cpk, cal)), storetest.SV(storetest.Key("EVENT", id()))
			if _, err := st.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
				t.Fatal(err)
			}
		case pk == cpk && strings.HasPrefix(strings.TrimPrefix(sk, "PUB#"), "ENTITY#"):
			delete(it, "links_private")
			if _, err := st.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestMigrateWritesCalendarLinksFromLayout2 builds a layout 2 campaign (the layout 3 writers'
// items less what layout 3 added, plus what it removed), migrates it, and requires exactly the
// items the layout 3 writers wrote: the links placed by their entities' privacy, no EVENTLINK#,
// no GSI1 keys on events; Audit clean, the day view and the reminders as before.
func TestMigrateWritesCalendarLinksFromLayout2(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, _ := campstore.New(st).EnsureUser(ctx, "admin")
	member, _ := campstore.New(st).EnsureUser(ctx, "member")
	c, err := campstore.New(st).CreateCampaign(ctx, domain.Campaign{Name: "c", OwnerID: admin.ID, IsPublic: true})
	if err != nil {
		t.Fatal(err)
	}
	// No months: snapshot prints nested lists as pointers (the links need none).
	cal := timeline.Calendar{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "Reckoning"}}
	if err := calstore.New(st).CreateCalendar(ctx, &cal); err != nil {
		t.Fatal(err)
	}
	var ents []int64
	for _, private := range []bool{false, true} {
		l := domain.Location{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "L", IsPrivate: private}}
		if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
			t.Fatal(err)
		}
		ents = append(ents, l.EntityID)
	}
	yearly, _ := calengine.ParsePeriodicity("yearly")
	evs := []timeline.Event{
		{EntityID: ents[0], Date: calengine.Date{Year: 5, Month: 1, Day: 3}, Length: 1, Visibility: domain.VisibilityAll},
		{EntityID: ents[0], Date: calengine.Date{Year: -7, Month: 1, Day: 1}, Length: 1, Recurrence: yearly, Visibility: domain.VisibilityAll},
		{EntityID: ents[0], Date: calengine.Date{Year: 5, Month: 1, Day: 4}, Length: 40, Visibility: domain.VisibilityMember},
		{EntityID: ents[0], Date: calengine.Date{Year: 5, Month: 1, Day: 5}, Length: 1, Visibility: domain.VisibilitySelf, Meta: domain.Meta{CreatedBy: member.ID}},
		{EntityID: ents[0], Date: calengine.Date{Year: 5, Month: 1, Day: 6}, Length: 1, IsPrivate: true, Visibility: domain.VisibilityAll},
		{EntityID: ents[1], Date: calengine.Date{Year: 5, Month: 1, Day: 7}, Length: 1, Visibility: domain.VisibilityAll, EntityPrivate: true},
	}
	for i := range evs {
		ev := &evs[i]
		ev.CampaignID, ev.CalendarID, ev.Name = c.ID, cal.ID, fmt.Sprint("Event ", i)
		if ev.CreatedBy == 0 {
			ev.CreatedBy = admin.ID
		}
		if err := eventstore.New(st).CreateEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	want := storetest.Snapshot(t, st, cfg.TableName)
	downgradeToLayout2(t, st, cfg.TableName, c.ID)
	if layout2 := storetest.Snapshot(t, st, cfg.TableName); layout2 == want || !strings.Contains(layout2, "EVENTLINK#") || strings.Contains(layout2, "RECUR#") {
		t.Fatalf("the layout 2 fixture:\n%s", layout2)
	}
	if _, err := ops.Migrate(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	got := storetest.Snapshot(t, st, cfg.TableName)
	if got != want {
		t.Errorf("migrated table:\n%s\nwant what layout 3 writes:\n%s", got, want)
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
		t.Errorf("audit: %v %q", err, problems)
	}
	day, err := eventstore.New(st).DayEvents(ctx, c.ID, cal.ID, calengine.Date{Year: 5, Month: 1, Day: 1}, calengine.Date{Year: 5, Month: 1, Day: 30})
	var dayIDs []int64
	for _, ev := range day {
		dayIDs = append(dayIDs, ev.ID)
	}
	if wantIDs := []int64{evs[1].ID, evs[2].ID, evs[0].ID, evs[3].ID, evs[4].ID, evs[5].ID}; err != nil || !reflect.DeepEqual(dayIDs, wantIDs) {
		t.Errorf("day links: %v (%v), want %v (recurring and long first, then by date)", dayIDs, err, wantIDs)
	}
	for _, tc := range []struct {
		a    domain.Access
		want []int64
	}{
		{domain.Access{UserID: admin.ID, CampaignID: c.ID, Role: domain.RoleAdmin}, []int64{evs[0].ID, evs[1].ID, evs[2].ID, evs[4].ID, evs[5].ID}},
		{domain.Access{UserID: member.ID, CampaignID: c.ID, Role: domain.RoleMember}, []int64{evs[0].ID, evs[1].ID, evs[2].ID, evs[3].ID}},
		{domain.Access{UserID: 999, CampaignID: c.ID, Role: domain.RolePublic}, []int64{evs[0].ID, evs[1].ID}},
	} {
		p, err := eventstore.New(st).ListReminders(ctx, c.ID, cal.ID, tc.a, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 45})
		if err != nil || !reflect.DeepEqual(storetest.IDs(p.Items, func(e timeline.Event) int64 { return e.ID }), tc.want) || p.Total != len(tc.want) {
			t.Errorf("reminders as %s: %v total %d (%v), want %v", tc.a.Role, storetest.IDs(p.Items, func(e timeline.Event) int64 { return e.ID }), p.Total, err, tc.want)
		}
	}
}
