package entities_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestEntitiesWrittenBeforeTheMirrorAreMigrated: an entity item as the previous version wrote
// it (name and privacy only) is brought up to date from its record, once, without touching
// entities that already mirror theirs.
func TestEntitiesWrittenBeforeTheMirrorAreMigrated(t *testing.T) {
	e := apitest.New(t, register)
	old := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Old Port", "tags": []int{7}})
	fresh := create(t, e, e.Campaign, e.Admin, "calendars", calendarBody("New Reckoning"))
	ctx := context.Background()
	_, err := e.Store.Client().UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(e.Config.TableName),
		Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("CAMPAIGN#%012d", e.Campaign)},
			"sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("ENTITY#%012d", eid(old))},
		},
		UpdateExpression: aws.String("REMOVE name_lc, tags, created_at, updated_at, created_by, updated_by"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := e.Do("GET", ents(e.Campaign, "?name=old"), e.Admin, nil); len(r.List()) != 0 {
		t.Fatalf("the stripped entity still matches by name: %s", r.Raw)
	}
	n, err := e.Store.MirrorEntities(ctx, e.Campaign)
	if err != nil || n != 1 {
		t.Fatalf("MirrorEntities = %d, %v; want the one legacy entity", n, err)
	}
	r := e.Do("GET", ents(e.Campaign, "?name=old"), e.Admin, nil)
	if len(r.List()) != 1 {
		t.Fatalf("after migration: %s", r.Raw)
	}
	got := r.List()[0].(map[string]any)
	if fmt.Sprint(got["tags"]) != "[7]" || got["created_at"] != old["created_at"] || got["created_by"] != float64(e.AdminID) {
		t.Errorf("migrated entity = %v", got)
	}
	if n, err := e.Store.MirrorEntities(ctx, e.Campaign); err != nil || n != 0 {
		t.Errorf("second run = %d, %v; want nothing to do", n, err)
	}
	if s := e.Do("GET", ents(e.Campaign, fmt.Sprintf("/%d", eid(fresh))), e.Admin, nil); s.Data()["name"] != "New Reckoning" {
		t.Errorf("untouched entity = %s", s.Raw)
	}
}
