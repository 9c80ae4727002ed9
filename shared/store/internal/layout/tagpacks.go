package layout

import (
	"slices"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// TagPackCap is how many ids of one class a pack holds: a tag's `entities` answers at most
// domain.MaxTagEntities, the smallest first, and those are among each class's smallest.
// (A variable: tests lower it to cross it with a few members.)
var TagPackCap = domain.MaxTagEntities

type TagPack struct {
	PK        string  `dynamo:"pk"`
	SK        string  `dynamo:"sk"`
	A         []int64 `dynamo:"a,set,omitempty"`
	P         []int64 `dynamo:"p,set,omitempty"`
	NA        int     `dynamo:"na"`
	NP        int     `dynamo:"np"`
	V         int64   `dynamo:"v"`
	IsPrivate bool    `dynamo:"is_private"`
}

func TagPackKey(cid, tid int64) ItemKey { return ItemKey{ChildPK(cid, TagPrefix, tid), TagPackSK} }

// class is the ids and count of members of class c ("a" private records, "p" the others).
func (p *TagPack) Class(c string) (*[]int64, *int) {
	if c == "a" {
		return &p.A, &p.NA
	}
	return &p.P, &p.NP
}

func MemberClass(private bool) string {
	if private {
		return "a"
	}
	return "p"
}

// PackTally rebuilds every tag's pack from the items of a whole-table scan (the migration's
// recount): tag homes give the packs and their privacy, TM# items their members.
type PackTally struct {
	Tags    map[string]bool // tag partition: the tag's is_private
	Members map[string]*TagPack
	Old     map[string]bool // partitions holding a pack
}

func NewPackTally() *PackTally {
	return &PackTally{Tags: map[string]bool{}, Members: map[string]*TagPack{}, Old: map[string]bool{}}
}

func (t *PackTally) Add(pk, sk string, private bool, eid int64) {
	switch {
	case sk == TagPackSK:
		t.Old[pk] = true
	case strings.HasPrefix(sk, TagMemberPrefix) && len(sk) > len(TagMemberPrefix):
		p := t.Members[pk]
		if p == nil {
			p = &TagPack{}
			t.Members[pk] = p
		}
		c := "p"
		if sk[len(TagMemberPrefix)] == 'A' {
			c = "a"
		}
		ids, n := p.Class(c)
		*ids = append(*ids, eid)
		*n++
		if len(*ids) > 4*TagPackCap { // keep memory bounded by the packs, not the members
			slices.Sort(*ids)
			*ids = (*ids)[:TagPackCap]
		}
	case strings.HasPrefix(pk, CampaignPrefix) && !strings.Contains(pk[len(CampaignPrefix):], "#") && strings.HasPrefix(sk, TagPrefix+"#"):
		t.Tags[pk+"#"+sk] = private
	}
}

// items are the packs to put (whole) and the stale ones to delete (their tag is gone).
func (t *PackTally) Items() ([]any, []dynamo.Keyed) {
	var puts []any
	for pk, private := range t.Tags {
		p := TagPack{}
		if m := t.Members[pk]; m != nil {
			p = *m
		}
		for _, c := range []string{"a", "p"} {
			ids, _ := p.Class(c)
			slices.Sort(*ids)
			*ids = (*ids)[:min(len(*ids), TagPackCap)]
		}
		p.PK, p.SK, p.IsPrivate = pk, TagPackSK, private
		puts = append(puts, p)
	}
	var dels []dynamo.Keyed
	for pk := range t.Old {
		if _, ok := t.Tags[pk]; !ok {
			dels = append(dels, dynamo.Keys{pk, TagPackSK})
		}
	}
	return puts, dels
}
