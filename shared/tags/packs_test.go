package tags_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// TestTagListEntities: a tags list page answers every row's entities and entities_count as the
// tag's show does, for admins (private members too), members and viewers (public members of
// the tags they see), through every write that changes a tag link: records created, updated
// and deleted with tags, entity_tags added and removed, a member's privacy flips, a location's
// trash and restore, a tag's privacy change and its delete. Audited after each step.
func TestTagListEntities(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, withEverything)
	cid := e.Campaign
	open := create(t, e, cid, e.Admin, map[string]any{"name": "Open"})
	secret := create(t, e, cid, e.Admin, map[string]any{"name": "Secret", "is_private": true})
	loc := func(name string, private bool, tags ...int64) (int64, int64) {
		r := e.Do("POST", apitest.Path(cid, "/locations"), e.Admin, map[string]any{"name": name, "is_private": private, "tags": tags})
		if r.Status != 200 {
			t.Fatalf("create %s: %d %s", name, r.Status, r.Raw)
		}
		return int64(r.Data()["id"].(float64)), int64(r.Data()["entity_id"].(float64))
	}
	l1, e1 := loc("One", false, open, secret)
	_, e2 := loc("Two", false, open)
	l3, e3 := loc("Three", true, open, secret)
	// A tag tagged too: tags are owners.
	r := e.Do("POST", apitest.Path(cid, "/tags"), e.Admin, map[string]any{"name": "Child", "tags": []int64{secret, open}})
	if r.Status != 200 {
		t.Fatalf("child: %d %s", r.Status, r.Raw)
	}
	e4 := int64(r.Data()["entity_id"].(float64))

	type expect struct{ admin, other map[int64]string } // tag id: members (other: nil when hidden)
	check := func(step string, x expect) {
		t.Helper()
		audit(t, e, cid)
		for _, who := range []struct {
			name, token string
			admin       bool
		}{{"admin", e.Admin, true}, {"member", e.Member, false}, {"viewer", e.Viewer, false}} {
			w := x.other
			if who.admin {
				w = x.admin
			}
			l := e.Do("GET", apitest.Path(cid, "/tags?limit=100"), who.token, nil)
			if l.Status != 200 {
				t.Fatalf("%s: %s list: %d %s", step, who.name, l.Status, l.Raw)
			}
			listed := map[int64]string{}
			for _, row := range l.List() {
				m := row.(map[string]any)
				listed[int64(m["id"].(float64))] = apitest.TagMembers(m)
			}
			for tid, want := range w {
				if listed[tid] != want {
					t.Errorf("%s: %s: list row of tag %d: %s, want %s", step, who.name, tid, listed[tid], want)
				}
				s := e.Do("GET", tagPath(cid, tid), who.token, nil)
				if s.Status != 200 || apitest.TagMembers(s.Data()) != want {
					t.Errorf("%s: %s: show of tag %d: %d %s, want %s", step, who.name, tid, s.Status, s.Raw, want)
				}
			}
			if _, ok := listed[secret]; ok != (w[secret] != "") {
				t.Errorf("%s: %s lists the secret tag: %v", step, who.name, ok)
			}
		}
	}
	check("created", expect{
		admin: map[int64]string{open: apitest.WantTagMembers(4, e1, e2, e3, e4), secret: apitest.WantTagMembers(3, e1, e3, e4)},
		other: map[int64]string{open: apitest.WantTagMembers(3, e1, e2, e4)},
	})
	// The private member turns public, then the first loses the open tag (entity_tags).
	if u := e.Do("PATCH", apitest.Path(cid, fmt.Sprintf("/locations/%d", l3)), e.Admin, map[string]any{"is_private": false}); u.Status != 200 {
		t.Fatalf("flip: %d %s", u.Status, u.Raw)
	}
	if d := e.Do("DELETE", apitest.Path(cid, fmt.Sprintf("/entities/%d/entity_tags/%d", e1, open)), e.Admin, nil); d.Status != 200 {
		t.Fatalf("entity_tags delete: %d %s", d.Status, d.Raw)
	}
	check("flipped, untagged", expect{
		admin: map[int64]string{open: apitest.WantTagMembers(3, e2, e3, e4), secret: apitest.WantTagMembers(3, e1, e3, e4)},
		other: map[int64]string{open: apitest.WantTagMembers(3, e2, e3, e4)},
	})
	// entity_tags adds it back; an update drops the secret tag from the first.
	if p := e.Do("POST", apitest.Path(cid, fmt.Sprintf("/entities/%d/entity_tags", e1)), e.Admin, map[string]any{"tag_id": open}); p.Status != 200 {
		t.Fatalf("entity_tags add: %d %s", p.Status, p.Raw)
	}
	if u := e.Do("PATCH", apitest.Path(cid, fmt.Sprintf("/locations/%d", l1)), e.Admin, map[string]any{"tags": []int64{open}}); u.Status != 200 {
		t.Fatalf("retag: %d %s", u.Status, u.Raw)
	}
	check("retagged", expect{
		admin: map[int64]string{open: apitest.WantTagMembers(4, e1, e2, e3, e4), secret: apitest.WantTagMembers(2, e3, e4)},
		other: map[int64]string{open: apitest.WantTagMembers(4, e1, e2, e3, e4)},
	})
	// The third goes to the trash and comes back.
	if d := e.Do("DELETE", apitest.Path(cid, fmt.Sprintf("/locations/%d", l3)), e.Admin, nil); d.Status != 200 {
		t.Fatalf("trash: %d %s", d.Status, d.Raw)
	}
	check("trashed", expect{
		admin: map[int64]string{open: apitest.WantTagMembers(3, e1, e2, e4), secret: apitest.WantTagMembers(1, e4)},
		other: map[int64]string{open: apitest.WantTagMembers(3, e1, e2, e4)},
	})
	if err := e.Store.RestoreEntity(t.Context(), cid, e3, e.AdminID); err != nil {
		t.Fatalf("restore: %v", err)
	}
	check("restored", expect{
		admin: map[int64]string{open: apitest.WantTagMembers(4, e1, e2, e3, e4), secret: apitest.WantTagMembers(2, e3, e4)},
		other: map[int64]string{open: apitest.WantTagMembers(4, e1, e2, e3, e4)},
	})
	// The secret tag turns public: its pack follows; then it is deleted and its pack goes.
	if u := e.Do("PATCH", tagPath(cid, secret), e.Admin, map[string]any{"is_private": false}); u.Status != 200 {
		t.Fatalf("tag public: %d %s", u.Status, u.Raw)
	}
	check("tag public", expect{
		admin: map[int64]string{open: apitest.WantTagMembers(4, e1, e2, e3, e4), secret: apitest.WantTagMembers(2, e3, e4)},
		other: map[int64]string{open: apitest.WantTagMembers(4, e1, e2, e3, e4), secret: apitest.WantTagMembers(2, e3, e4)},
	})
	if d := e.Do("DELETE", tagPath(cid, open), e.Admin, nil); d.Status != 200 {
		t.Fatalf("tag delete: %d %s", d.Status, d.Raw)
	}
	if u := e.Do("PATCH", tagPath(cid, secret), e.Admin, map[string]any{"is_private": true}); u.Status != 200 {
		t.Fatalf("tag private: %d %s", u.Status, u.Raw)
	}
	check("tag deleted", expect{admin: map[int64]string{secret: apitest.WantTagMembers(2, e3, e4)}, other: map[int64]string{}})
	// Adding a deleted tag is refused and changes nothing.
	if r := e.Do("POST", apitest.Path(cid, fmt.Sprintf("/entities/%d/entity_tags", e2)), e.Admin, map[string]any{"tag_id": open}); r.Status != 422 {
		t.Fatalf("deleted tag: %d %s", r.Status, r.Raw)
	}
	check("refused", expect{admin: map[int64]string{secret: apitest.WantTagMembers(2, e3, e4)}, other: map[int64]string{}})
}

// TestTagListEntitiesRoundTrips: a tags list page reads its tags' member packs in one more
// round trip (one item per row), projected for non-admins; a show reads its pack with the
// record. Neither grows with the members.
func TestTagListEntitiesRoundTrips(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, withEverything)
	cid := e.Campaign
	var ids []int64
	for i := range 12 {
		ids = append(ids, create(t, e, cid, e.Admin, map[string]any{"name": fmt.Sprintf("T%d", i)}))
	}
	for i := range 30 { // every location carries three of the tags
		tags := []int64{ids[i%12], ids[(i+1)%12], ids[(i+2)%12]}
		if r := e.Do("POST", apitest.Path(cid, "/locations"), e.Admin, map[string]any{"name": fmt.Sprintf("L%d", i), "tags": tags, "is_private": i%4 == 0}); r.Status != 200 {
			t.Fatalf("location: %d %s", r.Status, r.Raw)
		}
	}
	for _, who := range []struct{ name, token string }{{"admin", e.Admin}, {"member", e.Member}} {
		for _, c := range []struct {
			name               string
			path               string
			calls, ahead, rows int64
		}{
			// access (read ahead: campaign, membership, the range's counter), the range, the packs
			{"list page", "/tags?limit=10", 3, 3, 10},
			// access (read ahead with the home and its public copy), the pack
			{"show", fmt.Sprintf("/tags/%d", ids[0]), 2, 4, 1},
		} {
			t.Run(who.name+" "+c.name, func(t *testing.T) {
				e.Counter.Reset()
				r := e.Do("GET", apitest.Path(cid, c.path), who.token, nil)
				if r.Status != 200 {
					t.Fatalf("%d %s", r.Status, r.Raw)
				}
				if n := e.Counter.N(); n != c.calls {
					t.Errorf("%d DynamoDB calls, want %d", n, c.calls)
				}
				// BatchGets: the access read's items and one pack per row.
				if got := e.Counter.Fetched(); got != c.ahead+c.rows {
					t.Errorf("%d items fetched, want %d", got, c.ahead+c.rows)
				}
				if got := e.Counter.Scanned(); got > c.rows+1 {
					t.Errorf("%d items scanned, want at most %d", got, c.rows+1)
				}
			})
		}
	}
}

// TestTwentyTagsFitOneWrite: a record with the most tags (20) flips its privacy both ways,
// goes to the trash and comes back, each in one transaction within the 100-item budget (the
// pack update is each tag's check), the packs exact after each.
func TestTwentyTagsFitOneWrite(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, withEverything)
	cid := e.Campaign
	var ids []int64
	for i := range 20 {
		ids = append(ids, create(t, e, cid, e.Admin, map[string]any{"name": fmt.Sprintf("T%d", i), "is_private": i%2 == 0}))
	}
	r := e.Do("POST", apitest.Path(cid, "/locations"), e.Admin, map[string]any{"name": "Many", "tags": ids})
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	lid, eid := int64(r.Data()["id"].(float64)), int64(r.Data()["entity_id"].(float64))
	path := apitest.Path(cid, fmt.Sprintf("/locations/%d", lid))
	count := func(step string, token string, want int) {
		t.Helper()
		audit(t, e, cid)
		l := e.Do("GET", apitest.Path(cid, "/tags?limit=100"), token, nil)
		n := 0
		for _, row := range l.List() {
			n += int(row.(map[string]any)["entities_count"].(float64))
		}
		if l.Status != 200 || n != want {
			t.Fatalf("%s: %d members over the tags, want %d (%d %s)", step, n, want, l.Status, l.Raw)
		}
	}
	count("created", e.Admin, 20)
	count("created, member", e.Member, 10)
	for _, private := range []bool{true, false, true} {
		if u := e.Do("PATCH", path, e.Admin, map[string]any{"is_private": private}); u.Status != 200 {
			t.Fatalf("private %v: %d %s", private, u.Status, u.Raw)
		}
		want := 10
		if private {
			want = 0
		}
		count(fmt.Sprint("private ", private), e.Member, want)
		count(fmt.Sprint("private ", private, ", admin"), e.Admin, 20)
	}
	if d := e.Do("DELETE", path, e.Admin, nil); d.Status != 200 {
		t.Fatalf("trash: %d %s", d.Status, d.Raw)
	}
	count("trashed", e.Admin, 0)
	if err := e.Store.RestoreEntity(t.Context(), cid, eid, e.AdminID); err != nil {
		t.Fatalf("restore: %v", err)
	}
	count("restored", e.Admin, 20)
}
