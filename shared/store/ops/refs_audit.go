package ops

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// auditRefs checks the references between records of campaign cid (store/refs.go): every
// reference a home holds (live or in the trash) has its link in its target's partition, naming
// its referrer with its privacy and trash; every link has its reference; each reference is
// placed by its target (hidden while the target is in the trash, private as the target's
// links are placed) and names a target that exists; a public copy holds the home's public
// references, and every item's index (ref_keys) is its references'. References touched by a
// cascade still pending (busy: the entities with a sweeper marker) are left out.
func auditRefs(cid int64, items []dynamo.Item, tr *trashState, busy map[int64]bool) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	type home struct {
		key     layout.ItemKey
		kind    string
		id, eid int64
		private bool
		trashed bool
		refs    []layout.RefAttr
	}
	var homes []home
	public := map[layout.ItemKey][]layout.RefAttr{}
	links := map[layout.ItemKey]layout.RefLink{}
	entities := map[int64]bool{} // live entities: links_private
	campaign := layout.CampaignPK(cid)
	for _, it := range items {
		k := layout.KeyOfItem(it)
		if strings.HasPrefix(k.SK, layout.RefByPrefix) {
			var l layout.RefLink
			_ = dynamo.UnmarshalItem(it, &l)
			links[k] = l
			continue
		}
		if k.PK != campaign {
			continue
		}
		var h struct {
			ID        int64            `dynamo:"id"`
			EntityID  int64            `dynamo:"entity_id"`
			IsPrivate bool             `dynamo:"is_private"`
			Links     bool             `dynamo:"links_private"`
			Refs      []layout.RefAttr `dynamo:"refs"`
			Keys      []string         `dynamo:"ref_keys,set"`
		}
		_ = dynamo.UnmarshalItem(it, &h)
		sk := strings.TrimPrefix(k.SK, layout.TrashedPrefix)
		kind, _, _ := strings.Cut(strings.TrimPrefix(sk, layout.PublicCopy), "#")
		if kind == layout.EntityPrefix {
			if sk == k.SK {
				entities[h.ID] = h.Links
			}
			continue
		}
		spec, ok := layout.KindOf(kind)
		if !ok || !spec.Owner {
			continue
		}
		if want := layout.RefKeysOf(h.Refs); !slices.Equal(sorted(want), sorted(h.Keys)) && sk == k.SK {
			report("%s %s: ref_keys %v, its references index %v", k.PK, k.SK, h.Keys, want)
		}
		switch {
		case strings.HasPrefix(k.SK, layout.PublicCopy):
			public[k] = h.Refs
		case len(h.Refs) > 0:
			homes = append(homes, home{key: k, kind: kind, id: h.ID, eid: h.EntityID, private: h.IsPrivate, trashed: sk != k.SK, refs: h.Refs})
		}
	}
	wanted := map[layout.ItemKey]bool{}
	for _, h := range homes {
		what := fmt.Sprintf("%s %d", strings.ToLower(h.kind), h.id)
		if !h.trashed && !h.private {
			pub := layout.ItemKey{PK: campaign, SK: layout.PublicCopy + layout.RecordSK(h.kind, h.id)}
			if got, want := public[pub], layout.PublicRefs(h.refs); !reflect.DeepEqual(got, want) {
				report("%s: its public copy holds references %+v, not %+v", what, got, want)
			}
		}
		for _, r := range h.refs {
			if r.EntityID == 0 {
				continue // a free row: no link
			}
			k := layout.RefLinkKey(cid, r.EntityID, h.eid, r.Field, r.Key)
			wanted[k] = true
			if busy[r.EntityID] || busy[h.eid] {
				continue
			}
			l, ok := links[k]
			switch {
			case !ok:
				report("%s: its reference %s to entity %d has no link", what, r.Field, r.EntityID)
			case l.Kind != h.kind || l.ID != h.id || l.EntityID != h.eid || l.Field != r.Field:
				report("%s: the link of its reference %s to entity %d names %s %d (entity %d)", what, r.Field, r.EntityID, l.Kind, l.ID, l.EntityID)
			case !h.trashed && l.FromPrivate != h.private:
				report("%s: the link of its reference %s to entity %d is placed private %v, the record %v", what, r.Field, r.EntityID, l.FromPrivate, h.private)
			}
			if ok && l.FromHidden != h.trashed {
				report("%s: the link of its reference %s to entity %d is hidden %v, the record trashed %v", what, r.Field, r.EntityID, l.FromHidden, h.trashed)
			}
			linksPrivate, live := entities[r.EntityID]
			switch {
			case live && r.Hidden:
				report("%s: its reference %s to live entity %d is hidden", what, r.Field, r.EntityID)
			case live && r.Private != linksPrivate:
				report("%s: its reference %s to entity %d is placed private %v, the entity %v", what, r.Field, r.EntityID, r.Private, linksPrivate)
			case !live && tr.entities[r.EntityID] && !r.Hidden:
				report("%s: its reference %s to trashed entity %d is shown", what, r.Field, r.EntityID)
			case !live && !tr.entities[r.EntityID]:
				report("%s: its reference %s names entity %d, which does not exist", what, r.Field, r.EntityID)
			}
		}
	}
	for k, l := range links {
		if !wanted[k] && !busy[l.EntityID] {
			report("reference link %s %s: %s %d holds no such reference", k.PK, k.SK, strings.ToLower(l.Kind), l.ID)
		}
	}
	return problems
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
