package ops_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/attributes/attrstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/relations/relstore"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// TestMigrateKeepsRelationsAndAttributes: the migration leaves relations, their copies,
// pointers and buckets, and attribute packs as they are, and its recount gives the relation
// counters the values their writers kept: a migrated table is byte for byte the same.
func TestMigrateKeepsRelationsAndAttributes(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "Coast"})
	var eids []int64
	for i, private := range []bool{false, false, true} {
		l := domain.Location{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: string(rune('A' + i)), IsPrivate: private}}
		if err := locstore.New(st).CreateLocation(ctx, &l); err != nil {
			t.Fatal(err)
		}
		eids = append(eids, l.EntityID)
	}
	for _, r := range []domain.Relation{
		{OwnerID: eids[0], Targets: []int64{eids[1], eids[2]}, Relation: "Ally", TwoWay: true, Visibility: domain.VisibilityAll,
			TargetPrivacy: map[int64]bool{eids[1]: false, eids[2]: true}},
		{OwnerID: eids[1], TargetID: eids[0], Relation: "Mine", Visibility: domain.VisibilitySelf, TargetPrivacy: map[int64]bool{eids[0]: false}},
	} {
		r.CampaignID, r.CreatedBy = c.ID, admin.ID
		if err := relstore.New(st).CreateRelation(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	v := "1200"
	if err := attrstore.New(st).SaveAttributes(ctx, c.ID, eids[0], domain.AttributeSet{}, []domain.Attribute{{Meta: domain.Meta{ID: 1, CreatedBy: admin.ID}, EntityID: eids[0], Name: "Population", Value: &v, TypeID: 6}}); err != nil {
		t.Fatal(err)
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
		t.Fatalf("audit before: %v %q", err, problems)
	}
	// The snapshot prints a list attribute (the pack's items) by address: the pack is
	// compared by its reading instead.
	table := func() (string, string) {
		_, set, err := attrstore.New(st).GetAttributes(ctx, c.ID, eids[0])
		as, v := set.Items, set.Version
		if err != nil || len(as) != 1 {
			t.Fatalf("attributes: %v %v", as, err)
		}
		var rest []string
		for _, l := range strings.Split(storetest.Snapshot(t, st, cfg.TableName), "\n") {
			if !strings.Contains(l, "sk=&{ATTRS ") {
				rest = append(rest, l)
			}
		}
		return strings.Join(rest, "\n"), fmt.Sprintf("%d %s %s %d %v", v, as[0].Name, *as[0].Value, as[0].TypeID, as[0].UpdatedAt)
	}
	before, pack := table()
	for run := 0; run < 2; run++ {
		if _, err := ops.Migrate(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		if after, p := table(); after != before || p != pack {
			t.Fatalf("run %d changed the table:\n%s\npack %s, was %s", run, storetest.LineDiff(before, after), p, pack)
		}
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
		t.Errorf("audit after: %v %q", err, problems)
	}
}
