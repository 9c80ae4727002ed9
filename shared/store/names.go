package store

import (
	"context"
	"sort"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Name shards: every entity's kind, child id, privacy and lower-case name, 400 entities to an
// item (NAMES#<eid/400> in the campaign partition), kept in the owner record's transaction. A
// search or a ?name= filter reads the shards (about 30 bytes an entity) instead of every record
// of every kind: its cost is the bytes of the campaign's names, never its records'. Each entity
// is one attribute `e<eid>` = "<kind>#<child id>#<0|1 private>#<lower-case name>", set and
// removed with SET and REMOVE; 400 names of 191 characters (4 bytes each at most) stay under
// 320 KB.
// Any owner kind (layout.KindSpec) writes its shard entry through createOwner, updateOwner and
// deleteOwner: a new kind adds nothing here.

// setName writes entity eid's shard entry in the transaction.
func (b *txBuilder) setName(cid, eid int64, kind string, childID int64, private bool, name string) {
	k := layout.NamesKey(cid, eid)
	b.update(b.s.table.Update("pk", k.PK).Range("sk", k.SK).Set(layout.NameAttr(eid), layout.NameValue(kind, childID, private, name)))
}

// removeName removes entity eid's shard entry in the transaction.
func (b *txBuilder) removeName(cid, eid int64) {
	k := layout.NamesKey(cid, eid)
	b.update(b.s.table.Update("pk", k.PK).Range("sk", k.SK).Remove(layout.NameAttr(eid)))
}

// readNames reads every name shard of campaign cid (one Query, strongly consistent, paged by
// DynamoDB past 1 MB), the entries sorted by entity id.
func (s *Store) readNames(ctx context.Context, cid int64) ([]layout.NameEntry, error) {
	var items []dynamo.Item
	err := s.table.Get("pk", layout.CampaignPK(cid)).Range("sk", dynamo.BeginsWith, layout.NamesPrefix).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, layout.Wrap(err)
	}
	var out []layout.NameEntry
	for _, it := range items {
		out = append(out, layout.NameEntries(it)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].EntityID < out[j].EntityID })
	return out, nil
}

// matchNames keeps the entries of kinds (all kinds Lorekeep serves when empty) that the reader
// may see (private ones for admins only) and that match.
func matchNames(all []layout.NameEntry, kinds []string, admin bool, match func(nameLC string) bool) []layout.NameEntry {
	var out []layout.NameEntry
	for _, e := range all {
		if e.IsPrivate && !admin {
			continue
		}
		if len(kinds) > 0 && !containsString(kinds, e.Kind) {
			continue
		}
		if _, served := domain.ModuleOf(e.Kind); !served {
			continue
		}
		if match(e.NameLC) {
			out = append(out, e)
		}
	}
	return out
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// onlyName reports whether f filters on the name alone (the shards answer it by themselves).
func onlyName(f domain.Filter) bool {
	return len(f.Name) > 0 && len(f.Type) == 0 && f.IsPrivate == nil && len(f.Tags) == 0 && f.TagsMatch == domain.TagsAll &&
		f.CreatedBy == nil && f.UpdatedBy == nil && f.UpdatedAfter == nil && f.ParentLocationID == nil && f.ParentEntityID == nil && !f.None &&
		len(f.Fields) == 0 && len(f.Equal) == 0 && len(f.Differ) == 0 && len(f.Refs) == 0
}

// termsMatch is Kanka's term language on a lower-case name: every term must hold.
func termsMatch(terms []domain.Term) func(string) bool {
	return func(name string) bool {
		for _, t := range terms {
			if !t.Match(name) {
				return false
			}
		}
		return true
	}
}

// Search is Kanka's search of campaign cid: the entities of every served kind the reader may
// see whose name contains term (case-insensitive, every character literal), one page by entity
// id. Three round trips with the access: the shards' Query, then the page's entity items in one
// BatchGetItem.
func (s *Store) Search(ctx context.Context, cid int64, term string, admin bool, p domain.PageRequest) (domain.Page[domain.Entity], error) {
	term = strings.ToLower(term)
	return s.entitiesMatching(ctx, cid, nil, admin, func(name string) bool { return strings.Contains(name, term) }, p)
}

// listByName is a ?name= list of one owner kind served from the shards: the matching records the
// reader may see, by id, one page of them read from the reader's range (home for admins,
// public copy for the others) in one BatchGetItem. Three round trips with the access.
func listByName[I any, T any](ctx context.Context, s *Store, cid int64, k layout.KindSpec, terms []domain.Term, admin bool, p domain.PageRequest, record func(I) T) (domain.Page[T], error) {
	all, err := s.readNames(ctx, cid)
	if err != nil {
		return domain.Page[T]{}, err
	}
	hits := matchNames(all, []string{k.EntityType}, admin, termsMatch(terms))
	sort.Slice(hits, func(i, j int) bool { return hits[i].ChildID < hits[j].ChildID })
	page := domain.PageOf(hits, p, func(e *layout.NameEntry) int64 { return e.ChildID })
	sk := func(id int64) string { return layout.RecordSK(k.Prefix, id) }
	if !admin {
		sk = func(id int64) string { return layout.PublicCopy + layout.RecordSK(k.Prefix, id) }
	}
	keys := make([]layout.ItemKey, len(page.Items))
	for i, e := range page.Items {
		keys[i] = layout.ItemKey{PK: layout.CampaignPK(cid), SK: sk(e.ChildID)}
	}
	items, err := s.batchGet(ctx, true, keys...)
	if err != nil {
		return domain.Page[T]{}, err
	}
	byID := map[int64]dynamo.Item{}
	for _, it := range items {
		var id int64
		_ = dynamo.Unmarshal(it["id"], &id)
		byID[id] = it
	}
	out := domain.Page[T]{Items: []T{}, Total: page.Total, Next: page.Next}
	for i, e := range page.Items {
		raw, ok := byID[e.ChildID]
		if !ok {
			continue // deleted between the shards' read and this one
		}
		var it I
		if err := dynamo.UnmarshalItem(raw, &it); err != nil {
			return out, err
		}
		out.Items = append(out.Items, record(it))
		out.Cursors = append(out.Cursors, page.Cursors[i])
	}
	return out, nil
}

// entitiesMatching is one page, by entity id, of the entities of kinds (every served kind when
// empty) the reader may see whose lower-case name matches: the shards, then the page's entity
// items in one BatchGetItem.
func (s *Store) entitiesMatching(ctx context.Context, cid int64, kinds []string, admin bool, match func(string) bool, p domain.PageRequest) (domain.Page[domain.Entity], error) {
	all, err := s.readNames(ctx, cid)
	if err != nil {
		return domain.Page[domain.Entity]{}, err
	}
	hits := matchNames(all, kinds, admin, match)
	page := domain.PageOf(hits, p, func(e *layout.NameEntry) int64 { return e.EntityID })
	ids := make([]int64, len(page.Items))
	for i, e := range page.Items {
		ids[i] = e.EntityID
	}
	got, err := getRecords(ctx, s, cid, layout.EntityPrefix, ids, true, func(it layout.EntityItem) (int64, *domain.Entity) { return it.ID, it.Entity() })
	if err != nil {
		return domain.Page[domain.Entity]{}, err
	}
	out := domain.Page[domain.Entity]{Items: []domain.Entity{}, Total: page.Total, Next: page.Next}
	for i, id := range ids {
		if e := got[id]; e != nil && (admin || !e.IsPrivate) {
			out.Items = append(out.Items, *e)
			out.Cursors = append(out.Cursors, page.Cursors[i])
		}
	}
	return out, nil
}
