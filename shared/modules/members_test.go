package modules_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lorekeep/shared/testing/apitest"
)

// Organisation members: written through the organisation's sub-resource as the character's
// memberships, answered by the organisation (members[], paged organisation_members) and by the
// character (related=1 organisations.data), kept exact through either record's privacy, trash
// and restore; bad members are 422s naming the field.
func TestOrganisationMembers(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, register)
	org := create(t, e, "/organisations", e.Admin, map[string]any{"name": "Guild"})
	orgID := num(org["id"])
	a := create(t, e, "/characters", e.Admin, map[string]any{"name": "A"})
	b := create(t, e, "/characters", e.Admin, map[string]any{"name": "B", "is_private": true})
	c := create(t, e, "/characters", e.Member, map[string]any{"name": "C"})
	members := apitest.Path(e.Campaign, fmt.Sprintf("/organisations/%d/organisation_members", orgID))
	one := func(m map[string]any) string { return fmt.Sprintf("%s/%d", members, num(m["entity_id"])) }

	r := e.Do("POST", members, e.Admin, map[string]any{"character_id": num(a["id"]), "role": "Leader", "pin_id": 2})
	if r.Status != 200 || num(r.Data()["id"]) != num(a["entity_id"]) || r.Data()["role"] != "Leader" || num(r.Data()["organisation_id"]) != orgID ||
		num(r.Data()["character_id"]) != num(a["id"]) || num(r.Data()["pin_id"]) != 2 || num(r.Data()["status_id"]) != 0 {
		t.Fatalf("create member: %d %s", r.Status, r.Raw)
	}
	for _, bad := range []struct {
		token string
		body  map[string]any
		field string
	}{
		{e.Member, map[string]any{"character_id": num(b["id"])}, "character_id"},       // a private character
		{e.Admin, map[string]any{"character_id": 999}, "character_id"},                 // unknown
		{e.Admin, map[string]any{"role": "x"}, "character_id"},                         // required
		{e.Admin, map[string]any{"character_id": num(a["id"])}, "character_id"},        // already a member
		{e.Admin, map[string]any{"character_id": num(c["id"]), "pin_id": 4}, "pin_id"}, // out of range
		{e.Admin, map[string]any{"character_id": num(c["id"]), "status_id": "x"}, "status_id"},
		{e.Admin, map[string]any{"character_id": num(c["id"]), "parent_id": 999}, "parent_id"},
		{e.Admin, map[string]any{"character_id": num(c["id"]), "role": string(make([]byte, 46))}, "role"},
	} {
		if r := e.Do("POST", members, bad.token, bad.body); r.Status != 422 || r.Errors()[bad.field] == nil {
			t.Errorf("%v: %d %s, want a 422 naming %s", bad.body, r.Status, r.Raw, bad.field)
		}
	}
	if r := e.Do("POST", members, e.Member, map[string]any{"character_id": num(c["id"]), "is_private": true}); r.Status != 403 {
		t.Fatalf("a member makes a membership private: %d %s", r.Status, r.Raw)
	}
	for _, tok := range []string{e.Outsider, e.Stranger} {
		if r := e.Do("GET", members, tok, nil); r.Status != 403 && r.Status != 404 {
			t.Fatalf("members to someone outside the campaign: %d %s", r.Status, r.Raw)
		}
		if r := e.Do("POST", members, tok, map[string]any{"character_id": num(c["id"])}); r.Status != 403 && r.Status != 404 {
			t.Fatalf("a member added from outside the campaign: %d %s", r.Status, r.Raw)
		}
	}
	if r := e.Do("POST", members, e.Viewer, map[string]any{"character_id": num(c["id"])}); r.Status != 403 {
		t.Fatalf("a viewer adds a member: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("POST", members, e.Admin, map[string]any{"character_id": num(b["id"]), "status_id": 1}); r.Status != 200 {
		t.Fatalf("a private character's membership: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("POST", members, e.Member, map[string]any{"character_id": num(c["id"]), "parent_id": num(a["entity_id"])}); r.Status != 200 || num(r.Data()["parent_id"]) != num(a["entity_id"]) {
		t.Fatalf("a member with a boss: %d %s", r.Status, r.Raw)
	}
	count := func(token string) int {
		t.Helper()
		r := e.Do("GET", members, token, nil)
		if r.Status != 200 {
			t.Fatalf("members: %d %s", r.Status, r.Raw)
		}
		return len(r.List())
	}
	if n, m := count(e.Admin), count(e.Member); n != 3 || m != 2 {
		t.Fatalf("members: admin %d, member %d (the private character's hidden)", n, m)
	}
	if o := show(t, e, fmt.Sprintf("/organisations/%d", orgID), e.Member); len(o["members"].([]any)) != 2 {
		t.Fatalf("the organisation's members: %v", o["members"])
	}
	if r := e.Do("GET", members+"?limit=1", e.Admin, nil); len(r.List()) != 1 || r.Body["links"].(map[string]any)["next"] == nil {
		t.Fatalf("paged: %s", r.Raw)
	}
	rel := show(t, e, fmt.Sprintf("/characters/%d?related=1", num(a["id"])), e.Member)
	data := rel["organisations"].(map[string]any)["data"].([]any)
	if len(data) != 1 || num(data[0].(map[string]any)["organisation_id"]) != orgID || data[0].(map[string]any)["role"] != "Leader" {
		t.Fatalf("the character's memberships: %v", rel["organisations"])
	}
	// Update: role and status; the character cannot change.
	if r := e.Do("PATCH", one(a), e.Member, map[string]any{"role": "Former", "status_id": 1}); r.Status != 200 || r.Data()["role"] != "Former" || num(r.Data()["pin_id"]) != 2 {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("PATCH", one(a), e.Admin, map[string]any{"character_id": num(c["id"])}); r.Status != 422 || r.Errors()["character_id"] == nil {
		t.Fatalf("moving a member: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", one(b), e.Member, nil); r.Status != 404 {
		t.Fatalf("a hidden member shown: %d", r.Status)
	}
	// The character trashed: gone from the members; restored: back.
	if r := e.Do("DELETE", apitest.Path(e.Campaign, fmt.Sprintf("/characters/%d", num(c["id"]))), e.Admin, nil); r.Status != 200 {
		t.Fatalf("trash: %d", r.Status)
	}
	if n := count(e.Admin); n != 2 {
		t.Fatalf("members with a trashed character: %d", n)
	}
	if r := e.Do("POST", apitest.Path(e.Campaign, "/recover"), e.Admin, map[string]any{"entities": []int64{num(c["entity_id"])}}); r.Status != 200 {
		t.Fatalf("recover: %d %s", r.Status, r.Raw)
	}
	if n := count(e.Admin); n != 3 {
		t.Fatalf("members after the restore: %d", n)
	}
	// The organisation made private: the character's membership hidden from members.
	if r := e.Do("PATCH", apitest.Path(e.Campaign, fmt.Sprintf("/organisations/%d", orgID)), e.Admin, map[string]any{"is_private": true}); r.Status != 200 {
		t.Fatalf("org private: %d", r.Status)
	}
	rel = show(t, e, fmt.Sprintf("/characters/%d?related=1", num(a["id"])), e.Member)
	if data := rel["organisations"].(map[string]any)["data"].([]any); len(data) != 0 {
		t.Fatalf("a private organisation's membership shown: %v", data)
	}
	if r := e.Do("GET", members, e.Member, nil); r.Status != 404 {
		t.Fatalf("a private organisation's members: %d", r.Status)
	}
	// The boss removed: its subordinates keep no boss.
	if r := e.Do("DELETE", one(a), e.Admin, nil); r.Status != 200 {
		t.Fatalf("delete member: %d %s", r.Status, r.Raw)
	}
	if r := e.Do("GET", one(c), e.Admin, nil); r.Status != 200 || r.Data()["parent_id"] != nil {
		t.Fatalf("the subordinate after its boss went: %d %s", r.Status, r.Raw)
	}
	if n := count(e.Admin); n != 2 {
		t.Fatalf("members after a delete: %d", n)
	}
	audit(t, e, e.Campaign)
}
