package ops_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/relations/relstore"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// TestMigrateWritesPrivateTagsAndRelationPointers: a table written before issue 19's last
// parts (no private_tags, public copies showing private tags' ids, relations without sync
// pointers) is found by the audit and made whole by `lorekeep migrate`, twice over.
func TestMigrateWritesPrivateTagsAndRelationPointers(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c"})
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}
	open := &domain.Tag{Meta: meta, Owner: domain.Owner{Name: "Open"}}
	secret := &domain.Tag{Meta: meta, Owner: domain.Owner{Name: "Secret", IsPrivate: true}}
	for _, tg := range []*domain.Tag{open, secret} {
		if err := tagstore.New(st).CreateTag(ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	l := &domain.Location{Meta: meta, Owner: domain.Owner{Name: "L", Tags: []int64{open.ID, secret.ID}, TagsByAdmin: true}}
	other := &domain.Location{Meta: meta, Owner: domain.Owner{Name: "O"}}
	for _, x := range []*domain.Location{l, other} {
		if err := locstore.New(st).CreateLocation(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	rel := &domain.Relation{Meta: meta, OwnerID: l.EntityID, TargetID: other.EntityID, Relation: "r", Visibility: domain.VisibilityAll}
	if err := relstore.New(st).CreateRelation(ctx, rel); err != nil {
		t.Fatal(err)
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
		t.Fatalf("audit as written: %v %q", err, problems)
	}
	// Back to the table before: homes without private_tags, copies with every id, no pointers.
	db, table := st.Client(), aws.String(cfg.TableName)
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: table, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	full := &types.AttributeValueMemberL{Value: []types.AttributeValue{
		&types.AttributeValueMemberN{Value: strconv.FormatInt(open.ID, 10)}, &types.AttributeValueMemberN{Value: strconv.FormatInt(secret.ID, 10)}}}
	changed := 0
	for _, it := range out.Items {
		key := map[string]types.AttributeValue{"pk": it["pk"], "sk": it["sk"]}
		sk := it["sk"].(*types.AttributeValueMemberS).Value
		var in *dynamodb.UpdateItemInput
		switch {
		case strings.HasPrefix(sk, "SYNC#REL"):
			if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: key}); err != nil {
				t.Fatal(err)
			}
			changed++
			continue
		case it["private_tags"] != nil:
			in = &dynamodb.UpdateItemInput{UpdateExpression: aws.String("REMOVE private_tags")}
		case strings.HasPrefix(sk, "PUB#") && it["tags"] != nil && len(it["tags"].(*types.AttributeValueMemberL).Value) == 1:
			in = &dynamodb.UpdateItemInput{UpdateExpression: aws.String("SET tags = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": full}}
		default:
			continue
		}
		in.TableName, in.Key = table, key
		if _, err := db.UpdateItem(ctx, in); err != nil {
			t.Fatal(err)
		}
		changed++
	}
	if changed != 6 { // 2 pointers, 2 homes (record, entity), 2 public copies
		t.Fatalf("changed %d items, want 6", changed)
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) < 3 {
		t.Fatalf("audit of the table before: %v %q", err, problems)
	}
	storetest.MigrateTwice(t, st, c.ID, func(run int) {
		got, err := locstore.New(st).GetLocation(ctx, c.ID, l.ID)
		if err != nil || len(got.PrivateTags) != 1 || got.PrivateTags[0] != secret.ID {
			t.Fatalf("run %d: %+v %v", run, got, err)
		}
	})
}
