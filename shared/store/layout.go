package store

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// Audience ranges (see the package doc). A record is written under its home key and copied, in
// the same transaction, into every list range of an audience that may see it regardless of who
// created it; each range has an exact counter, with per-bucket counts, kept in that transaction.

// bucketWidth is the id width of one bucket of a range counter: ?page=N starts its query at the
// bucket holding item (N-1)*limit and evaluates at most bucketWidth+limit items.
const bucketWidth = 100

// Audience classes of a list reader.
const (
	classAdmin  = "admin" // campaign admins
	classMember = "mem"   // members and viewers
	classPublic = "pub"   // readers of a public campaign who are not members
)

// slot is one item of a record: its key, and the counted range it belongs to.
type slot struct {
	pk, sk  string
	home    bool   // the item reads by id go to; writes are conditional on its version
	counter string // sk of the counter item (in pk) that counts the range; "" when not counted
	attr    string // attribute of the counter item holding the range's total
	id      int64
}

// listRange is one key range a reader lists: the items of partition pk whose sort keys are
// prefix+pad(id), counted by attr of counter item (pk, counter).
type listRange struct {
	pk, prefix, counter, attr string
}

func (r listRange) sk(id int64) string { return r.prefix + pad(id) }

// ownerSlots places a location or calendar: home KIND#id (the admins' range) and, when not
// private, PUB#KIND#id (everyone else's range).
func ownerSlots(kind string, cid, id int64, private bool) []slot {
	pk := campaignPK(cid)
	out := []slot{{pk: pk, sk: recordSK(kind, id), home: true, counter: counterSK(kind), attr: classAdmin, id: id}}
	if !private {
		out = append(out, slot{pk: pk, sk: publicCopy + recordSK(kind, id), counter: counterSK(kind), attr: classPublic, id: id})
	}
	return out
}

// ownerRanges are the ranges a reader of class lists for a location or calendar kind.
func ownerRanges(kind string, cid int64, admin bool) []listRange {
	pk := campaignPK(cid)
	if admin {
		return []listRange{{pk: pk, prefix: kind + "#", counter: counterSK(kind), attr: classAdmin}}
	}
	return []listRange{{pk: pk, prefix: publicCopy + kind + "#", counter: counterSK(kind), attr: classPublic}}
}

// childSlots places an entity note or event (kind NOTE or EVENT) of entity partition pk. The
// home is KIND#id (the admins' range), or SELF#KIND#id for a `self` record, which no shared
// range holds; the creator's own ranges hold copies.
func childSlots(kind, pk string, id, createdBy int64, v domain.Visibility, private bool) []slot {
	if v == "" {
		v = domain.VisibilityAll
	}
	cnt := counterSK(kind)
	own := ownCounterSK(kind, createdBy)
	var out []slot
	if v == domain.VisibilitySelf {
		out = append(out,
			slot{pk: pk, sk: selfHome + recordSK(kind, id), home: true, id: id},
			slot{pk: pk, sk: ownPrefix(kind, createdBy, "A") + pad(id), counter: own, attr: "A", id: id})
	} else {
		out = append(out, slot{pk: pk, sk: recordSK(kind, id), home: true, counter: cnt, attr: classAdmin, id: id})
	}
	if private {
		return out
	}
	switch v {
	case domain.VisibilityAll:
		out = append(out,
			slot{pk: pk, sk: memberCopy + recordSK(kind, id), counter: cnt, attr: classMember, id: id},
			slot{pk: pk, sk: publicCopy + recordSK(kind, id), counter: cnt, attr: classPublic, id: id})
	case domain.VisibilityMember:
		out = append(out, slot{pk: pk, sk: memberCopy + recordSK(kind, id), counter: cnt, attr: classMember, id: id})
	case domain.VisibilitySelf, domain.VisibilitySelfAdmin:
		out = append(out, slot{pk: pk, sk: ownPrefix(kind, createdBy, "R") + pad(id), counter: own, attr: "R", id: id})
	}
	return out
}

// childHomeSKs are the keys where the home of child id may be.
func childHomeSKs(kind string, id int64) []string {
	return []string{recordSK(kind, id), selfHome + recordSK(kind, id)}
}

// childRanges are the ranges reader a lists of an entity's notes or events: its class's range
// and its own range. The two are disjoint.
func childRanges(kind, pk string, a domain.Access) []listRange {
	cnt := counterSK(kind)
	own := ownCounterSK(kind, a.UserID)
	switch {
	case a.IsAdmin():
		return []listRange{{pk, kind + "#", cnt, classAdmin}, {pk, ownPrefix(kind, a.UserID, "A"), own, "A"}}
	case a.IsMember():
		return []listRange{{pk, memberCopy + kind + "#", cnt, classMember}, {pk, ownPrefix(kind, a.UserID, "R"), own, "R"}}
	}
	return []listRange{{pk, publicCopy + kind + "#", cnt, classPublic}, {pk, ownPrefix(kind, a.UserID, "R"), own, "R"}}
}

// txItems builds one or more transactions of at most maxTx items; counter deltas of the records
// written in one transaction are added in that transaction, one update per counter item.
const maxTx = 100

type counterKey struct{ pk, sk string }

type txBuilder struct {
	s      *Store
	tx     *dynamo.WriteTx
	n      int
	deltas map[counterKey]map[string]int
	parts  []budgetPart // the variable parts, for a write over the budget (overBudget)
	// reserved: items of a part too large to build (reserve)
	reserved int
	// needs maps the position of an existence check (need) to what its failure means.
	needs map[int]error
	// judges maps the position of a conditional update to what explains its failure (needUpdate).
	judges map[int]func(dynamo.Item) error
}

func (s *Store) newTx() *txBuilder {
	return &txBuilder{s: s, tx: s.db.WriteTx(), deltas: map[counterKey]map[string]int{}}
}

// size is the number of items the transaction writes, counter updates included.
func (b *txBuilder) size() int { return b.n + len(b.deltas) + b.reserved }

func (b *txBuilder) put(p *dynamo.Put)              { b.tx.Put(p); b.n++ }
func (b *txBuilder) del(d *dynamo.Delete)           { b.tx.Delete(d); b.n++ }
func (b *txBuilder) update(u *dynamo.Update)        { b.tx.Update(u); b.n++ }
func (b *txBuilder) check(c *dynamo.ConditionCheck) { b.tx.Check(c); b.n++ }

// need makes the transaction conditional on the item (pk, sk) existing. When that check is
// what cancels the transaction, the write depends on a record that is gone (or being
// deleted), which no retry can change: run answers gone instead of a conflict.
func (b *txBuilder) need(pk, sk string, gone error) {
	if b.needs == nil {
		b.needs = map[int]error{}
	}
	b.needs[b.n] = gone // items keep their order in the transaction: b.n is this check's index
	b.check(b.s.table.Check("pk", pk).Range("sk", sk).IfExists())
}

// failedNeed is the error of the first need whose check cancelled the transaction, or nil.
func (b *txBuilder) failedNeed(err error) error {
	var tce *types.TransactionCanceledException
	if len(b.needs) == 0 || !errors.As(err, &tce) {
		return nil
	}
	for i, r := range tce.CancellationReasons {
		if gone, ok := b.needs[i]; ok && r.Code != nil && *r.Code == "ConditionalCheckFailed" {
			return gone
		}
	}
	return nil
}

func (b *txBuilder) count(sl slot, d int) {
	if sl.counter != "" {
		b.addCount(sl.pk, sl.counter, sl.attr, sl.id, d)
	}
}

// run sends the transaction (see send): with the record of the request's Idempotency-Key, when
// one is due.
func (b *txBuilder) run(ctx context.Context) error {
	if err := b.overBudget(); err != nil {
		return err
	}
	items := b.n
	for k, deltas := range b.deltas {
		u := b.s.table.Update("pk", k.pk).Range("sk", k.sk)
		touched := false
		for attr, d := range deltas {
			if d != 0 {
				u = u.Add(attr, d)
				touched = true
			}
		}
		if touched {
			b.tx.Update(u)
			items++
		}
	}
	keyAt, body, err := b.keyedPut(ctx, items)
	if err != nil {
		return err
	}
	err = b.s.send(ctx, b.tx)
	if judged := b.judgedFailure(err); judged != nil {
		return judged
	}
	if gone := b.failedNeed(err); gone != nil {
		return gone
	}
	if keyAt >= 0 {
		if canceledAt(err, keyAt) {
			return domain.ErrKeyInUse // a concurrent request with the same key won
		}
		if err == nil {
			domain.KeyedWriteOf(ctx).Commit(body)
		}
	}
	return wrap(err)
}

// canceledAt reports whether err cancelled a transaction because the condition of its item i
// failed.
func canceledAt(err error, i int) bool {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || i >= len(tce.CancellationReasons) {
		return false
	}
	c := tce.CancellationReasons[i].Code
	return c != nil && *c == "ConditionalCheckFailed"
}

// place writes record item (already marshalled, home keys set) to the slots next, removing it
// from the slots of prev that next lacks, and counts the change. prevVersion 0 means a new
// record: the home must not exist. Otherwise the home's version must still be prevVersion.
func (b *txBuilder) place(item dynamo.Item, prev, next []slot, prevVersion int64) {
	has := func(sls []slot, sk string) bool {
		for _, s := range sls {
			if s.sk == sk {
				return true
			}
		}
		return false
	}
	prevHome := ""
	for _, sl := range prev {
		if sl.home {
			prevHome = sl.sk
		}
	}
	for _, sl := range next {
		it := copyItem(item, sl)
		put := b.s.table.Put(it)
		switch {
		case sl.home && prevVersion == 0:
			put = put.If("attribute_not_exists(pk)")
		case sl.home && prevHome == sl.sk:
			put = put.If("'version' = ?", prevVersion)
		case sl.home:
			put = put.If("attribute_not_exists(pk)")
		}
		b.put(put)
		if !has(prev, sl.sk) {
			b.count(sl, 1)
		}
	}
	for _, sl := range prev {
		if has(next, sl.sk) {
			continue
		}
		d := b.s.table.Delete("pk", sl.pk).Range("sk", sl.sk)
		if sl.home {
			d = d.If("'version' = ?", prevVersion)
		}
		b.del(d)
		b.count(sl, -1)
	}
}

// remove deletes every slot of a record (its home on condition of version, unless 0).
func (b *txBuilder) remove(sls []slot, version int64) {
	for _, sl := range sls {
		d := b.s.table.Delete("pk", sl.pk).Range("sk", sl.sk)
		if sl.home && version != 0 {
			d = d.If("'version' = ?", version)
		}
		b.del(d)
		b.count(sl, -1)
	}
}

// copyItem is item under sl's keys; copies carry no secondary-index keys, so an index lists
// every record once. A public copy is the non-admins' projection (layout 3): when the item says
// its parent is private (parentHidden, never stored), the copy has no parent_location_id.
func copyItem(item dynamo.Item, sl slot) dynamo.Item {
	out := make(dynamo.Item, len(item))
	for k, v := range item {
		out[k] = v
	}
	out["pk"] = &types.AttributeValueMemberS{Value: sl.pk}
	out["sk"] = &types.AttributeValueMemberS{Value: sl.sk}
	if !sl.home {
		delete(out, "gsi1pk")
		delete(out, "gsi1sk")
	}
	if h, ok := out[parentHidden].(*types.AttributeValueMemberBOOL); ok && h.Value && strings.HasPrefix(sl.sk, publicCopy) {
		for _, k := range kinds {
			if k.parentAttr != "" {
				delete(out, k.parentAttr)
			}
		}
	}
	if strings.HasPrefix(sl.sk, publicCopy) {
		if h, ok := out[locationHidden].(*types.AttributeValueMemberBOOL); ok && h.Value {
			delete(out, "location_id")
		}
		delete(out, locationHidden)
	}
	delete(out, parentHidden)
	if strings.HasPrefix(sl.sk, publicCopy) {
		projectTags(out)
	}
	return out
}

// parentHidden marks an item to place whose parent location is private: its public copy leaves
// the parent out (copyItem). Set by the location writers and the migration; never stored.
const parentHidden = "parent_hidden"

// locationHidden marks a map whose location was private when it was written: its public copy
// leaves location_id out (copyItem). Kept on the home, so every rewrite of the raw item (a
// parent's orphaning or adoption) places the copy alike.
const locationHidden = "location_hidden"

func marshal(v any) dynamo.Item {
	it, err := dynamo.MarshalItem(v)
	if err != nil {
		panic("store: marshal: " + err.Error()) // item types are fixed structs: a programming error
	}
	return it
}

// isCopy reports whether sk is a list copy rather than a home (migration and scans skip them).
func isCopy(sk string) bool {
	return strings.HasPrefix(sk, publicCopy) || strings.HasPrefix(sk, memberCopy) || strings.HasPrefix(sk, ownCopy)
}

// countedRange maps an item's sort key to the range counter that counts it (the inverse of the
// slots above): the migration recounts with it, and Audit checks every counter with it.
func countedRange(sk string) (counter, attr string, id int64, ok bool) {
	parts := strings.Split(sk, "#")
	last := len(parts) - 1
	if last < 1 {
		return "", "", 0, false
	}
	id, err := strconv.ParseInt(parts[last], 10, 64)
	if err != nil {
		return "", "", 0, false
	}
	kind := parts[last-1]
	switch {
	case last == 1:
		if k, ok := kindOf(kind); ok && k.counted != "" {
			return counterSK(kind), k.counted, id, true
		}
	case last == 2 && parts[0]+"#" == publicCopy:
		return counterSK(kind), classPublic, id, true
	case last == 2 && parts[0]+"#" == memberCopy:
		return counterSK(kind), classMember, id, true
	case last == 4 && parts[0] == "OWN":
		uid, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			return "", "", 0, false
		}
		return ownCounterSK(kind, uid), parts[2], id, true
	}
	return "", "", 0, false
}

func attrS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
