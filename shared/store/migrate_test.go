package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }

type raw = map[string]types.AttributeValue

func sv(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func nv(v int64) types.AttributeValue  { return &types.AttributeValueMemberN{Value: fmt.Sprint(v)} }
func bv(v bool) types.AttributeValue   { return &types.AttributeValueMemberBOOL{Value: v} }

func key(prefix string, id int64) string { return fmt.Sprintf("%s#%012d", prefix, id) }

// writeLayout1 writes a campaign as the version before audience ranges did: each record once,
// `n`/`private` counters for locations and map points, notes and events uncounted, a `self`
// note at NOTE#id.
func writeLayout1(t *testing.T, st *store.Store, table string, cid, creator int64) {
	t.Helper()
	cpk := key("CAMPAIGN", cid)
	var items []raw
	for id := int64(1); id <= 7; id++ {
		items = append(items,
			raw{"pk": sv(cpk), "sk": sv(key("LOCATION", id)), "id": nv(id), "campaign_id": nv(cid), "entity_id": nv(id),
				"name": sv(fmt.Sprint("Place ", id)), "name_lc": sv(fmt.Sprint("place ", id)), "is_private": bv(id == 2),
				"tags": &types.AttributeValueMemberL{}, "is_map_private": bv(false), "created_at": sv("2024-01-01T00:00:00.000000Z"),
				"updated_at": sv("2024-01-01T00:00:00.000000Z"), "created_by": nv(creator), "updated_by": nv(creator), "version": nv(1)},
			raw{"pk": sv(cpk), "sk": sv(key("ENTITY", id)), "id": nv(id), "campaign_id": nv(cid), "type": sv("location"),
				"child_id": nv(id), "name": sv(fmt.Sprint("Place ", id)), "is_private": bv(id == 2)})
	}
	// Location 3 under location 1, indexed by parent as layout 1 did.
	items[4]["parent_location_id"], items[4]["gsi1pk"], items[4]["gsi1sk"] = nv(1), sv(cpk+"#PARENT#"+fmt.Sprintf("%012d", 1)), sv(key("LOCATION", 3))
	items = append(items, raw{"pk": sv(cpk), "sk": sv("COUNT#LOCATION"), "n": nv(7), "private": nv(1)})
	mpk := cpk + "#" + key("LOCATION", 1)
	items = append(items,
		raw{"pk": sv(mpk), "sk": sv(key("MAPPOINT", 1)), "id": nv(1), "campaign_id": nv(cid), "location_id": nv(1),
			"name": sv("X"), "axis_x": nv(1), "axis_y": nv(1), "colour": sv("none"), "size": sv("standard"), "icon": sv("pin"),
			"shape": sv("circle"), "created_at": sv("2024-01-01T00:00:00.000000Z"), "updated_at": sv("2024-01-01T00:00:00.000000Z"),
			"created_by": nv(creator), "updated_by": nv(creator), "version": nv(1)},
		raw{"pk": sv(mpk), "sk": sv("COUNT#MAPPOINT"), "n": nv(1), "private": nv(0)})
	epk := cpk + "#" + key("ENTITY", 1)
	for id, vis := range []string{"", "all", "member", "admin", "self", "self-admin"} {
		if id == 0 {
			continue
		}
		items = append(items, raw{"pk": sv(epk), "sk": sv(key("NOTE", int64(id))), "id": nv(int64(id)), "campaign_id": nv(cid),
			"entity_id": nv(1), "name": sv("n"), "visibility": sv(vis), "collapsed": bv(false),
			"created_at": sv("2024-01-01T00:00:00.000000Z"), "updated_at": sv("2024-01-01T00:00:00.000000Z"),
			"created_by": nv(creator), "updated_by": nv(creator), "version": nv(1)})
	}
	items = append(items,
		raw{"pk": sv(cpk), "sk": sv(key("CALENDAR", 9)), "id": nv(9), "campaign_id": nv(cid), "entity_id": nv(90),
			"name": sv("Reckoning"), "name_lc": sv("reckoning"), "is_private": bv(false), "tags": &types.AttributeValueMemberL{},
			"date": sv("1-1-1"), "created_at": sv("2024-01-01T00:00:00.000000Z"), "updated_at": sv("2024-01-01T00:00:00.000000Z"),
			"created_by": nv(creator), "updated_by": nv(creator), "version": nv(1)},
		raw{"pk": sv(cpk), "sk": sv(key("ENTITY", 90)), "id": nv(90), "campaign_id": nv(cid), "type": sv("calendar"),
			"child_id": nv(9), "name": sv("Reckoning"), "is_private": bv(false)},
		raw{"pk": sv(cpk), "sk": sv("COUNT#CALENDAR"), "n": nv(1), "private": nv(0)})
	for id := int64(1); id <= 2; id++ {
		items = append(items, raw{"pk": sv(epk), "sk": sv(key("EVENT", id)), "id": nv(id), "campaign_id": nv(cid),
			"entity_id": nv(1), "calendar_id": nv(9), "name": sv("e"), "year": nv(1), "month": nv(1), "day": nv(1), "length": nv(1),
			"is_private": bv(id == 1), "visibility": sv("all"), "gsi1pk": sv(cpk + "#" + key("CALENDAR", 9)), "gsi1sk": sv(key("EVENT", id)),
			"created_at": sv("2024-01-01T00:00:00.000000Z"), "updated_at": sv("2024-01-01T00:00:00.000000Z"),
			"created_by": nv(creator), "updated_by": nv(creator), "version": nv(1)})
	}
	for _, it := range items {
		if _, err := st.Client().PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot is every item of the table but the migration's checkpoint, as sorted text.
func snapshot(t *testing.T, st *store.Store, table string) string {
	t.Helper()
	out, err := st.Client().Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, it := range out.Items {
		if it["pk"].(*types.AttributeValueMemberS).Value == "MIGRATION" {
			continue
		}
		keys := make([]string, 0, len(it))
		for k := range it {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s=%v ", k, it[k])
		}
		lines = append(lines, b.String())
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func ids[T any](items []T, id func(T) int64) []int64 {
	out := []int64{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

func TestMigrateRewritesLayout1ResumablyAndIdempotently(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	ctx := context.Background()
	admin, _ := st.EnsureUser(ctx, "admin")
	member, _ := st.EnsureUser(ctx, "member")
	c, err := st.CreateCampaign(ctx, domain.Campaign{Name: "c", OwnerID: admin.ID, IsPublic: true})
	if err != nil {
		t.Fatal(err)
	}
	writeLayout1(t, st, cfg.TableName, c.ID, member.ID)

	// Interrupted after its second page, then resumed.
	defer store.SetScanPage(4)()
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
			p, err := st.ListLocations(ctx, c.ID, domain.Filter{}, !tc.admin, tc.page)
			if err != nil || !reflect.DeepEqual(ids(p.Items, locID), tc.want) || p.Total != tc.total {
				t.Errorf("locations admin=%v %+v: %v total %d (%v), want %v total %d", tc.admin, tc.page, ids(p.Items, locID), p.Total, err, tc.want, tc.total)
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
			p, err := st.ListNotes(ctx, c.ID, 1, tc.a, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 45})
			if err != nil || !reflect.DeepEqual(ids(p.Items, noteID), tc.want) || p.Total != len(tc.want) {
				t.Errorf("notes as %s: %v total %d (%v), want %v", tc.a.Role, ids(p.Items, noteID), p.Total, err, tc.want)
			}
		}
		evID := func(e timeline.Event) int64 { return e.ID }
		for _, tc := range []struct {
			a    domain.Access
			want []int64
		}{{adminAcc, []int64{1, 2}}, {memberAcc, []int64{2}}} {
			p, err := st.ListEvents(ctx, c.ID, 1, tc.a, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 45})
			if err != nil || !reflect.DeepEqual(ids(p.Items, evID), tc.want) || p.Total != len(tc.want) {
				t.Errorf("events as %s: %v total %d (%v), want %v", tc.a.Role, ids(p.Items, evID), p.Total, err, tc.want)
			}
		}
		if l, err := st.GetLocation(ctx, c.ID, 3); err != nil || l.ParentID == nil || *l.ParentID != 1 {
			t.Errorf("location 3's parent: %v %v", l, err)
		}
		if _, n, err := st.GetNoteAndEntity(ctx, c.ID, 1, 4); err != nil || n.Visibility != domain.VisibilitySelf {
			t.Errorf("the self note by id: %v %v", n, err)
		}
		// Name filters read lower-case copies that layout 1 did not keep on notes, events and
		// map points: the migration writes them.
		byName := func(v string) domain.Filter { return domain.Filter{Name: []domain.Term{{Op: domain.Equals, Value: v}}} }
		if p, err := st.ListNotes(ctx, c.ID, 1, adminAcc, byName("n"), domain.PageRequest{Page: 1, Limit: 45}); err != nil || p.Total != 4 {
			t.Errorf("notes named n: %d (%v), want 4", p.Total, err)
		}
		if p, err := st.ListEvents(ctx, c.ID, 1, adminAcc, byName("e"), domain.PageRequest{Page: 1, Limit: 45}); err != nil || p.Total != 2 {
			t.Errorf("events named e: %d (%v), want 2", p.Total, err)
		}
		if p, err := st.ListMapPoints(ctx, c.ID, 1, byName("x"), domain.PageRequest{Page: 1, Limit: 45}); err != nil || len(p.Items) != 1 {
			t.Errorf("map points named x: %d (%v), want 1", len(p.Items), err)
		}
		mp, err := st.ListMapPoints(ctx, c.ID, 1, domain.Filter{}, domain.PageRequest{Page: 1, Limit: 45})
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
			if err != nil || !reflect.DeepEqual(ids(p.Items, entID), tc.want) || p.Total != len(tc.want) {
				t.Errorf("entities admin=%v: %v total %d (%v), want %v", tc.admin, ids(p.Items, entID), p.Total, err, tc.want)
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
			l, err1 := st.ListLocations(ctx, c.ID, f, false, pr)
			n, err2 := st.ListNotes(ctx, c.ID, 1, adminAcc, f, pr)
			m, err3 := st.ListMapPoints(ctx, c.ID, 1, f, pr)
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
	before := snapshot(t, st, cfg.TableName)
	if _, err := ops.Migrate(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, st, cfg.TableName); after != before {
		t.Errorf("a second run changed the table:\n%s\nwant\n%s", after, before)
	}
	check()
	if _, err := st.GetLocation(ctx, c.ID, 2); errors.Is(err, apperr.ErrNotFound) {
		t.Error("the private location went missing")
	}
}

// writeLayout2 writes a campaign as layout 2 did: copies and child links, a location counter
// with per-bucket attributes and the ids of the private locations (private_ids), and public
// copies that show every parent. Location 1 public, 2 private, 3 (public) under 2, 4 (public)
// and 5 (private) under 1.
func writeLayout2(t *testing.T, st *store.Store, table string, cid, creator int64) {
	t.Helper()
	cpk := key("CAMPAIGN", cid)
	parents := map[int64]int64{3: 2, 4: 1, 5: 1}
	private := map[int64]bool{2: true, 5: true}
	var items []raw
	for id := int64(1); id <= 5; id++ {
		loc := raw{"pk": sv(cpk), "sk": sv(key("LOCATION", id)), "id": nv(id), "campaign_id": nv(cid), "entity_id": nv(id),
			"name": sv(fmt.Sprint("Place ", id)), "name_lc": sv(fmt.Sprint("place ", id)), "is_private": bv(private[id]),
			"tags": &types.AttributeValueMemberL{}, "is_map_private": bv(false), "created_at": sv("2024-01-01T00:00:00.000000Z"),
			"updated_at": sv("2024-01-01T00:00:00.000000Z"), "created_by": nv(creator), "updated_by": nv(creator), "version": nv(1)}
		ent := raw{"pk": sv(cpk), "sk": sv(key("ENTITY", id)), "id": nv(id), "campaign_id": nv(cid), "type": sv("location"),
			"child_id": nv(id), "name": sv(fmt.Sprint("Place ", id)), "name_lc": sv(fmt.Sprint("place ", id)), "is_private": bv(private[id]),
			"tags": &types.AttributeValueMemberL{}, "created_at": sv("2024-01-01T00:00:00.000000Z"),
			"updated_at": sv("2024-01-01T00:00:00.000000Z"), "created_by": nv(creator), "updated_by": nv(creator)}
		if p, ok := parents[id]; ok {
			loc["parent_location_id"] = nv(p)
			items = append(items, raw{"pk": sv(fmt.Sprintf("%s#LOCATION#%012d", cpk, p)), "sk": sv(fmt.Sprintf("CHILD#%012d", id)), "id": nv(id)})
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
			pubLoc["sk"], pubEnt["sk"] = sv("PUB#"+key("LOCATION", id)), sv("PUB#"+key("ENTITY", id))
			items = append(items, pubLoc, pubEnt)
		}
	}
	items = append(items,
		raw{"pk": sv(cpk), "sk": sv("COUNT#LOCATION"), "admin": nv(5), "pub": nv(3), "admin_0": nv(5), "pub_0": nv(3),
			"private_ids": &types.AttributeValueMemberNS{Value: []string{"2", "5"}}},
		raw{"pk": sv(cpk), "sk": sv("COUNT#ENTITY"), "admin": nv(5), "pub": nv(3), "admin_0": nv(5), "pub_0": nv(3)},
		raw{"pk": sv(cpk), "sk": sv("SEQ"), "location": nv(5), "entity": nv(5)})
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
	admin, c := ownedCampaign(t, st, domain.Campaign{Name: "c", IsPublic: true})
	writeLayout2(t, st, cfg.TableName, c.ID, admin.ID)
	if _, err := ops.Migrate(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	get := func(pk, sk string) raw {
		t.Helper()
		out, err := st.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(cfg.TableName),
			Key: raw{"pk": sv(pk), "sk": sv(sk)}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item
	}
	cpk := key("CAMPAIGN", c.ID)
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
			_, shows := get(cpk, "PUB#"+key("LOCATION", tc.id))["parent_location_id"]
			if shows != tc.showParent {
				t.Errorf("public copy of %d shows its parent: %v, want %v", tc.id, shows, tc.showParent)
			}
		}
		if p, ok := get(fmt.Sprintf("%s#LOCATION#%012d", cpk, 1), fmt.Sprintf("CHILD#%012d", 5))["is_private"].(*types.AttributeValueMemberBOOL); !ok || !p.Value {
			t.Errorf("the link of private child 5 says private %v", p)
		}
		if l, err := st.GetLocation(ctx, c.ID, 3); err != nil || !l.ParentPrivate || l.ParentID == nil || *l.ParentID != 2 {
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
			p, err := st.ListLocations(ctx, c.ID, domain.Filter{}, !tc.admin, tc.page)
			if err != nil || !reflect.DeepEqual(ids(p.Items, func(l domain.Location) int64 { return l.ID }), tc.want) || p.Total != tc.total {
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
	before := snapshot(t, st, cfg.TableName)
	if _, err := ops.Migrate(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, st, cfg.TableName); after != before {
		t.Errorf("a second run changed the table:\n%s\nwant\n%s", after, before)
	}
	check()
}
