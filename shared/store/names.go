package store

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Name shards: every entity's kind, child id, privacy and lower-case name, 400 entities to an
// item (NAMES#<eid/400> in the campaign partition), kept in the owner record's transaction. A
// search or a ?name= filter reads the shards (about 30 bytes an entity) instead of every record
// of every kind: its cost is the bytes of the campaign's names, never its records'. Each entity
// is one attribute `e<eid>` = "<kind>#<child id>#<0|1 private>#<lower-case name>", set and
// removed with SET and REMOVE; 400 names of 191 characters (4 bytes each at most) stay under
// 320 KB.
// Any owner kind (kindSpec) writes its shard entry through createOwner, updateOwner and
// deleteOwner: a new kind adds nothing here.

// namesWidth is the number of entities (by entity id) one shard holds.
const namesWidth = 400

func nameAttr(eid int64) string { return "e" + strconv.FormatInt(eid, 10) }

// setName writes entity eid's shard entry in the transaction.
func (b *txBuilder) setName(cid, eid int64, kind string, childID int64, private bool, name string) {
	k := namesKey(cid, eid)
	b.update(b.s.table.Update("pk", k.pk).Range("sk", k.sk).Set(nameAttr(eid), nameValue(kind, childID, private, name)))
}

// nameValue is an entry's value: "<kind>#<child id>#<1 private, 0 not>#<lower-case name>", one
// string (a list would cost a type byte and a length per element).
func nameValue(kind string, childID int64, private bool, name string) string {
	p := "0"
	if private {
		p = "1"
	}
	return kind + "#" + strconv.FormatInt(childID, 10) + "#" + p + "#" + strings.ToLower(name)
}

// removeName removes entity eid's shard entry in the transaction.
func (b *txBuilder) removeName(cid, eid int64) {
	k := namesKey(cid, eid)
	b.update(b.s.table.Update("pk", k.pk).Range("sk", k.sk).Remove(nameAttr(eid)))
}

// NameEntry is one entity's entry of the name shards.
type NameEntry struct {
	EntityID  int64
	Kind      string
	ChildID   int64
	IsPrivate bool
	NameLC    string
}

// readNames reads every name shard of campaign cid (one Query, strongly consistent, paged by
// DynamoDB past 1 MB), the entries sorted by entity id.
func (s *Store) readNames(ctx context.Context, cid int64) ([]NameEntry, error) {
	var items []dynamo.Item
	err := s.table.Get("pk", campaignPK(cid)).Range("sk", dynamo.BeginsWith, namesPrefix).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, wrap(err)
	}
	var out []NameEntry
	for _, it := range items {
		out = append(out, nameEntries(it)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].EntityID < out[j].EntityID })
	return out, nil
}

// nameEntries decodes a shard item; attributes that are not well-formed entries are skipped.
func nameEntries(it dynamo.Item) []NameEntry {
	var out []NameEntry
	for attr, v := range it {
		if !strings.HasPrefix(attr, "e") {
			continue
		}
		eid, err := strconv.ParseInt(attr[1:], 10, 64)
		sv, ok := v.(*types.AttributeValueMemberS)
		if err != nil || !ok {
			continue
		}
		parts := strings.SplitN(sv.Value, "#", 4)
		if len(parts) != 4 {
			continue
		}
		childID, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			continue
		}
		out = append(out, NameEntry{EntityID: eid, Kind: parts[0], ChildID: childID, IsPrivate: parts[2] == "1", NameLC: parts[3]})
	}
	return out
}

// matchNames keeps the entries of kinds (all kinds Lorekeep serves when empty) that the reader
// may see (private ones for admins only) and that match.
func matchNames(all []NameEntry, kinds []string, admin bool, match func(nameLC string) bool) []NameEntry {
	var out []NameEntry
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
		f.CreatedBy == nil && f.UpdatedBy == nil && f.UpdatedAfter == nil && f.ParentLocationID == nil && f.ParentEntityID == nil && !f.None
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
func listByName[I any, T any](ctx context.Context, s *Store, cid int64, k kindSpec, terms []domain.Term, admin bool, p domain.PageRequest, record func(I) T) (domain.Page[T], error) {
	all, err := s.readNames(ctx, cid)
	if err != nil {
		return domain.Page[T]{}, err
	}
	hits := matchNames(all, []string{k.entityType}, admin, termsMatch(terms))
	sort.Slice(hits, func(i, j int) bool { return hits[i].ChildID < hits[j].ChildID })
	page := domain.PageOf(hits, p, func(e *NameEntry) int64 { return e.ChildID })
	sk := func(id int64) string { return recordSK(k.prefix, id) }
	if !admin {
		sk = func(id int64) string { return publicCopy + recordSK(k.prefix, id) }
	}
	keys := make([]dynamo.Keyed, len(page.Items))
	for i, e := range page.Items {
		keys[i] = dynamo.Keys{campaignPK(cid), sk(e.ChildID)}
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
	page := domain.PageOf(hits, p, func(e *NameEntry) int64 { return e.EntityID })
	ids := make([]int64, len(page.Items))
	for i, e := range page.Items {
		ids[i] = e.EntityID
	}
	got, err := getRecords(ctx, s, cid, entityPrefix, ids, true, func(it entityItem) (int64, *domain.Entity) { return it.ID, it.entity() })
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

// nameShards rebuilds the name shards from the entity homes a scan reads (the migration's
// recount): whole items, replacing whatever was there; shard items no entity fills are stale.
type nameShards struct {
	shards map[itemKey]dynamo.Item
	seen   map[itemKey]bool // shard items the scan met
}

// add takes one scanned item: an entity home becomes an entry, a shard item is noted.
func (n *nameShards) add(pk, sk string, id, cid int64, typ string, childID int64, private bool, name string) {
	if n.shards == nil {
		n.shards, n.seen = map[itemKey]dynamo.Item{}, map[itemKey]bool{}
	}
	if strings.HasPrefix(sk, namesPrefix) {
		n.seen[itemKey{pk, sk}] = true
		return
	}
	if sk != recordSK(entityPrefix, id) || pk != campaignPK(cid) {
		return
	}
	k := namesKey(cid, id)
	it := n.shards[k]
	if it == nil {
		it = dynamo.Item{"pk": attrS(k.pk), "sk": attrS(k.sk)}
		n.shards[k] = it
	}
	it[nameAttr(id)] = attrS(nameValue(typ, childID, private, name))
}

// items are the shards to put and the stale shard keys to delete.
func (n *nameShards) items() ([]any, []dynamo.Keyed) {
	var puts []any
	var stale []dynamo.Keyed
	for _, it := range n.shards {
		puts = append(puts, it)
	}
	for k := range n.seen {
		if n.shards[k] == nil {
			stale = append(stale, dynamo.Keys{k.pk, k.sk})
		}
	}
	return puts, stale
}
