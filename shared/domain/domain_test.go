package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

func TestParseSyncTimeAcceptsKankaSpellings(t *testing.T) {
	t.Parallel()
	want := time.Date(2019, 3, 21, 19, 17, 42, 207577000, time.UTC)
	for _, s := range []string{
		"2019-03-21T19:17:42.207577Z",
		"2019-03-21T19:17:42.207577+00:00",
		"2019-03-21T20:17:42.207577+01:00",
		"2019-03-21 19:17:42.207577",
		"2019-03-21T19:17:42.207577Z[UTC]",
		"2019-03-21T19:17:42.207577Z?related=1",
		"2019-03-21T19:17:42.207577000Z&page=2" + strings.Repeat("x", 200),
		" 2019-03-21 19:17:42.207577garbage",
	} {
		got, ok := ParseSyncTime(s)
		if !ok || !got.Equal(want) {
			t.Errorf("%q: %v %v", s, got, ok)
		}
	}
	for _, s := range []string{"last tuesday", "0", "", "2019-03", strings.Repeat("9", 10000)} {
		if _, ok := ParseSyncTime(s); ok {
			t.Errorf("%q: accepted nonsense", s)
		}
	}
	if got, ok := ParseSyncTime("2019-03-21Tnoon"); !ok || !got.Equal(time.Date(2019, 3, 21, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date prefix: %v %v", got, ok)
	}
	if s := FormatTime(want); s != "2019-03-21T19:17:42.207577Z" {
		t.Errorf("format %q", s)
	}
}

func TestReaderCoercesAndNamesFailures(t *testing.T) {
	t.Parallel()
	in := Input{
		"int_str": "12", "int_num": json.Number("7"), "int_float": json.Number("12.0"), "int_frac": json.Number("1.5"),
		"int_huge": json.Number("1e30"), "bool_str": "TRUE", "bool_num": json.Number("0"), "bool_bad": "yes",
		"form_list": []string{"3", "4"}, "form_one": []string{"x"}, "str_num": json.Number("5"), "nul": nil,
		"bad_utf8": "a\xffb",
	}
	r := NewReader(in)
	cases := []struct {
		got, want any
	}{
		{r.Int("int_str", 0, 100).Value, int64(12)},
		{r.Int("int_num", 0, 100).Value, int64(7)},
		{r.Int("int_float", 0, 100).Value, int64(12)},
		{r.Bool("bool_str").Value, true},
		{r.Bool("bool_num").Present(), true},
		{r.IDs("form_list", 5).Value[1], int64(4)},
		{r.String("form_one", 10).Value, "x"},
		{r.String("nul", 10).Null, true},
		{r.String("absent", 10).Set, false},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %v, want %v", i, c.got, c.want)
		}
	}
	r.Int("int_frac", 0, 100)
	r.Int("int_huge", 0, MaxID)
	r.Bool("bool_bad")
	r.String("str_num", 10)
	r.String("bad_utf8", 10)
	r.Int("int_num", 10, 20)
	want := map[string]string{
		"int_frac": "The int frac must be an integer.",
		"int_huge": "The int huge must be an integer.",
		"bool_bad": "The bool bad field must be true or false.",
		"str_num":  "The str num must be a string.",
		"bad_utf8": "The bad utf8 must be valid UTF-8 text.",
		"int_num":  "The int num must be between 10 and 20.",
	}
	for f, msg := range want {
		if m := r.Errs.Messages(f); len(m) != 1 || m[0] != msg {
			t.Errorf("%s: %v, want %q", f, m, msg)
		}
	}
	if err := r.Err(); apperr.ErrorCode(err) != apperr.EInvalid || err.(*apperr.Error).Message != "The int frac must be an integer." {
		t.Errorf("first message: %v", err)
	}
}

func TestAccessRules(t *testing.T) {
	t.Parallel()
	private := &Campaign{ID: 1}
	public := &Campaign{ID: 2, IsPublic: true}
	if _, err := ResolveAccess(9, private, nil); !errors.Is(err, apperr.ErrNotFound) {
		t.Error("non-member entered a private campaign")
	}
	if _, err := ResolveAccess(9, nil, nil); !errors.Is(err, apperr.ErrNotFound) {
		t.Error("missing campaign")
	}
	reader, err := ResolveAccess(9, public, nil)
	if err != nil || reader.Role != RolePublic || reader.CanWrite() == nil || reader.IsMember() {
		t.Errorf("public reader: %+v %v", reader, err)
	}
	type who struct {
		name string
		a    Access
	}
	creator, other := int64(5), int64(6)
	people := []who{
		{"admin creator", Access{UserID: creator, Role: RoleAdmin}},
		{"admin", Access{UserID: other, Role: RoleAdmin}},
		{"member creator", Access{UserID: creator, Role: RoleMember}},
		{"member", Access{UserID: other, Role: RoleMember}},
		{"viewer", Access{UserID: other, Role: RoleViewer}},
		{"public reader", Access{UserID: other, Role: RolePublic}},
	}
	// Rows follow people's order.
	want := map[Visibility][]bool{
		VisibilityAll:       {true, true, true, true, true, true},
		VisibilityMember:    {true, true, true, true, true, false},
		VisibilityAdmin:     {true, true, false, false, false, false},
		VisibilitySelf:      {true, false, true, false, false, false},
		VisibilitySelfAdmin: {true, true, true, false, false, false},
	}
	for v, row := range want {
		for i, p := range people {
			if got := p.a.CanSeeVisibility(v, creator); got != row[i] {
				t.Errorf("%s sees %s: %v, want %v", p.name, v, got, row[i])
			}
		}
	}
	for in, out := range map[string]Visibility{"members": VisibilityMember, "admin-self": VisibilitySelfAdmin, "1": VisibilityAll, "2": VisibilityAdmin, "3": VisibilitySelfAdmin, "4": VisibilitySelf, "5": VisibilityMember} {
		if v, ok := ParseVisibility(in); !ok || v != out {
			t.Errorf("visibility %q: %q", in, v)
		}
	}
	if _, ok := ParseVisibility("everyone"); ok {
		t.Error("unknown visibility accepted")
	}
}
