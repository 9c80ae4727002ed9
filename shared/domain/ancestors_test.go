package domain

import (
	"fmt"
	"testing"
)

func TestAncestorsStopAtWhatTheCallerMayNotSee(t *testing.T) {
	t.Parallel()
	p := func(id int64) *int64 { return &id }
	// 5 > 4 (private) > 3 > 2 > 1; 9 names a parent that is gone (0 link); 7 is not read yet.
	links := map[int64]AncestorLink{
		1: {ID: 1}, 2: {ID: 2, ParentID: p(1)}, 3: {ID: 3, ParentID: p(2)},
		4: {ID: 4, IsPrivate: true, ParentID: p(3)}, 5: {ID: 5, ParentID: p(4)},
		8: {ID: 8, ParentID: p(9)}, 9: {},
	}
	admin, member := Access{Role: RoleAdmin}, Access{Role: RoleMember}
	cases := []struct {
		parent  *int64
		a       Access
		want    string
		missing int64
	}{
		{nil, member, "[]", 0},
		{p(5), admin, "[5 4 3 2 1]", 0},
		{p(5), member, "[5]", 0},
		{p(4), member, "[]", 0},
		{p(3), member, "[3 2 1]", 0},
		{p(8), member, "[8]", 0},
		{p(7), admin, "[]", 7},
	}
	for _, c := range cases {
		ids, missing := Ancestors(c.parent, links, c.a)
		if fmt.Sprint(ids) != c.want || missing != c.missing {
			t.Errorf("from %v as %s: %v missing %d, want %s missing %d", c.parent, c.a.Role, ids, missing, c.want, c.missing)
		}
	}
}
