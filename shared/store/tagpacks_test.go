package store_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/store/internal/storetest"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/tags"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

// TestTagPackCap: a pack holds each class's smallest ids up to its cap (lowered to 3 here)
// while the count stays exact: additions below a full class's largest replace it, removals
// from a class with more members than it holds refill it; the audit checks the pack exactly.
func TestTagPackCap(t *testing.T) {
	defer store.SetTagPackCap(3)()
	e := apitest.New(t, func(api *httpapi.API, st *store.Store) {
		locations.Register(api, st)
		tags.Register(api, st)
	})
	cid := e.Campaign
	tag := packPost(t, e, "/tags", map[string]any{"name": "Big"})
	var lids, eids []int64
	for i := range 6 {
		r := e.Do("POST", apitest.Path(cid, "/locations"), e.Admin, map[string]any{"name": fmt.Sprintf("L%d", i)})
		if r.Status != 200 {
			t.Fatalf("location: %d %s", r.Status, r.Raw)
		}
		lids, eids = append(lids, int64(r.Data()["id"].(float64))), append(eids, int64(r.Data()["entity_id"].(float64)))
	}
	setTags := func(i int, tags ...int64) {
		t.Helper()
		if tags == nil {
			tags = []int64{}
		}
		if r := e.Do("PATCH", apitest.Path(cid, fmt.Sprintf("/locations/%d", lids[i])), e.Admin, map[string]any{"tags": tags}); r.Status != 200 {
			t.Fatalf("tag %d: %d %s", i, r.Status, r.Raw)
		}
	}
	show := func() string {
		t.Helper()
		if problems, err := ops.Audit(t.Context(), e.Store, cid); err != nil || len(problems) > 0 {
			t.Fatalf("audit: %v %v", err, problems)
		}
		r := e.Do("GET", apitest.Path(cid, fmt.Sprintf("/tags/%d", tag)), e.Admin, nil)
		if r.Status != 200 {
			t.Fatalf("show: %d %s", r.Status, r.Raw)
		}
		return apitest.TagMembers(r.Data())
	}
	for _, i := range []int{5, 4, 3, 2} { // the class fills from the top: 2 replaces 5
		setTags(i, tag)
	}
	if got := show(); got != apitest.WantTagMembers(4, eids[2], eids[3], eids[4]) {
		t.Fatalf("filled: %s", got)
	}
	setTags(3) // removed from a full class with more members: refilled with 5
	if got := show(); got != apitest.WantTagMembers(3, eids[2], eids[4], eids[5]) {
		t.Fatalf("refilled: %s", got)
	}
	setTags(0, tag)
	setTags(1, tag)
	if got := show(); got != apitest.WantTagMembers(5, eids[0], eids[1], eids[2]) {
		t.Fatalf("replaced: %s", got)
	}
	// A member turning private moves classes: the admins' answer keeps the smallest of both.
	if r := e.Do("PATCH", apitest.Path(cid, fmt.Sprintf("/locations/%d", lids[0])), e.Admin, map[string]any{"is_private": true}); r.Status != 200 {
		t.Fatalf("flip: %d %s", r.Status, r.Raw)
	}
	if got := show(); got != apitest.WantTagMembers(5, eids[0], eids[1], eids[2]) {
		t.Fatalf("flipped: %s", got)
	}
	m := e.Do("GET", apitest.Path(cid, fmt.Sprintf("/tags/%d", tag)), e.Member, nil)
	if m.Status != 200 || apitest.TagMembers(m.Data()) != apitest.WantTagMembers(4, eids[1], eids[2], eids[4]) {
		t.Fatalf("member: %d %s", m.Status, m.Raw)
	}
	for _, i := range []int{1, 2, 4, 5} {
		setTags(i)
	}
	if got := show(); got != apitest.WantTagMembers(1, eids[0]) {
		t.Fatalf("emptied: %s", got)
	}
}

func packPost(t *testing.T, e *apitest.Env, path string, body map[string]any) int64 {
	t.Helper()
	r := e.Do("POST", apitest.Path(e.Campaign, path), e.Admin, body)
	if r.Status != 200 {
		t.Fatalf("create %v: %d %s", body, r.Status, r.Raw)
	}
	return int64(r.Data()["id"].(float64))
}

// TestMigrateBuildsTagPacks: a table written before the packs (none, or one left wrong, or a
// deleted tag's left over) is found by the audit and made whole by `lorekeep migrate`, twice
// over (idempotent), with a cap crossed (store.SetTagPackCap) so the packs keep the smallest.
func TestMigrateBuildsTagPacks(t *testing.T) {
	defer store.SetTagPackCap(2)()
	st, cfg := dynamotest.NewStore(t)
	ctx := t.Context()
	admin, c := storetest.OwnedCampaign(t, st, domain.Campaign{Name: "c"})
	meta := domain.Meta{CampaignID: c.ID, CreatedBy: admin.ID}
	open := &domain.Tag{Meta: meta, Owner: domain.Owner{Name: "Open"}}
	secret := &domain.Tag{Meta: meta, Owner: domain.Owner{Name: "Secret", IsPrivate: true}}
	empty := &domain.Tag{Meta: meta, Owner: domain.Owner{Name: "Empty"}}
	for _, tg := range []*domain.Tag{open, secret, empty} {
		if err := tagstore.New(st).CreateTag(ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	var eids []int64
	for i := range 5 {
		l := &domain.Location{Meta: meta, Owner: domain.Owner{Name: fmt.Sprint("L", i), IsPrivate: i == 4, Tags: []int64{open.ID, secret.ID}, TagsByAdmin: true}}
		if err := locstore.New(st).CreateLocation(ctx, l); err != nil {
			t.Fatal(err)
		}
		eids = append(eids, l.EntityID)
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) > 0 {
		t.Fatalf("audit as written: %v %q", err, problems)
	}
	// The table before: open's pack missing, secret's wrong, a pack of a tag that is gone.
	db, table := st.Client(), aws.String(cfg.TableName)
	pk := func(tid int64) string { return fmt.Sprintf("CAMPAIGN#%012d#TAG#%012d", c.ID, tid) }
	key := func(p string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: p}, "sk": &types.AttributeValueMemberS{Value: "TMPACK"}}
	}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: key(pk(open.ID))}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: table, Key: key(pk(secret.ID)),
		UpdateExpression: aws.String("SET np = :n REMOVE p"), ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "7"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: key(pk(999))}); err != nil {
		t.Fatal(err)
	}
	if problems, err := ops.Audit(ctx, st, c.ID); err != nil || len(problems) < 3 {
		t.Fatalf("audit of the table before: %v %q", err, problems)
	}
	storetest.MigrateTwice(t, st, c.ID, func(run int) {
		got, err := st.TagMembers(ctx, c.ID, []int64{open.ID, secret.ID, empty.ID}, true)
		if err != nil {
			t.Fatal(err)
		}
		for tid, want := range map[int64]domain.TagMembers{
			open.ID: {Entities: []int64{eids[0], eids[1]}, Count: 5}, secret.ID: {Entities: []int64{eids[0], eids[1]}, Count: 5},
			empty.ID: {Entities: []int64{}, Count: 0},
		} {
			if fmt.Sprint(got[tid]) != fmt.Sprint(want) {
				t.Errorf("run %d: tag %d: %v, want %v", run, tid, got[tid], want)
			}
		}
		member, err := st.TagMembers(ctx, c.ID, []int64{open.ID}, false)
		if err != nil || fmt.Sprint(member[open.ID]) != fmt.Sprint(domain.TagMembers{Entities: []int64{eids[0], eids[1]}, Count: 4}) {
			t.Errorf("run %d: member's answer %v %v", run, member, err)
		}
	})
}
