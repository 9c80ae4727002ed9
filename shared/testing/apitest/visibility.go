package apitest

import (
	"fmt"
	"testing"
)

// Family is what the visibility matrix needs of a family of entity children (events, notes).
type Family struct {
	// Entity makes a visible entity in campaign cid and returns its id.
	Entity func(t *testing.T, cid int64) int64
	// Collection is the path of an entity's records.
	Collection func(cid, eid int64) string
	// Body is a valid create body with the given visibility.
	Body func(visibility string) map[string]any
	// Exists reads the store: is record id still there?
	Exists func(cid, eid, id int64) bool
}

// VisibilityMatrix checks, for every visibility and every kind of caller, exactly the rule's
// answer on list, read, update and delete, and that refused writes change nothing. The
// expectations are spelled out here, not derived from the code under test.
func VisibilityMatrix(t *testing.T, e *Env, f Family) {
	type caller struct{ name, token string }
	type scenario struct {
		campaign int64
		creator  string
		callers  []caller
		sees     map[string][]string // visibility -> callers who see it
		writers  []string            // callers whose role may write
	}
	scenarios := map[string]scenario{
		"member creates in a private campaign": {
			campaign: e.Campaign, creator: e.Member,
			callers: []caller{{"creator", e.Member}, {"other member", e.Member2}, {"viewer", e.Viewer}, {"admin", e.Admin}, {"non-member", e.Outsider}},
			sees: map[string][]string{
				"all":        {"creator", "other member", "viewer", "admin"},
				"member":     {"creator", "other member", "viewer", "admin"},
				"admin":      {"admin"},
				"self":       {"creator"},
				"self-admin": {"creator", "admin"},
			},
			writers: []string{"creator", "other member", "admin"},
		},
		"admin creates in a public campaign": {
			campaign: e.PublicCampaign, creator: e.Admin,
			callers: []caller{{"creator", e.Admin}, {"other admin", e.Admin2}, {"member", e.Member}, {"viewer", e.Viewer}, {"public reader", e.Outsider}},
			sees: map[string][]string{
				"all":        {"creator", "other admin", "member", "viewer", "public reader"},
				"member":     {"creator", "other admin", "member", "viewer"},
				"admin":      {"creator", "other admin"},
				"self":       {"creator"},
				"self-admin": {"creator", "other admin"},
			},
			writers: []string{"creator", "other admin", "member"},
		},
	}
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			eid := f.Entity(t, sc.campaign)
			for _, vis := range []string{"all", "member", "admin", "self", "self-admin"} {
				for _, c := range sc.callers {
					t.Run(vis+"/"+c.name, func(t *testing.T) {
						created := e.Do("POST", f.Collection(sc.campaign, eid), sc.creator, f.Body(vis))
						if created.Status != 200 {
							t.Fatalf("create: %d %s", created.Status, created.Raw)
						}
						id := int64(created.Data()["id"].(float64))
						one := fmt.Sprintf("%s/%d", f.Collection(sc.campaign, eid), id)
						sees, canWrite := has(sc.sees[vis], c.name), has(sc.writers, c.name)
						readWant, writeWant := 404, 404
						switch {
						case c.name == "non-member":
						case !canWrite:
							writeWant = 403
							if sees {
								readWant = 200
							}
						case sees:
							readWant, writeWant = 200, 200
						}
						list := e.Do("GET", f.Collection(sc.campaign, eid), c.token, nil)
						listed := false
						for _, it := range list.List() {
							listed = listed || it.(map[string]any)["id"] == float64(id)
						}
						if c.name == "non-member" {
							if list.Status != 404 {
								t.Errorf("list: %d, want 404", list.Status)
							}
						} else if listed != sees {
							t.Errorf("listed %v, want %v", listed, sees)
						}
						if r := e.Do("GET", one, c.token, nil); r.Status != readWant {
							t.Errorf("read: %d, want %d", r.Status, readWant)
						}
						if r := e.Do("PATCH", one, c.token, map[string]any{"name": "Changed"}); r.Status != writeWant {
							t.Errorf("update: %d, want %d", r.Status, writeWant)
						}
						if writeWant != 200 {
							if r := e.Do("GET", one, sc.creator, nil); vis != "admin" && (r.Status != 200 || r.Data()["name"] == "Changed") {
								t.Errorf("a refused update changed the record: %d %s", r.Status, r.Raw)
							}
						}
						if r := e.Do("DELETE", one, c.token, nil); r.Status != writeWant {
							t.Errorf("delete: %d, want %d", r.Status, writeWant)
						}
						if exists := f.Exists(sc.campaign, eid, id); exists != (writeWant != 200) {
							t.Errorf("stored after delete %v: %v", writeWant, exists)
						}
					})
				}
			}
		})
	}
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
