package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/maps/mapstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// TestMigrateKeepsMaps: a table holding maps (nested, with a private location), markers of
// every placement and layer and group packs migrates to itself, twice, audit clean.
func TestMigrateKeepsMaps(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "Coast"})
	loc := domain.Location{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "Keep", IsPrivate: true}}
	if err := locstore.New(st).CreateLocation(ctx, &loc); err != nil {
		t.Fatal(err)
	}
	world := domain.Map{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "World"},
		LocationID: &loc.ID, LocationPrivate: true}
	if err := mapstore.New(st).CreateMap(ctx, &world); err != nil {
		t.Fatal(err)
	}
	child := domain.Map{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "Region"}, ParentID: &world.ID}
	if err := mapstore.New(st).CreateMap(ctx, &child); err != nil {
		t.Fatal(err)
	}
	for i, v := range []domain.Visibility{domain.VisibilityAll, domain.VisibilityMember, domain.VisibilitySelf, domain.VisibilityAdmin} {
		m := domain.Marker{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, MapID: world.ID, Name: string(rune('A' + i)),
			Latitude: 1000, Longitude: 2000, ShapeID: 1, Icon: 1, Opacity: 100, SizeID: 1, Visibility: v}
		if i == 0 {
			m.EntityID, m.EntityPrivate = &loc.EntityID, true
		}
		if err := mapstore.New(st).CreateMarker(ctx, &m); err != nil {
			t.Fatal(err)
		}
	}
	if err := mapstore.New(st).WriteMapGroups(ctx, c.ID, world.ID, func(p *domain.MapPack[domain.MapGroup], now time.Time) error {
		p.Seq = 2
		one := int64(1)
		p.Items = append(p.Items, domain.MapGroup{PackEntry: domain.PackEntry{ID: 1, Name: "Towns", Visibility: domain.VisibilityAll, CreatedAt: now, UpdatedAt: now}},
			domain.MapGroup{PackEntry: domain.PackEntry{ID: 2, Name: "Ports", Visibility: domain.VisibilityAll, CreatedAt: now, UpdatedAt: now}, ParentID: &one})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
		t.Fatalf("audit before: %v %q", err, problems)
	}
	before := storetest.Snapshot(t, st, cfg.TableName)
	for run := 0; run < 2; run++ {
		if _, err := ops.Migrate(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		if after := storetest.Snapshot(t, st, cfg.TableName); after != before {
			t.Fatalf("run %d changed the table:\n%s", run, storetest.LineDiff(before, after))
		}
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
		t.Errorf("audit after: %v %q", err, problems)
	}
}

// TestMarkerEntityPointers: a marker linked to an entity has a MARKIN# pointer there; the
// migration builds the ones a table written before them lacks (audit clean after, not before);
// the entity's trash places its markers for admins only, and its purge deletes them (Kanka's
// cascade), the map's centre among them cleared, a tombstone left. Likewise a map's LOCMAP#
// link: built by the migration, the location's purge clears location_id.
func TestMarkerEntityPointers(t *testing.T) {
	st, _ := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "Coast"})
	loc := domain.Location{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "Keep"}}
	if err := locstore.New(st).CreateLocation(ctx, &loc); err != nil {
		t.Fatal(err)
	}
	world := domain.Map{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, Owner: domain.Owner{Name: "World"}, LocationID: &loc.ID}
	if err := mapstore.New(st).CreateMap(ctx, &world); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := 0; i < 7; i++ { // more than one transaction's worth
		m := domain.Marker{Meta: domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}, MapID: world.ID, Name: "M",
			Latitude: 1000, Longitude: 2000, ShapeID: 1, Icon: 1, Opacity: 100, SizeID: 1, Visibility: domain.VisibilityAll}
		if i < 6 {
			m.EntityID = &loc.EntityID
		}
		if err := mapstore.New(st).CreateMarker(ctx, &m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	// The map centres on a linked marker.
	prev, err := mapstore.New(st).GetMap(ctx, c.ID, world.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, centre, err := mapstore.New(st).GetMapAndMarker(ctx, c.ID, world.ID, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	next := *prev
	next.Centre = domain.CentreOf(centre)
	if err := mapstore.New(st).UpdateMap(ctx, prev, &next); err != nil {
		t.Fatal(err)
	}
	audit := func(when string, want int) {
		t.Helper()
		problems, err := ops.Audit(ctx, st, c.ID)
		if err != nil || len(problems) != want {
			t.Fatalf("audit %s: %v %q (want %d problems)", when, err, problems, want)
		}
	}
	audit("with pointers", 0)
	if err := store.DropMarkerPointers(ctx, st, c.ID, loc.EntityID); err != nil {
		t.Fatal(err)
	}
	if err := store.DropLocationMapLinks(ctx, st, c.ID, loc.ID); err != nil {
		t.Fatal(err)
	}
	audit("without pointers", 7)
	if _, err := ops.Migrate(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	audit("after the migration", 0)
	public := func() int {
		t.Helper()
		p, err := mapstore.New(st).ListMarkers(ctx, c.ID, world.ID, domain.Access{Role: domain.RoleMember}, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return p.Total
	}
	if n := public(); n != 7 {
		t.Fatalf("members see %d markers, want 7", n)
	}
	l, err := locstore.New(st).GetLocation(ctx, c.ID, loc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := locstore.New(st).DeleteLocation(ctx, l); err != nil {
		t.Fatal(err)
	}
	audit("after the trash", 0)
	if n := public(); n != 1 {
		t.Fatalf("members see %d markers once the entity is trashed, want 1", n)
	}
	if err := store.ExpireTrash(ctx, st, c.ID, loc.EntityID); err != nil {
		t.Fatal(err)
	}
	if n, _, err := st.SweepPurges(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	audit("after the purge", 0)
	all, err := mapstore.New(st).ListMarkers(ctx, c.ID, world.ID, domain.Access{Role: domain.RoleAdmin}, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 100})
	if err != nil || all.Total != 1 || len(all.Items) != 1 || all.Items[0].ID != ids[6] {
		t.Fatalf("after the purge: %+v %v", all, err)
	}
	if m, err := mapstore.New(st).GetMap(ctx, c.ID, world.ID); err != nil || m.Centre != nil || m.LocationID != nil {
		t.Fatalf("centre and location after their purge: %+v %v", m, err)
	}
}
