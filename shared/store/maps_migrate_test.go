package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// TestMigrateKeepsMaps: a table holding maps (nested, with a private location), markers of
// every placement and layer and group packs migrates to itself, twice, audit clean.
func TestMigrateKeepsMaps(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := ownedCampaign(t, st, domain.Campaign{Name: "Coast"})
	loc := domain.Location{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "Keep", IsPrivate: true}}
	if err := st.CreateLocation(ctx, &loc); err != nil {
		t.Fatal(err)
	}
	world := domain.Map{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "World"},
		LocationID: &loc.ID, LocationPrivate: true}
	if err := st.CreateMap(ctx, &world); err != nil {
		t.Fatal(err)
	}
	child := domain.Map{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "Region"}, ParentID: &world.ID}
	if err := st.CreateMap(ctx, &child); err != nil {
		t.Fatal(err)
	}
	for i, v := range []domain.Visibility{domain.VisibilityAll, domain.VisibilityMember, domain.VisibilitySelf, domain.VisibilityAdmin} {
		m := domain.Marker{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, MapID: world.ID, Name: string(rune('A' + i)),
			Latitude: 1000, Longitude: 2000, ShapeID: 1, Icon: 1, Opacity: 100, SizeID: 1, Visibility: v}
		if i == 0 {
			m.EntityID, m.EntityPrivate = &loc.EntityID, true
		}
		if err := st.CreateMarker(ctx, &m); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.WriteMapGroups(ctx, c.ID, world.ID, func(p *domain.MapPack[domain.MapGroup], now time.Time) error {
		p.Seq = 2
		one := int64(1)
		p.Items = append(p.Items, domain.MapGroup{PackEntry: domain.PackEntry{ID: 1, Name: "Towns", Visibility: domain.VisibilityAll, CreatedAt: now, UpdatedAt: now}},
			domain.MapGroup{PackEntry: domain.PackEntry{ID: 2, Name: "Ports", Visibility: domain.VisibilityAll, CreatedAt: now, UpdatedAt: now}, ParentID: &one})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if problems, err := st.Audit(ctx, c.ID); err != nil || len(problems) > 0 {
		t.Fatalf("audit before: %v %q", err, problems)
	}
	before := snapshot(t, st, cfg.TableName)
	for run := 0; run < 2; run++ {
		if _, err := st.Migrate(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if after := snapshot(t, st, cfg.TableName); after != before {
			t.Fatalf("run %d changed the table:\n%s", run, lineDiff(before, after))
		}
	}
	if problems, err := st.Audit(ctx, c.ID); err != nil || len(problems) > 0 {
		t.Errorf("audit after: %v %q", err, problems)
	}
}
