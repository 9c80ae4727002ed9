package calendars_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// The entity-events and entity-notes families write these items; the test lays them out as
// DESIGN.md section 3 says, to check the calendar's delete cascade.
func entityPK(cid, eid int64) string { return fmt.Sprintf("CAMPAIGN#%012d#ENTITY#%012d", cid, eid) }

func put(t *testing.T, e *apitest.Env, item map[string]types.AttributeValue) {
	t.Helper()
	_, err := e.Store.Client().PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(e.Config.TableName), Item: item})
	if err != nil {
		t.Fatal(err)
	}
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int) types.AttributeValue    { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }

// putEvent stores an event through the store (its copies and counts included); ids follow the
// campaign's event sequence, so the test creates them in id order.
func putEvent(t *testing.T, e *apitest.Env, cid, entityID, id, calendarID int64, private bool) {
	t.Helper()
	ev := &timeline.Event{Meta: domain.Meta{CampaignID: cid, CreatedBy: e.AdminID}, EntityID: entityID, CalendarID: calendarID,
		Name: "e", Length: 1, IsPrivate: private, Visibility: domain.VisibilityAll}
	if err := eventstore.New(e.Store).CreateEvent(context.Background(), ev); err != nil || ev.ID != id {
		t.Fatalf("event %d: %v (id %d)", id, err, ev.ID)
	}
}

// partition lists the sort keys of the records in a partition.
func partition(t *testing.T, e *apitest.Env, pk string) string {
	t.Helper()
	out, err := e.Store.Client().Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String(e.Config.TableName), KeyConditionExpression: aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(pk)}, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, it := range out.Items {
		sk := it["sk"].(*types.AttributeValueMemberS).Value
		if strings.HasPrefix(sk, "EVENT#") || strings.HasPrefix(sk, "NOTE#") || strings.HasPrefix(sk, "ENTITY#") {
			keys = append(keys, sk) // records' homes: copies and counters are the store's business
		}
	}
	sort.Strings(keys)
	return fmt.Sprint(keys)
}

func TestDeleteRemovesTheEntityItsEventsAndNotesAndOtherEntitiesEventsOnTheCalendar(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	ctx := context.Background()
	a := create(t, e, e.Campaign, e.Admin, fullBody())
	b := create(t, e, e.Campaign, e.Admin, plainBody("Other"))
	ca, _ := calstore.New(e.Store).GetCalendar(ctx, e.Campaign, a)
	cb, _ := calstore.New(e.Store).GetCalendar(ctx, e.Campaign, b)

	// The calendar's own entity: an event on it and a note.
	putEvent(t, e, e.Campaign, ca.EntityID, 1, a, false)
	put(t, e, map[string]types.AttributeValue{"pk": s(entityPK(e.Campaign, ca.EntityID)), "sk": s("NOTE#000000000001")})
	// The other calendar's entity: two events on calendar a (one private), one on its own calendar.
	putEvent(t, e, e.Campaign, cb.EntityID, 2, a, true)
	putEvent(t, e, e.Campaign, cb.EntityID, 3, a, false)
	putEvent(t, e, e.Campaign, cb.EntityID, 4, b, false)
	put(t, e, map[string]types.AttributeValue{"pk": s(entityPK(e.Campaign, cb.EntityID)), "sk": s("NOTE#000000000002")})

	if r := e.Do("DELETE", cal(e.Campaign, a), e.Viewer, nil); r.Status != 403 {
		t.Fatalf("viewer delete: %d", r.Status)
	}
	r := e.Do("DELETE", cal(e.Campaign, a), e.Member, nil)
	if r.Status != 200 || jsonOf(r.Body) != fmt.Sprintf(`{"data":{"deleted":true,"id":%d}}`, a) {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	// The trash keeps the calendar's entity's own items, unreachable, until the purge.
	if got, want := partition(t, e, entityPK(e.Campaign, ca.EntityID)), "[EVENT#000000000001 NOTE#000000000001]"; got != want {
		t.Errorf("the calendar's entity partition holds %s, want %s", got, want)
	}
	if got, want := partition(t, e, entityPK(e.Campaign, cb.EntityID)), "[EVENT#000000000004 NOTE#000000000002]"; got != want {
		t.Errorf("the other entity's partition holds %s, want %s", got, want)
	}
	if _, err := calstore.New(e.Store).GetCalendar(ctx, e.Campaign, a); !errors.Is(err, apperr.ErrNotFound) {
		t.Errorf("calendar still stored: %v", err)
	}
	if _, err := e.Store.GetEntity(ctx, e.Campaign, ca.EntityID); !errors.Is(err, apperr.ErrNotFound) {
		t.Errorf("entity still stored: %v", err)
	}
	if n := total(t, e, e.Campaign); n != 1 {
		t.Errorf("total %v after the delete, want 1", n)
	}
	if r := e.Do("DELETE", cal(e.Campaign, a), e.Member, nil); r.Status != 404 {
		t.Errorf("second delete: %d", r.Status)
	}
	if r := e.Do("GET", cal(e.Campaign, b), e.Member, nil); r.Status != 200 {
		t.Errorf("the other calendar: %d", r.Status)
	}
}
