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

// The audit must see each kind of breakage the races can cause: each case breaks a consistent
// campaign with one raw write (in the current key layout: store package doc) and expects the
// audit to name it.
func TestAuditFindsEachBrokenInvariant(t *testing.T) {
	t.Parallel()
	h := newHarness(t, families.Register)
	ctx := context.Background()
	db := h.e.Store.Client()
	table := h.e.Config.TableName
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v int64) types.AttributeValue { return &types.AttributeValueMemberN{Value: fmt.Sprint(v)} }
	key := func(pk, sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk)}
	}
	pad := func(id int64) string { return fmt.Sprintf("%012d", id) }

	var evID int64 // the round's event on cal
	for _, c := range []struct {
		name    string
		breakIt func(r *round, campaign string, a, b, cal, aEntity int64) error
		want    string
	}{
		{"a cycle", func(r *round, cp string, a, b, _, _ int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "LOCATION#"+pad(a)),
				UpdateExpression: aws.String("SET parent_location_id = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": n(b)}})
			return err
		}, "its parent chain is a cycle"},
		{"a dangling parent", func(r *round, cp string, a, _, _, _ int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "LOCATION#"+pad(a)),
				UpdateExpression: aws.String("SET parent_location_id = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": n(999)}})
			return err
		}, "parent 999 does not exist"},
		{"a map's group pack with a cycle and no map", func(r *round, cp string, _, _, _, _ int64) error {
			item := key(cp+"#MAP#"+pad(999), "GROUPS")
			item["v"], item["seq"] = n(1), n(2)
			item["items"] = s(`[{"id":1,"name":"a","parent_id":2},{"id":2,"name":"b","parent_id":1}]`)
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item})
			return err
		}, "GROUPS: group 1 nested deeper than 10 (or in a cycle)"},
		{"a map's layer pack entry beyond its sequence", func(r *round, cp string, _, _, _, _ int64) error {
			item := key(cp+"#MAP#"+pad(999), "LAYERS")
			item["v"], item["seq"] = n(1), n(0)
			item["items"] = s(`[{"id":1,"name":"a"}]`)
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item})
			return err
		}, "LAYERS: no map"},
		{"an orphan partition", func(r *round, cp string, _, _, _, _ int64) error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: key(cp+"#ENTITY#"+pad(999), "NOTE#"+pad(1))})
			return err
		}, "entity 999 does not exist"},
		{"a drifted counter", func(r *round, cp string, _, _, _, _ int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "COUNT#LOCATION"),
				UpdateExpression: aws.String("ADD pub :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n(1)}})
			return err
		}, "COUNT#LOCATION: pub is 3, items 2"},
		{"a drifted counter segment", func(r *round, cp string, _, _, _, _ int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "COUNT#LOCATION#S#00000000"),
				UpdateExpression: aws.String("ADD pub_0 :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n(1)}})
			return err
		}, "COUNT#LOCATION#S#00000000: pub_0 is 3, items 2"},
		{"a public copy out of step with its parent's privacy", func(r *round, cp string, _, b, _, _ int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "PUB#LOCATION#"+pad(b)),
				UpdateExpression: aws.String("REMOVE parent_location_id")})
			return err
		}, "location {b}: its public copy shows parent false, want true"},
		{"a missing copy", func(r *round, cp string, a, _, _, _ int64) error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: key(cp, "PUB#LOCATION#"+pad(a))})
			return err
		}, "PUB#LOCATION#{a}: missing"},
		{"a stale copy", func(r *round, cp string, a, _, _, _ int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "PUB#LOCATION#"+pad(a)),
				UpdateExpression: aws.String("ADD version :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n(1)}})
			return err
		}, "PUB#LOCATION#{a}: version 2, its home has 1"},
		{"a pending delete", func(r *round, cp string, _, _, _, _ int64) error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: key(cp, "DELETING#LOCATION#"+pad(999))})
			return err
		}, "location#000000000999: delete pending, with no sweeper marker"},
		{"a sweeper marker left behind", func(r *round, cp string, _, _, _, _ int64) error {
			item := key(fmt.Sprintf("PENDING#%02d", r.cid%16), "2026-01-01T00:00:00.000000Z#"+pad(r.cid)+"#LOCATION#"+pad(999))
			item["campaign_id"] = n(r.cid)
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item})
			return err
		}, "#LOCATION#000000000999: no delete pending"},
		{"an event on a missing calendar", func(r *round, cp string, _, _, cal, e int64) error {
			item := key(fmt.Sprintf("%s#ENTITY#%s", cp, pad(e)), "EVENT#"+pad(77))
			item["calendar_id"] = n(cal + 100)
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item})
			return err
		}, "calendar {cal+100} does not exist"},
		{"a private tag's id on a public copy", func(r *round, cp string, a, _, _, _ int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "PUB#LOCATION#"+pad(a)),
				UpdateExpression: aws.String("SET tags = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{
					":t": &types.AttributeValueMemberL{Value: []types.AttributeValue{n(999)}}}})
			return err
		}, "its public copy PUB#LOCATION#{a} shows tags [999], want []"},
		{"private_tags out of step with the tags' privacy", func(r *round, cp string, a, _, _, _ int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "LOCATION#"+pad(a)),
				UpdateExpression: aws.String("SET private_tags = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{
					":t": &types.AttributeValueMemberL{Value: []types.AttributeValue{n(999)}}}})
			return err
		}, "private_tags [999], its private tags are []"},
		{"a relation's sync pointer missing", func(r *round, cp string, _, _, _, aEntity int64) error {
			r.must("POST", r.path("/entities/%d/relations", aEntity), map[string]any{"target_id": aEntity + 1, "relation": "x"}) // B's entity
			out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :s)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(cp), ":s": s("SYNC#REL#")}})
			if err != nil || len(out.Items) != 1 {
				return fmt.Errorf("pointers %v: %v", out, err)
			}
			_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": out.Items[0]["pk"], "sk": out.Items[0]["sk"]}})
			return err
		}, "SYNC#REL#"},
		{"a name shard out of step with its entity", func(r *round, cp string, a, _, _, e int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, fmt.Sprintf("NAMES#%012d", e/400)),
				UpdateExpression: aws.String("SET #e = :v"), ExpressionAttributeNames: map[string]string{"#e": fmt.Sprintf("e%d", e)},
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": s(fmt.Sprintf("location#%d#0#stale", a))}})
			return err
		}, "name shard NAMES#"},
		{"a mention no entry makes", func(r *round, cp string, _, _, _, e int64) error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: key(fmt.Sprintf("%s#ENTITY#%s", cp, pad(e)), "MIN#"+pad(e+1)+"#"+pad(0))})
			return err
		}, "no entry mentions it"},
		{"an entity out of step with its record", func(r *round, cp string, _, _, _, e int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "ENTITY#"+pad(e)),
				UpdateExpression: aws.String("SET #n = :n"), ExpressionAttributeNames: map[string]string{"#n": "name"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":n": s("Other")}})
			return err
		}, "mirrors name"},
		{"a missing reminder link", func(r *round, cp string, _, _, cal, _ int64) error {
			_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: key(fmt.Sprintf("%s#CALENDAR#%s", cp, pad(cal)), "REM#"+pad(evID))})
			return err
		}, "REM#{ev}: missing"},
		{"a stale public reminder link", func(r *round, cp string, _, _, cal, _ int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(fmt.Sprintf("%s#CALENDAR#%s", cp, pad(cal)), "PUB#REM#"+pad(evID)),
				UpdateExpression: aws.String("ADD version :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n(1)}})
			return err
		}, "PUB#REM#{ev}: version 2, its home has 1"},
		{"links placed apart from their entity's privacy", func(r *round, cp string, _, _, _, e int64) error {
			_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: key(cp, "ENTITY#"+pad(e)),
				UpdateExpression: aws.String("SET links_private = :t"), ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}})
			return err
		}, "links placed as private=true, the entity is private=false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.newRound(t)
			cal, _ := r.calendar("Reckoning")
			a, aEntity := r.location(map[string]any{"name": "A"})
			b, _ := r.location(map[string]any{"name": "B", "parent_location_id": a})
			evID = r.must("POST", r.path("/entities/%d/entity_events", aEntity), event(cal)).id()
			if problems, err := ops.Audit(ctx, h.auditor, r.cid); err != nil || len(problems) > 0 {
				t.Fatalf("a consistent campaign: %v %v", problems, err)
			}
			if err := c.breakIt(r, "CAMPAIGN#"+pad(r.cid), a, b, cal, aEntity); err != nil {
				t.Fatal(err)
			}
			problems, err := ops.Audit(ctx, h.auditor, r.cid)
			want := strings.ReplaceAll(c.want, "{cal+100}", fmt.Sprint(cal+100))
			want = strings.ReplaceAll(want, "{a}", pad(a))
			want = strings.ReplaceAll(want, "{b}", fmt.Sprint(b))
			want = strings.ReplaceAll(want, "{ev}", pad(evID))
			if err != nil || !strings.Contains(strings.Join(problems, "\n"), want) {
				t.Fatalf("audit %v %v, want %q", problems, err, want)
			}
		})
	}
}
