package store

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Audience ranges (see the package doc). A record is written under its home key and copied, in
// the same transaction, into every list range of an audience that may see it regardless of who
// created it; each range has an exact counter, with per-bucket counts, kept in that transaction.

// ownerRanges are the ranges a reader of class lists for a location or calendar kind.
func ownerRanges(kind string, cid int64, admin bool) []layout.ListRange {
	pk := layout.CampaignPK(cid)
	if admin {
		return []layout.ListRange{{PK: pk, Prefix: kind + "#", Counter: layout.CounterSK(kind), Attr: layout.ClassAdmin}}
	}
	return []layout.ListRange{{PK: pk, Prefix: layout.PublicCopy + kind + "#", Counter: layout.CounterSK(kind), Attr: layout.ClassPublic}}
}

// childHomeSKs are the keys where the home of child id may be.
func childHomeSKs(kind string, id int64) []string {
	return []string{layout.RecordSK(kind, id), layout.SelfHome + layout.RecordSK(kind, id)}
}

// childRanges are the ranges reader a lists of an entity's notes or events: its class's range
// and its own range. The two are disjoint.
func childRanges(kind, pk string, a domain.Access) []layout.ListRange {
	cnt := layout.CounterSK(kind)
	own := layout.OwnCounterSK(kind, a.UserID)
	switch {
	case a.IsAdmin():
		return []layout.ListRange{{PK: pk, Prefix: kind + "#", Counter: cnt, Attr: layout.ClassAdmin}, {PK: pk, Prefix: layout.OwnPrefix(kind, a.UserID, "A"), Counter: own, Attr: "A"}}
	case a.IsMember():
		return []layout.ListRange{{PK: pk, Prefix: layout.MemberCopy + kind + "#", Counter: cnt, Attr: layout.ClassMember}, {PK: pk, Prefix: layout.OwnPrefix(kind, a.UserID, "R"), Counter: own, Attr: "R"}}
	}
	return []layout.ListRange{{PK: pk, Prefix: layout.PublicCopy + kind + "#", Counter: cnt, Attr: layout.ClassPublic}, {PK: pk, Prefix: layout.OwnPrefix(kind, a.UserID, "R"), Counter: own, Attr: "R"}}
}

// txItems builds one or more transactions of at most maxTx items; counter deltas of the records
// written in one transaction are added in that transaction, one update per counter item.
const maxTx = 100

type txBuilder struct {
	s      *Store
	tx     *dynamo.WriteTx
	n      int
	deltas map[layout.CounterKey]map[string]int
	parts  []budgetPart // the variable parts, for a write over the budget (overBudget)
	// reserved: items of a part too large to build (reserve)
	reserved int
	// needs maps the position of an existence check (need) to what its failure means.
	needs map[int]error
	// judges maps the position of a conditional update to what explains its failure (needUpdate).
	judges map[int]func(dynamo.Item) error
	// refused: a family's step refused the write (Tx.Refuse) before anything was sent.
	refused error
}

func (s *Store) newTx() *txBuilder {
	return &txBuilder{s: s, tx: s.db.WriteTx(), deltas: map[layout.CounterKey]map[string]int{}}
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

func (b *txBuilder) count(sl layout.Slot, d int) {
	if sl.Counter != "" {
		b.addCount(sl.PK, sl.Counter, sl.Attr, sl.Id, d)
	}
}

// run sends the transaction (see send): with the record of the request's Idempotency-Key, when
// one is due.
func (b *txBuilder) run(ctx context.Context) error {
	if b.refused != nil {
		return b.refused
	}
	if err := b.overBudget(); err != nil {
		return err
	}
	items := b.n
	for k, deltas := range b.deltas {
		u := b.s.table.Update("pk", k.PK).Range("sk", k.SK)
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
	return layout.Wrap(err)
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
func (b *txBuilder) place(item dynamo.Item, prev, next []layout.Slot, prevVersion int64) {
	has := func(sls []layout.Slot, sk string) bool {
		for _, s := range sls {
			if s.SK == sk {
				return true
			}
		}
		return false
	}
	prevHome := ""
	for _, sl := range prev {
		if sl.Home {
			prevHome = sl.SK
		}
	}
	for _, sl := range next {
		it := layout.CopyItem(item, sl)
		put := b.s.table.Put(it)
		switch {
		case sl.Home && prevVersion == 0:
			put = put.If("attribute_not_exists(pk)")
		case sl.Home && prevHome == sl.SK:
			put = put.If("'version' = ?", prevVersion)
		case sl.Home:
			put = put.If("attribute_not_exists(pk)")
		}
		b.put(put)
		if !has(prev, sl.SK) {
			b.count(sl, 1)
		}
	}
	for _, sl := range prev {
		if has(next, sl.SK) {
			continue
		}
		d := b.s.table.Delete("pk", sl.PK).Range("sk", sl.SK)
		if sl.Home {
			d = d.If("'version' = ?", prevVersion)
		}
		b.del(d)
		b.count(sl, -1)
	}
}

// remove deletes every slot of a record (its home on condition of version, unless 0).
func (b *txBuilder) remove(sls []layout.Slot, version int64) {
	for _, sl := range sls {
		d := b.s.table.Delete("pk", sl.PK).Range("sk", sl.SK)
		if sl.Home && version != 0 {
			d = d.If("'version' = ?", version)
		}
		b.del(d)
		b.count(sl, -1)
	}
}
