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

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// Layout 3 adds the name shards and the reverse mention items. A layout 2 table (records
// written as today, without them) is audited as broken, and migrated (twice: idempotent) to a
// table the audit finds consistent, whose search and mentions answer.
func TestMigrateWritesNameShardsAndMentions(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c"})
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}
	port := &domain.Location{Meta: meta, Owner: domain.Owner{Name: "Port"}}
	if err := locstore.New(st).CreateLocation(ctx, port); err != nil {
		t.Fatal(err)
	}
	town := &domain.Location{Meta: meta, Owner: domain.Owner{Name: "Town", IsPrivate: true, Entry: fmt.Sprintf("[location:%d]", port.EntityID)}}
	if err := locstore.New(st).CreateLocation(ctx, town); err != nil {
		t.Fatal(err)
	}
	note := &domain.Note{Meta: meta, EntityID: town.EntityID, Name: "n", Entry: fmt.Sprintf("<p>[location:%d]</p>", port.EntityID), Visibility: domain.VisibilityMember}
	if err := notestore.New(st).CreateNote(ctx, note); err != nil {
		t.Fatal(err)
	}
	// Back to layout 2: the derived items removed.
	out, err := st.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(cfg.TableName), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, it := range out.Items {
		sk := it["sk"].(*types.AttributeValueMemberS).Value
		if strings.HasPrefix(sk, "NAMES#") || strings.HasPrefix(sk, "MIN#") {
			removed++
			if _, err := st.Client().DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(cfg.TableName),
				Key: map[string]types.AttributeValue{"pk": it["pk"], "sk": it["sk"]}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if removed != 3 { // one shard, the entry's and the note's reverse items
		t.Fatalf("removed %d derived items, want 3", removed)
	}
	problems, err := ops.Audit(ctx, st, c.ID)
	if err != nil || len(problems) != 4 { // two shard entries, two reverse items
		t.Fatalf("audit of the layout 2 table: %v %q", err, problems)
	}
	storetest.MigrateTwice(t, st, c.ID, nil)
	admins := domain.Access{UserID: admin.ID, CampaignID: c.ID, Role: domain.RoleAdmin}
	p, err := st.Search(ctx, c.ID, "OWN", true, domain.PageRequest{Page: 1, Limit: 10})
	if err != nil || len(p.Items) != 1 || p.Items[0].ID != town.EntityID {
		t.Errorf("search: %+v %v", p, err)
	}
	target, _ := st.GetEntity(ctx, c.ID, port.EntityID)
	rows, err := st.Mentions(ctx, target, admins, true)
	want := []domain.MentionRow{{EntityID: town.EntityID, TargetID: port.EntityID}, {EntityID: town.EntityID, PostID: note.ID, TargetID: port.EntityID}}
	if err != nil || !reflect.DeepEqual(rows, want) {
		t.Errorf("mentions in: %+v %v, want %+v", rows, err, want)
	}
}

// The related buckets (layout 3, related=1) are built by the migration from the notes and
// child links of a table that has none, idempotently; Audit reports each missing copy.
func TestMigrateBuildsRelatedBuckets(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c"})
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}
	root := &domain.Location{Meta: meta, Owner: domain.Owner{Name: "Root"}}
	if err := locstore.New(st).CreateLocation(ctx, root); err != nil {
		t.Fatal(err)
	}
	var kids []int64
	for i, private := range []bool{false, true} {
		l := &domain.Location{Meta: meta, Owner: domain.Owner{Name: fmt.Sprint("Kid ", i), IsPrivate: private}, ParentID: &root.ID}
		if err := locstore.New(st).CreateLocation(ctx, l); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, l.ID)
	}
	var notes []int64
	for _, v := range []domain.Visibility{domain.VisibilityAll, domain.VisibilitySelf} {
		n := &domain.Note{Meta: meta, EntityID: root.EntityID, Name: "n", Visibility: v}
		if err := notestore.New(st).CreateNote(ctx, n); err != nil {
			t.Fatal(err)
		}
		notes = append(notes, n.ID)
	}
	check := func(when string) {
		t.Helper()
		rel, err := st.RelatedOf(ctx, c.ID, []int64{root.EntityID}, []int64{root.ID})
		if err != nil {
			t.Fatal(err)
		}
		var gotNotes, gotKids []int64
		for _, n := range rel.Notes[root.EntityID] {
			gotNotes = append(gotNotes, n.ID)
		}
		for _, k := range rel.Children[root.ID] {
			gotKids = append(gotKids, k.ID)
		}
		if !reflect.DeepEqual(gotNotes, notes) || !reflect.DeepEqual(gotKids, kids) || !rel.Children[root.ID][1].IsPrivate {
			t.Fatalf("%s: notes %v children %+v, want %v %v", when, gotNotes, rel.Children[root.ID], notes, kids)
		}
	}
	check("as written")
	// Back to a table without buckets.
	out, err := st.Client().Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(cfg.TableName), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, it := range out.Items {
		if strings.Contains(it["pk"].(*types.AttributeValueMemberS).Value, "#RELATED#") {
			removed++
			if _, err := st.Client().DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(cfg.TableName),
				Key: map[string]types.AttributeValue{"pk": it["pk"], "sk": it["sk"]}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if removed != 4 {
		t.Fatalf("removed %d bucket items, want 4 (2 notes, 2 links)", removed)
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) != 4 || !strings.Contains(strings.Join(problems, "\n"), "#RELATED#LOCATION#") {
		t.Fatalf("audit of the table without buckets: %v %q", err, problems)
	}
	storetest.MigrateTwice(t, st, c.ID, func(run int) { check(fmt.Sprint("migration run ", run)) })
}
