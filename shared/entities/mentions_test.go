package entities_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/lorekeep/lorekeep/shared/families"
	"github.com/lorekeep/lorekeep/shared/store/ops"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// mention is one row as compared here: source entity, post (0 for the entry), target.
type mention struct{ src, post, target int64 }

func mentionRows(t *testing.T, r apitest.Response) []mention {
	t.Helper()
	out := []mention{}
	for _, it := range r.List() {
		m := it.(map[string]any)
		row := mention{src: int64(m["entity_id"].(float64)), target: int64(m["target_id"].(float64))}
		if p, ok := m["post_id"].(float64); ok {
			row.post = int64(p)
			if m["entity_note_id"] != m["post_id"] {
				t.Errorf("entity_note_id %v, post_id %v", m["entity_note_id"], m["post_id"])
			}
		}
		if m["campaign_id"] != nil {
			t.Errorf("campaign_id %v", m["campaign_id"])
		}
		out = append(out, row)
	}
	return out
}

func mentionsPath(cid, eid int64, query string) string {
	return apitest.Path(cid, fmt.Sprintf("/entities/%d/mentions%s", eid, query))
}

// Mentions: Kanka's direction on the route (what an entity mentions), who mentions it with
// ?direction=in; kept exact when entries change, posts change visibility or go, and records are
// deleted; never showing what the caller may not see.
func TestMentionsBothDirections(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	ctx := context.Background()
	port := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Port"})
	secret := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Secret", "is_private": true})
	P, S := eid(port), eid(secret)
	// A town whose entry mentions the port, the secret, itself and an id that is no entity.
	town := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Town",
		"entry": fmt.Sprintf("<p>[location:%d] and [location:%d|hidden] and [location:999] and [location:%d]</p>", P, S, P)})
	T := eid(town)
	if _, err := ops.Audit(ctx, e.Store, e.Campaign); err != nil {
		t.Fatal(err)
	}
	selfRef := e.Do("PATCH", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%v", town["id"])), e.Admin,
		map[string]any{"entry": fmt.Sprintf("[location:%d] [location:%d] [location:%d]", P, S, T)})
	if selfRef.Status != 200 {
		t.Fatalf("%d %s", selfRef.Status, selfRef.Raw)
	}
	cal := create(t, e, e.Campaign, e.Admin, "calendars", map[string]any{"name": "Cal", "entry": fmt.Sprintf("[location:%d]", P),
		"month_name": []string{"One", "Two"}, "month_length": []int{10, 10}, "weekday": []string{"A", "B"}})
	C := eid(cal)
	post := func(token, vis string, target int64) int64 {
		r := e.Do("POST", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/posts", C)), token,
			map[string]any{"name": "n", "entry": fmt.Sprintf("see [location:%d]", target), "visibility": vis})
		if r.Status != 200 {
			t.Fatalf("post: %d %s", r.Status, r.Raw)
		}
		return int64(r.Data()["id"].(float64))
	}
	all := post(e.Admin, "all", P)
	adminOnly := post(e.Admin, "admin", P)
	mine := post(e.Member, "self", P)

	cases := []struct {
		name  string
		token string
		path  string
		want  []mention
	}{
		{"admin: who mentions the port", e.Admin, mentionsPath(e.Campaign, P, "?direction=in"),
			[]mention{{T, 0, P}, {C, 0, P}, {C, all, P}, {C, adminOnly, P}}},
		{"member: the admin post hidden, their own self post shown", e.Member, mentionsPath(e.Campaign, P, "?direction=in"),
			[]mention{{T, 0, P}, {C, 0, P}, {C, all, P}, {C, mine, P}}},
		{"viewer", e.Viewer, mentionsPath(e.Campaign, P, "?direction=in"), []mention{{T, 0, P}, {C, 0, P}, {C, all, P}}},
		{"admin: what the town mentions (Kanka's direction)", e.Admin, mentionsPath(e.Campaign, T, ""),
			[]mention{{T, 0, P}, {T, 0, S}}},
		{"member: a private target is left out", e.Member, mentionsPath(e.Campaign, T, "?direction=out"), []mention{{T, 0, P}}},
		{"admin: the calendar's entry and posts", e.Admin, mentionsPath(e.Campaign, C, ""),
			[]mention{{C, 0, P}, {C, all, P}, {C, adminOnly, P}}},
		{"member: the calendar's posts they may see", e.Member, mentionsPath(e.Campaign, C, ""),
			[]mention{{C, 0, P}, {C, all, P}, {C, mine, P}}},
		{"admin: who mentions the secret", e.Admin, mentionsPath(e.Campaign, S, "?direction=in"), []mention{{T, 0, S}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do("GET", c.path, c.token, nil)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			if got := mentionRows(t, r); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			if r.Body["meta"].(map[string]any)["total"] != float64(len(c.want)) {
				t.Errorf("meta %v", r.Body["meta"])
			}
		})
	}
	for _, c := range []struct {
		path, token string
		status      int
	}{
		{mentionsPath(e.Campaign, S, "?direction=in"), e.Member, 404}, // a hidden entity
		{mentionsPath(e.Campaign, P, ""), e.Outsider, 404},
		{mentionsPath(e.OtherCampaign, P, ""), e.Admin, 404},
		{mentionsPath(e.Campaign, P, "?direction=sideways"), e.Admin, 422},
	} {
		if r := e.Do("GET", c.path, c.token, nil); r.Status != c.status {
			t.Errorf("GET %s: %d %s, want %d", c.path, r.Status, r.Raw, c.status)
		}
	}

	// Changes: the town stops mentioning the port; the admin post becomes `all`; the `all` post
	// is deleted; the calendar (with its posts) is deleted.
	steps := []struct {
		method, path string
		body         map[string]any
		want         []mention
	}{
		{"PATCH", apitest.Path(e.Campaign, fmt.Sprintf("/locations/%v", town["id"])), map[string]any{"entry": "nothing"},
			[]mention{{C, 0, P}, {C, all, P}, {C, adminOnly, P}}},
		{"PATCH", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/posts/%d", C, adminOnly)), map[string]any{"visibility": "all"},
			[]mention{{C, 0, P}, {C, all, P}, {C, adminOnly, P}}},
		{"DELETE", apitest.Path(e.Campaign, fmt.Sprintf("/entities/%d/posts/%d", C, all)), nil,
			[]mention{{C, 0, P}, {C, adminOnly, P}}},
		{"DELETE", apitest.Path(e.Campaign, fmt.Sprintf("/calendars/%v", cal["id"])), nil, []mention{}},
	}
	for i, s := range steps {
		if r := e.Do(s.method, s.path, e.Admin, s.body); r.Status != 200 {
			t.Fatalf("step %d: %d %s", i, r.Status, r.Raw)
		}
		r := e.Do("GET", mentionsPath(e.Campaign, P, "?direction=in"), e.Admin, nil)
		if got := mentionRows(t, r); !reflect.DeepEqual(got, s.want) {
			t.Errorf("step %d (%s %s): got %v, want %v", i, s.method, s.path, got, s.want)
		}
		if problems, err := ops.Audit(ctx, e.Store, e.Campaign); err != nil || len(problems) > 0 {
			t.Fatalf("step %d: audit %v %v", i, err, problems)
		}
	}
	// The member now sees the formerly admin-only post.
	if got := mentionRows(t, e.Do("GET", mentionsPath(e.Campaign, P, "?direction=in"), e.Member, nil)); len(got) != 0 {
		t.Errorf("after the calendar's delete the member sees %v", got)
	}
}

// Mentions are three round trips either way: the access with the entity; the reverse index
// (in), or the record's entry and the caller's post ranges read concurrently (out: up to three
// calls at once); the other side's entities. They page like every list.
func TestMentionsRoundTripsAndPages(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	target := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Hub"})
	var want []int64
	for i := 0; i < 12; i++ {
		src := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": fmt.Sprintf("Spoke %d", i),
			"entry": fmt.Sprintf("[location:%d]", eid(target))})
		want = append(want, eid(src))
	}
	for _, c := range []struct {
		q         string
		eid       int64
		calls     int64
		concurent int64
		rows      int
	}{{"?direction=in", eid(target), 3, 1, 12}, {"", want[0], 1 + 3 + 1, 3, 1}} {
		for _, tok := range []string{e.Admin, e.Member} {
			e.Counter.Reset()
			if r := e.Do("GET", mentionsPath(e.Campaign, c.eid, c.q), tok, nil); r.Status != 200 || len(r.List()) != c.rows {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			// The calls sent together overlap unless the machine is too busy to start them before
			// the first answers: at least two at once, never more than the route sends together.
			if n, m := e.Counter.N(), e.Counter.MaxInFlight(); n != c.calls || m > c.concurent || (c.concurent > 1 && m < 2) {
				t.Errorf("mentions%s: %d DynamoDB calls, %d at once; want %d, %d at once", c.q, n, m, c.calls, c.concurent)
			}
		}
	}
	r := e.Do("GET", mentionsPath(e.Campaign, eid(target), "?direction=in&limit=5"), e.Member, nil)
	var got []int64
	for {
		for _, m := range mentionRows(t, r) {
			got = append(got, m.src)
		}
		next, _ := r.Body["links"].(map[string]any)["next"].(string)
		if next == "" {
			break
		}
		r = e.Do("GET", next[len(e.Server.URL):], e.Member, nil)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pages: %v, want %v", got, want)
	}
}

// An entry may mention 50 entities; a write that would change more reverse items than one
// transaction holds is a 422 naming the entry, and changes nothing.
func TestMentionChangesBeyondOneTransactionAre422(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, families.Register)
	e.SeedLocations(e.Campaign, 100, 0)
	entry := func(from int) string {
		var b []byte
		for id := from; id < from+50; id++ {
			b = fmt.Appendf(b, "[location:%d] ", id)
		}
		return string(b)
	}
	src := create(t, e, e.Campaign, e.Admin, "locations", map[string]any{"name": "Atlas", "entry": entry(1)})
	path := apitest.Path(e.Campaign, fmt.Sprintf("/locations/%v", src["id"]))
	r := e.Do("PATCH", path, e.Admin, map[string]any{"entry": entry(51)})
	if r.Status != 422 || r.Errors()["entry"] == nil {
		t.Fatalf("%d %s, want 422 on entry", r.Status, r.Raw)
	}
	got := mentionRows(t, e.Do("GET", mentionsPath(e.Campaign, eid(src), "?limit=100"), e.Admin, nil))
	if len(got) != 50 || got[0].target != 1 {
		t.Fatalf("after the refused write: %d mentions from %v", len(got), got[:min(1, len(got))])
	}
	if problems, err := ops.Audit(context.Background(), e.Store, e.Campaign); err != nil || len(problems) > 0 {
		t.Fatalf("audit: %v %v", err, problems)
	}
	// Half of them changed fits.
	if r := e.Do("PATCH", path, e.Admin, map[string]any{"entry": entry(26)}); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if got := mentionRows(t, e.Do("GET", mentionsPath(e.Campaign, 60, "?direction=in"), e.Admin, nil)); len(got) != 1 {
		t.Errorf("entity 60 mentioned by %v", got)
	}
}
