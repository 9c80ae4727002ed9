package ops_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// A layout 2 table's campaigns, users and memberships (no Kanka fields, no membership counters)
// migrate to layout 3: campaign times from the first entity (or the migration's time), locale,
// member names, each user's last campaign, and the counters that page a campaign's members and
// a user's campaigns; interrupted and resumed, and a second run changes nothing.
func TestMigrateFillsLayout3CampaignFields(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	const old, empty, alice, bob = 11, 12, 21, 22
	items := []raw{
		{"pk": storetest.SV(storetest.Key("USER", alice)), "sk": storetest.SV("META"), "id": storetest.NV(alice), "name": storetest.SV("Alice")},
		{"pk": storetest.SV(storetest.Key("USER", bob)), "sk": storetest.SV("META"), "id": storetest.NV(bob), "name": storetest.SV("Bob")},
		{"pk": storetest.SV(storetest.Key("CAMPAIGN", old)), "sk": storetest.SV("META"), "id": storetest.NV(old), "name": storetest.SV("Old"), "is_public": storetest.BV(false), "boost": storetest.SV("none"), "owner_id": storetest.NV(alice)},
		{"pk": storetest.SV(storetest.Key("CAMPAIGN", empty)), "sk": storetest.SV("META"), "id": storetest.NV(empty), "name": storetest.SV("Empty"), "is_public": storetest.BV(true), "boost": storetest.SV("none"), "owner_id": storetest.NV(bob)},
	}
	for id, created := range map[int64]string{4: "2023-05-05T10:00:00.000000Z", 9: "2024-01-01T00:00:00.000000Z"} {
		items = append(items,
			raw{"pk": storetest.SV(storetest.Key("CAMPAIGN", old)), "sk": storetest.SV(storetest.Key("LOCATION", id)), "id": storetest.NV(id), "campaign_id": storetest.NV(old), "entity_id": storetest.NV(id),
				"name": storetest.SV("Place"), "name_lc": storetest.SV("place"), "is_private": storetest.BV(false), "tags": &types.AttributeValueMemberL{},
				"is_map_private": storetest.BV(false), "created_at": storetest.SV(created), "updated_at": storetest.SV(created), "created_by": storetest.NV(alice),
				"updated_by": storetest.NV(alice), "version": storetest.NV(1)},
			raw{"pk": storetest.SV(storetest.Key("CAMPAIGN", old)), "sk": storetest.SV(storetest.Key("ENTITY", id)), "id": storetest.NV(id), "campaign_id": storetest.NV(old), "type": storetest.SV("location"),
				"child_id": storetest.NV(id), "name": storetest.SV("Place"), "is_private": storetest.BV(false), "created_at": storetest.SV(created)})
	}
	for _, m := range []struct{ cid, uid int64 }{{old, alice}, {old, bob}, {empty, bob}} {
		role := storetest.SV("member")
		if m.uid == alice || m.cid == empty {
			role = storetest.SV("admin")
		}
		items = append(items,
			raw{"pk": storetest.SV(storetest.Key("CAMPAIGN", m.cid)), "sk": storetest.SV(storetest.Key("MEMBER", m.uid)), "campaign_id": storetest.NV(m.cid), "user_id": storetest.NV(m.uid), "role": role},
			raw{"pk": storetest.SV(storetest.Key("USER", m.uid)), "sk": storetest.SV(storetest.Key("CAMPAIGN", m.cid)), "campaign_id": storetest.NV(m.cid), "user_id": storetest.NV(m.uid), "role": role})
	}
	for _, it := range items {
		if _, err := st.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(cfg.TableName), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	started := time.Now().UTC().Add(-time.Second)

	defer ops.SetScanPage(3)()
	cctx, cancel := context.WithCancel(ctx)
	pages := 0
	if _, err := ops.Migrate(cctx, st, func(string) {
		if pages++; pages == 2 {
			cancel()
		}
	}); err == nil {
		t.Fatal("the interrupted run succeeded")
	}
	if res, err := ops.Migrate(ctx, st, nil); err != nil || !res.Resumed {
		t.Fatalf("resume: %v %+v", err, res)
	}

	check := func() {
		t.Helper()
		page := domain.PageRequest{Page: 1, Limit: 45}
		cs, err := campstore.New(st).ListUserCampaigns(ctx, bob, nil, page)
		if err != nil || cs.Total != 2 || len(cs.Items) != 2 {
			t.Fatalf("Bob's campaigns: %+v %v", cs, err)
		}
		o, e := cs.Items[0], cs.Items[1]
		if o.ID != old || domain.FormatTime(o.CreatedAt) != "2023-05-05T10:00:00.000000Z" || !o.UpdatedAt.Equal(o.CreatedAt) || o.Locale != "en" || o.Version != 1 {
			t.Errorf("campaign with records: %+v", o)
		}
		if e.ID != empty || e.CreatedAt.Before(started) || e.Locale != "en" {
			t.Errorf("campaign without records: %+v (migration began after %v)", e, started)
		}
		if u, err := campstore.New(st).GetUser(ctx, bob); err != nil || u.LastCampaignID != empty {
			t.Errorf("Bob: %+v %v", u, err)
		}
		if u, err := campstore.New(st).GetUser(ctx, alice); err != nil || u.LastCampaignID != old {
			t.Errorf("Alice: %+v %v", u, err)
		}
		ms, err := campstore.New(st).ListMembers(ctx, old, nil, page)
		var names []string
		for _, m := range ms.Items {
			names = append(names, m.Name)
			if m.CreatedAt.Before(started) {
				t.Errorf("member %d created %v", m.UserID, m.CreatedAt)
			}
		}
		if err != nil || ms.Total != 2 || !reflect.DeepEqual(names, []string{"Alice", "Bob"}) {
			t.Errorf("members of the old campaign: %v total %d (%v)", names, ms.Total, err)
		}
		for _, cid := range []int64{old, empty} {
			if problems, err := ops.Audit(ctx, st, cid); err != nil || len(problems) > 0 {
				t.Errorf("audit of %d: %v %q", cid, err, problems)
			}
		}
	}
	check()
	before := storetest.Snapshot(t, st, cfg.TableName)
	if _, err := ops.Migrate(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	if after := storetest.Snapshot(t, st, cfg.TableName); after != before {
		t.Errorf("a second run changed the table:\n%s\nwant\n%s", after, before)
	}
	check()
	// A membership given after the migration keeps the counters exact.
	if err := campstore.New(st).SetMember(ctx, domain.Membership{CampaignID: empty, UserID: alice, Role: domain.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	if cs, err := campstore.New(st).ListUserCampaigns(ctx, alice, nil, domain.PageRequest{Page: 1, Limit: 1}); err != nil || cs.Total != 2 || cs.Next == "" {
		t.Errorf("Alice's campaigns after joining: %+v %v", cs, err)
	}
	if problems, err := ops.Audit(ctx, st, empty); err != nil || len(problems) > 0 {
		t.Errorf("audit: %v %q", err, problems)
	}
}

// Audit checks each membership against its user's partition: the twin item, its role, and the
// user's campaign counter.
func TestAuditChecksMemberships(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	owner, _ := campstore.New(st).EnsureUser(ctx, "owner")
	player, _ := campstore.New(st).EnsureUser(ctx, "player")
	c, err := campstore.New(st).CreateCampaign(ctx, domain.Campaign{Name: "c", OwnerID: owner.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := campstore.New(st).SetMember(ctx, domain.Membership{CampaignID: c.ID, UserID: player.ID, Role: domain.RoleMember}); err != nil {
		t.Fatal(err)
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
		t.Fatalf("audit of a fresh campaign: %v %q", err, problems)
	}
	tbl := aws.String(cfg.TableName)
	if _, err := st.Client().DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: raw{"pk": storetest.SV(storetest.Key("USER", player.ID)), "sk": storetest.SV(storetest.Key("CAMPAIGN", c.ID))}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: raw{"pk": storetest.SV(storetest.Key("USER", owner.ID)), "sk": storetest.SV(storetest.Key("CAMPAIGN", c.ID)),
		"campaign_id": storetest.NV(c.ID), "user_id": storetest.NV(owner.ID), "role": storetest.SV("viewer")}}); err != nil {
		t.Fatal(err)
	}
	problems, err := ops.Audit(ctx, st, c.ID)
	want := []string{
		"member " + fmt.Sprint(owner.ID) + ": role admin, its user's campaign item says viewer",
		"member " + fmt.Sprint(player.ID) + ": campaign counter 1, campaigns 0",
		"member " + fmt.Sprint(player.ID) + ": no campaign item under its user",
	}
	if err != nil || !reflect.DeepEqual(problems, want) {
		t.Errorf("audit: %v %q, want %q", err, problems, want)
	}
}
