package ops_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/campaigns/campstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/entityevents/eventstore"
	"github.com/lorekeep/lorekeep/shared/entitynotes/notestore"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

type raw = map[string]types.AttributeValue

// writeLayout1 writes a campaign as the version before audience ranges did: each record once,
// `n`/`private` counters for locations and map points, notes and events uncounted, a `self`
// note at NOTE#id.
func writeLayout1(t *testing.T, st *store.Store, table string, cid, creator int64) {
	t.Helper()
	cpk := storetest.Key("CAMPAIGN", cid)
	var items []raw
	for id := int64(1); id <= 7; id++ {
		items = append(items,
			raw{"pk": storetest.SV(cpk), "sk": storetest.SV(storetest.Key("LOCATION", id)), "id": storetest.NV(id), "campaign_id": storetest.NV(cid), "entity_id": storetest.NV(id),
				"name": storetest.SV(fmt.Sprint("Place ", id)), "name_lc": storetest.SV(fmt.Sprint("place ", id)), "is_private": storetest.BV(id == 2),
				"tags": &types.AttributeValueMemberL{}, "is_map_private": storetest.BV(false), "created_at": storetest.SV("2024-01-01T00:00:00.000000Z"),
				"updated_at": storetest.SV("2024-01-01T00:00:00.000000Z"), "created_by": storetest.NV(creator), "updated_by": storetest.NV(creator), "version": storetest.NV(1)},
			raw{"pk": storetest.SV(cpk), "sk": storetest.SV(storetest.Key("ENTITY", id)), "id": storetest.NV(id), "campaign_id": storetest.NV(cid), "type": storetest.SV("location"),
				"child_id": storetest.NV(id), "name": storetest.SV(fmt.Sprint("Place ", id)), "is_private": storetest.BV(id == 2)})
	}
	// Location 3 under location 1, indexed by parent as layout 1 did.
	items[4]["parent_location_id"], items[4]["gsi1pk"], items[4]["gsi1sk"] = storetest.NV(1), storetest.SV(cpk+"#PARENT#"+fmt.Sprintf("%012d", 1)), storetest.SV(storetest.Key("LOCATION", 3))
	items = append(items, raw{"pk": storetest.SV(cpk), "sk": storetest.SV("COUNT#LOCATION"), "n": storetest.NV(7), "private": storetest.NV(1)})
	mpk := cpk + "#" + storetest.Key("LOCATION", 1)
	items = append(items,
		raw{"pk": storetest.SV(mpk), "sk": storetest.SV(storetest.Key("MAPPOINT", 1)), "id": storetest.NV(1), "campaign_id": storetest.NV(cid), "location_id": storetest.NV(1),
			"name": storetest.SV("X"), "axis_x": storetest.NV(1), "axis_y": storetest.NV(1), "colour": storetest.SV("none"), "size": storetest.SV("standard"), "icon": storetest.SV("pin"),
			"shape": storetest.SV("circle"), "created_at": storetest.SV("2024-01-01T00:00:00.000000Z"), "updated_at": storetest.SV("2024-01-01T00:00:00.000000Z"),
			"created_by": storetest.NV(creator), "updated_by": storetest.NV(creator), "version": storetest.NV(1)},
		raw{"pk": storetest.SV(mpk), "sk": storetest.SV("COUNT#MAPPOINT"), "n": storetest.NV(1), "private": storetest.NV(0)})
	epk := cpk + "#" + storetest.Key("ENTITY", 1)
	for id, vis := range []string{"", "all", "member", "admin", "self", "self-admin"} {
		if id == 0 {
			continue
		}
		items = append(items, raw{"pk": storetest.SV(epk), "sk": storetest.SV(storetest.Key("NOTE", int64(id))), "id": storetest.NV(int64(id)), "campaign_id": storetest.NV(cid),
			"entity_id": storetest.NV(1), "name": storetest.SV("n"), "visibility": storetest.SV(vis), "collapsed": storetest.BV(false),
			"created_at": storetest.SV("2024-01-01T00:00:00.000000Z"), "updated_at": storetest.SV("2024-01-01T00:00:00.000000Z"),
			"created_by": storetest.NV(creator), "updated_by": storetest.NV(creator), "version": storetest.NV(1)})
	}
	items = append(items,
		raw{"pk": storetest.SV(cpk), "sk": storetest.SV(storetest.Key("CALENDAR", 9)), "id": storetest.NV(9), "campaign_id": storetest.NV(cid), "entity_id": storetest.NV(90),
			"name": storetest.SV("Reckoning"), "name_lc": storetest.SV("reckoning"), "is_private": storetest.BV(false), "tags": &types.AttributeValueMemberL{},
			"date": storetest.SV("1-1-1"), "created_at": storetest.SV("2024-01-01T00:00:00.000000Z"), "updated_at": storetest.SV("2024-01-01T00:00:00.000000Z"),
			"created_by": storetest.NV(creator), "updated_by": storetest.NV(creator), "version": storetest.NV(1)},
		raw{"pk": storetest.SV(cpk), "sk": storetest.SV(storetest.Key("ENTITY", 90)), "id": storetest.NV(90), "campaign_id": storetest.NV(cid), "type": storetest.SV("calendar"),
			"child_id": storetest.NV(9), "name": storetest.SV("Reckoning"), "is_private": storetest.BV(false)},
		raw{"pk": storetest.SV(cpk), "sk": storetest.SV("COUNT#CALENDAR"), "n": storetest.NV(1), "private": storetest.NV(0)})
	for id := int64(1); id <= 2; id++ {
		items = append(items, raw{"pk": storetest.SV(epk), "sk": storetest.SV(storetest.Key("EVENT", id)), "id": storetest.NV(id), "campaign_id": storetest.NV(cid),
			"entity_id": storetest.NV(1), "calendar_id": storetest.NV(9), "name": storetest.SV("e"), "year": storetest.NV(1), "month": storetest.NV(1), "day": storetest.NV(1), "length": storetest.NV(1),
			"is_private": storetest.BV(id == 1), "visibility": storetest.SV("all"), "gsi1pk": storetest.SV(cpk + "#" + storetest.Key("CALENDAR", 9)), "gsi1sk": storetest.SV(storetest.Key("EVENT", id)),
			"created_at": storetest.SV("2024-01-01T00:00:00.000000Z"), "updated_at": storetest.SV("2024-01-01T00:00:00.000000Z"),
			"created_by": storetest.NV(creator), "updated_by": storetest.NV(creator), "version": storetest.NV(1)})
	}
	for _, it := range items {
		if _, err := st.Client().PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMigrateRewritesLayout1ResumablyAndIdempotently(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, _ := campstore.New(st).EnsureUser(ctx, "admin")
	member, _ := campstore.New(st).EnsureUser(ctx, "member")
	c, err := campstore.New(st).CreateCampaign(ctx, domain.Campaign{Name: "c", OwnerID: admin.ID, IsPublic: true})
	if err != nil {
		t.Fatal(err)
	}
	writeLayout1(t, st, cfg.TableName, c.ID, member.ID)

	// Interrupted after its second page, then resumed.
	defer ops.SetScanPage(4)()
	cctx, cancel := context.WithCancel(ctx)
	pages := 0
	_, err = ops.Migrate(cctx, st, func(line string) {
		if pages++; pages == 2 {
			cancel()
		}
	})
	if err == nil {
		t.Fatal("the interrupted run succeeded")
	}
	var lines []string
	res, err := ops.Migrate(ctx, st, func(l string) { lines = append(lines, l) })
	if err != nil || !res.Resumed {
		t.Fatalf("resume: %v %+v", err, res)
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], "migrate: done") {
		t.Fatalf("progress lines: %q", lines)
	}

	adminAcc := domain.Access{UserID: admin.ID, CampaignID: c.ID, Role: domain.RoleAdmin}
	memberAcc := domain.Access{UserID: member.ID, CampaignID: c.ID, Role: domain.RoleMember}
	publicAcc := domain.Access{UserID: 999, CampaignID: c.ID, Role: domain.RolePublic}
	check := func() {
		t.Helper()
		locID := func(l domain.Location) int64 { return l.ID }
		for _, tc := range []struct {
			admin bool
			page  domain.PageRequest
			want  []int64
			total int
		}{
			{true, domain.PageRequest{Page: 1, Limit: 45}, []int64{1, 2, 3, 4, 5, 6, 7}, 7},
			{false, domain.PageRequest{Page: 1, Limit: 45}, []int64{1, 3, 4, 5, 6, 7}, 6},
			{false, domain.PageRequest{Page: 2, Limit: 4}, []int64{6, 7}, 6},
			{true, domain.PageRequest{Page: 2, Limit: 3}, []int64{4, 5, 6}, 7},
		} {
			p, err := locstore.New(st).ListLocations(ctx, c.ID, domain.Filter{}, !tc.admin, tc.page)
			if err != nil || !reflect.DeepEqual(storetest.IDs(p.Items, locID), tc.want) || p.Total != tc.total {
				t.Errorf("locations admin=%v %+v: %v total %d (%v), want %v total %d", tc.admin, tc.page, storetest.IDs(p.Items, locID), p.Total, err, tc.want, tc.total)
			}
		}
		noteID := func(n domain.Note) int64 { return n.ID }
		for _, tc := range []struct {
			a    domain.Access
			want []int64
		}{
			{adminAcc, []int64{1, 2, 3, 5}},  // not the member's `self` note
			{memberAcc, []int64{1, 2, 4, 5}}, // its own self and self-admin, not `admin`
			{publicAcc, []int64{1}},
		} {
			p, err := notestore.New(st).ListNotes(ctx, c.ID, 1, tc.a, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 45})
			if err != nil || !reflect.DeepEqual(storetest.IDs(p.Items, noteID), tc.want) || p.Total != len(tc.want) {
				t.Errorf("notes as %s: %v total %d (%v), want %v", tc.a.Role, storetest.IDs(p.Items, noteID), p.Total, err, tc.want)
			}
		}
		evID := func(e timeline.Event) int64 { return e.ID }
		for _, tc := range []struct {
			a    domain.Access
			want []int64
		}{{adminAcc, []int64{1, 2}}, {memberAcc, []int64{2}}} {
			p, err := eventstore.New(st).ListEvents(ctx, c.ID, 1, tc.a, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 45})
			if err != nil || !reflect.DeepEqual(storetest.IDs(p.Items, evID), tc.want) || p.Total != len(tc.want) {
				t.Errorf("events as %s: %v total %d (%v), want %v", tc.a.Role, storetest.IDs(p.Items, evID), p.Total, err, tc.want)
			}
		}
		if l, err := locstore.New(st).GetLocation(ctx, c.ID, 3); err != nil || l.ParentID == nil || *l.ParentID != 1 {
			t.Errorf("location 3's parent: %v %v", l, err)
		}
		if _, n, err := notestore.New(st).GetNoteAndEntity(ctx, c.ID, 1, 4); err != nil || n.Visibility != domain.VisibilitySelf {
			t.Errorf("the self note by id: %v %v", n, err)
		}
		// Name filters read lower-case copies that layout 1 did not keep on notes, events and
		// map points: the migration writes them.
		byName := func(v string) domain.Filter { return domain.Filter{Name: []domain.Term{{Op: domain.Equals, Value: v}}} }
		if p, err := notestore.New(st).ListNotes(ctx, c.ID, 1, adminAcc, byName("n"), domain.PageRequest{Page: 1, Limit: 45}); err != nil || p.Total != 4 {
			t.Errorf("notes named n: %d (%v), want 4", p.Total, err)
		}
		if p, err := eventstore.New(st).ListEvents(ctx, c.ID, 1, adminAcc, byName("e"), domain.PageRequest{Page: 1, Limit: 45}); err != nil || p.Total != 2 {
			t.Errorf("events named e: %d (%v), want 2", p.Total, err)
		}
		if p, err := locstore.New(st).ListMapPoints(ctx, c.ID, 1, byName("x"), domain.PageRequest{Page: 1, Limit: 45}); err != nil || len(p.Items) != 1 {
			t.Errorf("map points named x: %d (%v), want 1", len(p.Items), err)
		}
		mp, err := locstore.New(st).ListMapPoints(ctx, c.ID, 1, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 45})
		if err != nil || mp.Total != 1 || len(mp.Items) != 1 {
			t.Errorf("map points: %d of %d (%v)", len(mp.Items), mp.Total, err)
		}
		// Entities mirror their records (layout 1 kept only name and privacy) and are listed by
		// audience like them.
		entID := func(e domain.Entity) int64 { return e.ID }
		for _, tc := range []struct {
			admin bool
			want  []int64
		}{{true, []int64{1, 2, 3, 4, 5, 6, 7, 90}}, {false, []int64{1, 3, 4, 5, 6, 7, 90}}} { // 90: the calendar's
			p, err := st.ListEntities(ctx, c.ID, domain.EntityFilter{}, !tc.admin, domain.PageRequest{Page: 1, Limit: 45})
			if err != nil || !reflect.DeepEqual(storetest.IDs(p.Items, entID), tc.want) || p.Total != len(tc.want) {
				t.Errorf("entities admin=%v: %v total %d (%v), want %v", tc.admin, storetest.IDs(p.Items, entID), p.Total, err, tc.want)
			} else if e := p.Items[0]; e.CreatedBy != member.ID || domain.FormatTime(e.UpdatedAt) != "2024-01-01T00:00:00.000000Z" || e.Tags == nil {
				t.Errorf("entity 1 after the migration: %+v", e)
			}
		}
		// Layout 3: every record has its sync pointer, so a lastSync read finds what the
		// range holds (the audit checks each pointer too).
		for _, tc := range []struct {
			since                     time.Time
			locs, notes, points, ents int
		}{
			{time.Date(2023, 12, 31, 0, 0, 0, 0, time.UTC), 7, 4, 1, 8},
			{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 0, 0, 0, 0},
		} {
			f := domain.Filter{UpdatedAfter: &tc.since}
			pr := domain.PageRequest{Page: 1, Limit: 45}
			l, err1 := locstore.New(st).ListLocations(ctx, c.ID, f, false, pr)
			n, err2 := notestore.New(st).ListNotes(ctx, c.ID, 1, adminAcc, f, pr)
			m, err3 := locstore.New(st).ListMapPoints(ctx, c.ID, 1, f, pr)
			e, err4 := st.ListEntities(ctx, c.ID, domain.EntityFilter{Filter: f}, false, pr)
			if err := errors.Join(err1, err2, err3, err4); err != nil || l.Total != tc.locs || n.Total != tc.notes || m.Total != tc.points || e.Total != tc.ents {
				t.Errorf("lastSync %s: %d locations, %d notes, %d map points, %d entities (%v), want %d %d %d %d", tc.since,
					l.Total, n.Total, m.Total, e.Total, err, tc.locs, tc.notes, tc.points, tc.ents)
			}
		}
		if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
			t.Errorf("audit: %v %q", err, problems)
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
	if _, err := locstore.New(st).GetLocation(ctx, c.ID, 2); errors.Is(err, apperr.ErrNotFound) {
		t.Error("the private location went missing")
	}
}

// writeLayout2 writes a campaign as layout 2 did: copies and child links, a location counter
// with per-bucket attributes and the ids of the private locations (private_ids), and public
// copies that show every parent. Location 1 public, 2 private, 3 (public) under 2, 4 (public)
// and 5 (private) under 1.
func writeLayout2(t *testing.T, st *store.Store, table string, cid, creator int64) {
	t.Helper()
	cpk := storetest.Key("CAMPAIGN", cid)
	parents := map[int64]int64{3: 2, 4: 1, 5: 1}
	private := map[int64]bool{2: true, 5: true}
	var items []raw
	for id := int64(1); id <= 5; id++ {
		loc := raw{"pk": storetest.SV(cpk), "sk": storetest.SV(storetest.Key("LOCATION", id)), "id": storetest.NV(id), "campaign_id": storetest.NV(cid), "entity_id": storetest.NV(id),
			"name": storetest.SV(fmt.Sprint("Place ", id)), "name_lc": storetest.SV(fmt.Sprint("place ", id)), "is_private": storetest.BV(private[id]),
			"tags": &types.AttributeValueMemberL{}, "is_map_private": storetest.BV(false), "created_at": storetest.SV("2024-01-01T00:00:00.000000Z"),
			"updated_at": storetest.SV("2024-01-01T00:00:00.000000Z"), "created_by": storetest.NV(creator), "updated_by": storetest.NV(creator), "version": storetest.NV(1)}
		ent := raw{"pk": storetest.SV(cpk), "sk": storetest.SV(storetest.Key("ENTITY", id)), "id": storetest.NV(id), "campaign_id": storetest.NV(cid), "type": storetest.SV("location"),
			"child_id": storetest.NV(id), "name": storetest.SV(fmt.Sprint("Place ", id)), "name_lc": storetest.SV(fmt.Sprint("place ", id)), "is_private": storetest.BV(private[id]),
			"tags": &types.AttributeValueMemberL{}, "created_at": storetest.SV("2024-01-01T00:00:00.000000Z"),
			"updated_at": storetest.SV("2024-01-01T00:00:00.000000Z"), "created_by": storetest.NV(creator), "updated_by": storetest.NV(creator)}
		if p, ok := parents[id]; ok {
			loc["parent_location_id"] = storetest.NV(p)
			items = append(items, raw{"pk": storetest.SV(fmt.Sprintf("%s#LOCATION#%012d", cpk, p)), "sk": storetest.SV(fmt.Sprintf("CHILD#%012d", id)), "id": storetest.NV(id)})
		}
		items = append(items, loc, ent)
		if !private[id] {
			pubLoc, pubEnt := raw{}, raw{}
			for k, v := range loc {
				pubLoc[k] = v
			}
			for k, v := range ent {
				pubEnt[k] = v
			}
			pubLoc["sk"], pubEnt["sk"] = storetest.SV("PUB#"+storetest.Key("LOCATION", id)), storetest.SV("PUB#"+storetest.Key("ENTITY", id))
			items = append(items, pubLoc, pubEnt)
		}
	}
	items = append(items,
		raw{"pk": storetest.SV(cpk), "sk": storetest.SV("COUNT#LOCATION"), "admin": storetest.NV(5), "pub": storetest.NV(3), "admin_0": storetest.NV(5), "pub_0": storetest.NV(3),
			"private_ids": &types.AttributeValueMemberNS{Value: []string{"2", "5"}}},
		raw{"pk": storetest.SV(cpk), "sk": storetest.SV("COUNT#ENTITY"), "admin": storetest.NV(5), "pub": storetest.NV(3), "admin_0": storetest.NV(5), "pub_0": storetest.NV(3)},
		raw{"pk": storetest.SV(cpk), "sk": storetest.SV("SEQ"), "location": storetest.NV(5), "entity": storetest.NV(5)})
	for _, it := range items {
		if _, err := st.Client().PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
}

// Layout 2 -> 3: counters become totals and segments (no bucket attributes, no private_ids), a
// public copy shows its parent only when the parent is public, child links carry their child's
// privacy, TTL is on; the audit is clean and a second run changes nothing.
func TestMigrateRewritesLayout2ToBoundedCountersAndProjections(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c", IsPublic: true})
	writeLayout2(t, st, cfg.TableName, c.ID, admin.ID)
	if _, err := ops.Migrate(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	get := func(pk, sk string) raw {
		t.Helper()
		out, err := st.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(cfg.TableName),
			Key: raw{"pk": storetest.SV(pk), "sk": storetest.SV(sk)}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	cpk := storetest.Key("CAMPAIGN", c.ID)
	attrs := func(it raw) string {
		var out []string
		for k, v := range it {
			if k == "pk" || k == "sk" {
				continue
			}
			if n, ok := v.(*types.AttributeValueMemberN); ok {
				out = append(out, k+"="+n.Value)
			} else {
				out = append(out, k+"=?")
			}
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	check := func() {
		t.Helper()
		for _, tc := range []struct{ pk, sk, want string }{
			{cpk, "COUNT#LOCATION", "admin=5 pub=3"},
			{cpk, "COUNT#LOCATION#S#00000000", "admin=5 admin_0=5 pub=3 pub_0=3"},
			{cpk, "COUNT#ENTITY", "admin=5 pub=3"},
			{cpk, "COUNT#ENTITY#S#00000000", "admin=5 admin_0=5 pub=3 pub_0=3"},
		} {
			if got := attrs(get(tc.pk, tc.sk)); got != tc.want {
				t.Errorf("%s: %s, want %s", tc.sk, got, tc.want)
			}
		}
		for _, tc := range []struct {
			id         int64
			showParent bool
		}{{3, false}, {4, true}} {
			_, shows := get(cpk, "PUB#"+storetest.Key("LOCATION", tc.id))["parent_location_id"]
			if shows != tc.showParent {
				t.Errorf("public copy of %d shows its parent: %v, want %v", tc.id, shows, tc.showParent)
			}
		}
		if p, ok := get(fmt.Sprintf("%s#LOCATION#%012d", cpk, 1), fmt.Sprintf("CHILD#%012d", 5))["is_private"].(*types.AttributeValueMemberBOOL); !ok || !p.Value {
			t.Errorf("the link of private child 5 says private %v", p)
		}
		if l, err := locstore.New(st).GetLocation(ctx, c.ID, 3); err != nil || !l.ParentPrivate || l.ParentID == nil || *l.ParentID != 2 {
			t.Errorf("location 3: %+v %v", l, err)
		}
		for _, tc := range []struct {
			admin bool
			page  domain.PageRequest
			want  []int64
			total int
		}{
			{true, domain.PageRequest{Page: 2, Limit: 2}, []int64{3, 4}, 5},
			{false, domain.PageRequest{Page: 2, Limit: 2}, []int64{4}, 3},
		} {
			p, err := locstore.New(st).ListLocations(ctx, c.ID, domain.Filter{}, !tc.admin, tc.page)
			if err != nil || !reflect.DeepEqual(storetest.IDs(p.Items, func(l domain.Location) int64 { return l.ID }), tc.want) || p.Total != tc.total {
				t.Errorf("locations admin=%v %+v: %v total %d (%v)", tc.admin, tc.page, p.Items, p.Total, err)
			}
		}
		if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
			t.Errorf("audit: %v %q", err, problems)
		}
		ttl, err := st.Client().DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(cfg.TableName)})
		if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "ttl" {
			t.Errorf("TTL: %+v %v", ttl, err)
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
}
