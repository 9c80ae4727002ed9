package racetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/store/ops"
)

// The audit names each kind of breakage of relations and mirrors (as TestAuditFindsEach-
// BrokenInvariant does for the rest): a consistent two-way relation x (A to B, mirror y) is
// broken with one raw write.
func TestAuditFindsBrokenRelations(t *testing.T) {
	t.Parallel()
	h := newHarness(t, families.Register)
	ctx := context.Background()
	db := h.e.Store.Client()
	table := h.e.Config.TableName
	n := func(v int64) types.AttributeValue { return &types.AttributeValueMemberN{Value: fmt.Sprint(v)} }
	pad := func(id int64) string { return fmt.Sprintf("%012d", id) }
	key := func(pk, sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}
	}
	update := func(pk, sk, expr string, v int64) error {
		_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(pk, sk), UpdateExpression: aws.String(expr),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": n(v)}})
		return err
	}
	type ids struct {
		cp, ea, eb string // the campaign's and the entities' partitions
		x, y       int64
	}
	for _, c := range []struct {
		name    string
		breakIt func(k ids) error
		want    string
	}{
		{"a mirror that does not name it back", func(k ids) error {
			return update(k.eb, "RELATION#"+pad(k.y), "SET mirror_id = :v", 999)
		}, "mirror {y} does not name it back"},
		{"a lost incoming pointer", func(k ids) error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: key(k.eb, "RELIN#"+pad(k.x))})
			return err
		}, "RELIN#{x}: missing"},
		{"a stale campaign-wide copy", func(k ids) error {
			return update(k.cp, "REL#"+pad(k.x), "ADD version :v", 1)
		}, "REL#{x}: version 2, its relation has 1"},
		{"a relation placed by a stale privacy", func(k ids) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(k.ea, "RELATION#"+pad(k.x)),
				UpdateExpression: aws.String("SET target_private = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}})
			return err
		}, "placed for target"},
		{"a drifted relation counter", func(k ids) error {
			return update(k.cp, "COUNT#REL", "ADD admin :v", 1)
		}, "COUNT#REL: admin is 3, items 2"},
		{"a bucket copy outliving its relation", func(k ids) error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: key(k.cp+"#RELATED#"+pad(0), pad(1)+"#RELATION#"+pad(999))})
			return err
		}, "RELATION#000000000999: no relation places it here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.newRound(t)
			_, a := r.location(map[string]any{"name": "A"})
			_, b := r.location(map[string]any{"name": "B"})
			x := r.must("POST", r.path("/entities/%d/relations", a), map[string]any{"target_id": b, "relation": "Ally", "two_way": true})
			k := ids{cp: "CAMPAIGN#" + pad(r.cid), x: x.id(), y: int64(x.data()["mirror_id"].(float64))}
			k.ea, k.eb = k.cp+"#ENTITY#"+pad(a), k.cp+"#ENTITY#"+pad(b)
			if problems, err := ops.Audit(ctx, h.auditor, r.cid); err != nil || len(problems) > 0 {
				t.Fatalf("a consistent campaign: %v %v", problems, err)
			}
			if err := c.breakIt(k); err != nil {
				t.Fatal(err)
			}
			problems, err := ops.Audit(ctx, h.auditor, r.cid)
			want := strings.NewReplacer("{x}", pad(k.x), "{y}", fmt.Sprint(k.y)).Replace(c.want)
			if err != nil || !strings.Contains(strings.Join(problems, "\n"), want) {
				t.Fatalf("audit %v %v, want %q", problems, err, want)
			}
		})
	}
}
