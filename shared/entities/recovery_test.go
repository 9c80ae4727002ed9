package entities_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
	"github.com/lorekeep/lorekeep/shared/testing/faultproxy"
)

func recovery(cid int64) string    { return apitest.Path(cid, "/recovery") }
func recoverPath(cid int64) string { return apitest.Path(cid, "/recover") }

// Kanka's recovery: a deleted location leaves a tombstone for sync and shows in the admins'
// recovery list; its restore brings it back with its id, its child under it, its event on the
// calendar and its relation, updated now (lastSync sees it, ?deleted=1 no longer does); the
// campaign audits clean throughout. The list costs two round trips and a restore a bounded few.
func TestRecoveryRoundTrip(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	ctx := context.Background()
	cal := create(t, e, e.Campaign, e.Admin, "calendars", calendarBody("Tides"))
	town := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Town"})
	child := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Quay", "parent_location_id": town["id"]})
	other := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Other"})
	ev := create(t, e, e.Campaign, e.Admin, "entities/"+itoa(eid(town))+"/entity_events",
		map[string]any{"name": "Founding", "calendar_id": cal["id"], "year": 5, "month": 1, "day": 3, "length": 1})
	rel := create(t, e, e.Campaign, e.Admin, "entities/"+itoa(eid(other))+"/relations",
		map[string]any{"relation": "rival", "target_id": eid(town), "two_way": true})
	audit := func(step string) {
		t.Helper()
		if problems, err := ops.Audit(ctx, e.Store, e.Campaign); err != nil || len(problems) > 0 {
			t.Fatalf("%s: audit %v %q", step, err, problems)
		}
	}
	audit("created")
	since := domain.FormatTime(apitest.SyncPoint())

	if r := e.Do("DELETE", apitest.Path(e.Campaign, "/locations/"+itoa(id(town))), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	audit("trashed")
	for path, want := range map[string]int{
		"/locations/" + itoa(id(town)):                    404,
		"/entities/" + itoa(eid(town)):                    404,
		"/entities/" + itoa(eid(town)) + "/entity_events": 404,
	} {
		if r := e.Do("GET", apitest.Path(e.Campaign, path), e.Admin, nil); r.Status != want {
			t.Errorf("GET %s with the town trashed: %d %s", path, r.Status, r.Raw)
		}
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/locations/"+itoa(id(child))), e.Admin, nil); r.Data()["parent_location_id"] != nil {
		t.Errorf("child with its parent trashed: %s", r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/relations"), e.Admin, nil); len(r.List()) != 0 || r.Body["meta"].(map[string]any)["total"] != float64(0) {
		t.Errorf("relations with the town trashed: %s", r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/calendars/"+itoa(id(cal))+"/reminders"), e.Admin, nil); len(r.List()) != 0 {
		t.Errorf("reminders with the town trashed: %s", r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/locations?deleted=1&lastSync="+since), e.Admin, nil); !slices.Equal(ids(r), []int64{id(town)}) {
		t.Errorf("?deleted=1 after the delete: %s", r.Raw)
	}

	e.Counter.Reset()
	r := e.Do("GET", recovery(e.Campaign), e.Admin, nil)
	if r.Status != 200 || !slices.Equal(ids(r), []int64{eid(town)}) || e.Counter.N() != 2 {
		t.Fatalf("recovery: %d %s in %d calls, want the town's entity in 2", r.Status, r.Raw, e.Counter.N())
	}
	row := r.List()[0].(map[string]any)
	if row["name"] != "Town" || row["type"] != "location" || row["child_id"] != town["id"] {
		t.Errorf("recovery row: %v", row)
	}

	e.Counter.Reset()
	r = e.Do("POST", recoverPath(e.Campaign), e.Admin, map[string]any{"entities": []int64{eid(town)}})
	if r.Status != 200 || r.Body["success"] != "Successfully recovered deleted entities" {
		t.Fatalf("recover: %d %s", r.Status, r.Raw)
	}
	t.Logf("restore of a location with a child, an event and a two-way relation: %d DynamoDB calls", e.Counter.N())
	if n := e.Counter.N(); n > 30 {
		t.Errorf("restore: %d DynamoDB calls, want at most 30", n)
	}
	audit("restored")
	r = e.Do("GET", apitest.Path(e.Campaign, "/locations/"+itoa(id(town))), e.Admin, nil)
	if r.Status != 200 || r.Data()["name"] != "Town" || r.Data()["entity_id"] != town["entity_id"] || r.Data()["updated_at"] == town["updated_at"] {
		t.Fatalf("restored town: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/locations/"+itoa(id(child))), e.Admin, nil); r.Data()["parent_location_id"] != town["id"] {
		t.Errorf("child after the restore: %s", r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/entities/"+itoa(eid(town))+"/entity_events"), e.Admin, nil); !slices.Equal(ids(r), []int64{id(ev)}) {
		t.Errorf("events after the restore: %s", r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/calendars/"+itoa(id(cal))+"/reminders"), e.Admin, nil); !slices.Equal(ids(r), []int64{id(ev)}) {
		t.Errorf("reminders after the restore: %s", r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/relations"), e.Admin, nil); len(r.List()) != 2 || !slices.Contains(ids(r), id(rel)) {
		t.Errorf("relations after the restore: %s", r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/locations?deleted=1&lastSync="+since), e.Admin, nil); len(r.List()) != 0 {
		t.Errorf("?deleted=1 after the restore: %s", r.Raw)
	}
	if r := e.Do("GET", apitest.Path(e.Campaign, "/locations?lastSync="+since), e.Admin, nil); !slices.Contains(ids(r), id(town)) {
		t.Errorf("lastSync after the restore: %s", r.Raw)
	}
	if r := e.Do("GET", recovery(e.Campaign), e.Admin, nil); len(r.List()) != 0 {
		t.Errorf("recovery after the restore: %s", r.Raw)
	}
	if r := e.Do("POST", recoverPath(e.Campaign), e.Admin, map[string]any{"entities": []int64{eid(town)}}); r.Status != 422 || r.Errors()["entities.0"] == nil {
		t.Errorf("second recover: %d %s", r.Status, r.Raw)
	}
}

// Recovery is for admins: members and viewers 403, outsiders of a private campaign 404, and a
// campaign's trash never answers for another campaign's ids. Bad bodies are a 422 naming the
// field, and change nothing.
func TestRecoveryAccessAndBadInput(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	loc := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Gone"})
	var otherLoc map[string]any // its entity id is one no entity of e.Campaign has
	for i := 0; i < 5; i++ {
		otherLoc = create(t, e, e.OtherCampaign, e.Stranger, "locations", map[string]any{"name": "Elsewhere"})
	}
	pub := create(t, e, e.PublicCampaign, e.Admin, "locations", map[string]any{"name": "Public"})
	for _, l := range []struct {
		cid   int64
		rec   map[string]any
		token string
	}{{e.Campaign, loc, e.Admin}, {e.OtherCampaign, otherLoc, e.Stranger}, {e.PublicCampaign, pub, e.Admin}} {
		if r := e.Do("DELETE", apitest.Path(l.cid, "/locations/"+itoa(id(l.rec))), l.token, nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Raw)
		}
	}
	for _, c := range []struct {
		name   string
		cid    int64
		token  string
		status int
	}{
		{"admin", e.Campaign, e.Admin, 200},
		{"second admin", e.Campaign, e.Admin2, 200},
		{"member", e.Campaign, e.Member, 403},
		{"viewer", e.Campaign, e.Viewer, 403},
		{"outsider", e.Campaign, e.Outsider, 404},
		{"public campaign outsider", e.PublicCampaign, e.Outsider, 403},
		{"public campaign member", e.PublicCampaign, e.Member, 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := e.Do("GET", recovery(c.cid), c.token, nil); r.Status != c.status {
				t.Errorf("list: %d %s, want %d", r.Status, r.Raw, c.status)
			}
			status := c.status
			if status == 200 {
				status = 422 // the body names the other campaign's entity
			}
			r := e.Do("POST", recoverPath(c.cid), c.token, map[string]any{"entities": []int64{eid(otherLoc)}})
			if r.Status != status {
				t.Errorf("recover: %d %s, want %d", r.Status, r.Raw, status)
			}
		})
	}
	for _, c := range []struct {
		name  string
		body  any
		field string
	}{
		{"missing", map[string]any{}, "entities"},
		{"empty", map[string]any{"entities": []int{}}, "entities"},
		{"not a list", map[string]any{"entities": "1"}, "entities"},
		{"not ids", map[string]any{"entities": []any{"x", 1.5}}, "entities.0"},
		{"too many", map[string]any{"entities": slices.Repeat([]int64{eid(loc)}, 21)}, "entities"},
		{"huge id", map[string]any{"entities": []any{1e300}}, "entities.0"},
		{"another campaign's entity", map[string]any{"entities": []int64{eid(loc), eid(otherLoc)}}, "entities.1"},
		{"a live entity", map[string]any{"entities": []int64{eid(create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Live"}))}}, "entities.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("POST", recoverPath(e.Campaign), e.Admin, c.body)
			if r.Status != 422 || r.Errors()[c.field] == nil {
				t.Fatalf("%d %s, want 422 naming %s", r.Status, r.Raw, c.field)
			}
			if r := e.Do("GET", recovery(e.Campaign), e.Admin, nil); !slices.Equal(ids(r), []int64{eid(loc)}) {
				t.Fatalf("trash after a refused recover: %s", r.Raw)
			}
		})
	}
}

func id(rec map[string]any) int64 { return int64(rec["id"].(float64)) }
func itoa(n int64) string         { return strconv.FormatInt(n, 10) }

// A recover whose second restore fails (DynamoDB answers 500 to its transaction, no retry)
// after the first was written answers 200 naming both, never an error that would say nothing
// was written; the first is back, the second still in the trash, and the campaign audits clean.
func TestRecoverPartialFailureSaysWhatWasRestored(t *testing.T) {
	t.Parallel()
	p := faultproxy.Start(t, dynamotest.Endpoint(t))
	e := apitest.New(t, families.Register, p.Attach, func(c *aws.Config) { c.Retryer = func() aws.Retryer { return aws.NopRetryer{} } })
	first := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "First"})
	second := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Second"})
	// Deleted second then first: restored most recently deleted first, so first goes first.
	for _, l := range []map[string]any{second, first} {
		if r := e.Do("DELETE", apitest.Path(e.Campaign, "/locations/"+itoa(id(l))), e.Admin, nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Raw)
		}
	}
	p.Reset()
	// The first restore's transaction is TransactWriteItems call 1; every later one fails
	// (retries included).
	later := make([]int, 500)
	for i := range later {
		later[i] = i + 2
	}
	p.Inject(faultproxy.Rule{Op: "TransactWriteItems", Calls: later, Fault: faultproxy.InternalServerError})
	r := e.Do("POST", recoverPath(e.Campaign), e.Admin, map[string]any{"entities": []int64{eid(second), eid(first)}})
	p.Reset()
	if r.Status != 200 {
		t.Fatalf("partial recover: %d %s", r.Status, r.Raw)
	}
	got := func(k string) []int64 {
		var out []int64
		list, _ := r.Body[k].([]any)
		for _, v := range list {
			out = append(out, int64(v.(float64)))
		}
		return out
	}
	if !slices.Equal(got("recovered"), []int64{eid(first)}) || !slices.Equal(got("not_recovered"), []int64{eid(second)}) ||
		r.Body["success"] != "Recovered 1 of 2 deleted entities; the others were not recovered (retry them)" {
		t.Fatalf("partial recover answer: %s", r.Raw)
	}
	if g := e.Do("GET", apitest.Path(e.Campaign, "/locations/"+itoa(id(first))), e.Admin, nil); g.Status != 200 {
		t.Errorf("the recovered location: %d %s", g.Status, g.Raw)
	}
	if g := e.Do("GET", apitest.Path(e.Campaign, "/locations/"+itoa(id(second))), e.Admin, nil); g.Status != 404 {
		t.Errorf("the location not recovered: %d %s", g.Status, g.Raw)
	}
	if g := e.Do("GET", recovery(e.Campaign), e.Admin, nil); len(g.List()) != 1 || g.List()[0].(map[string]any)["id"] != float64(eid(second)) {
		t.Errorf("recovery list after the partial recover: %s", g.Raw)
	}
	// The retry of the rest restores it.
	if g := e.Do("POST", recoverPath(e.Campaign), e.Admin, map[string]any{"entities": []int64{eid(second)}}); g.Status != 200 ||
		g.Body["success"] != "Successfully recovered deleted entities" {
		t.Fatalf("retry: %d %s", g.Status, g.Raw)
	}
	if problems, err := ops.Audit(context.Background(), e.Store, e.Campaign); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %q", err, problems)
	}
}
