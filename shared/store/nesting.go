package store

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Nested owner kinds (locations under parent_location_id, tags under tag_id; the kind table's
// parentAttr): the ancestry read, the conditions that make a write depend on it, the child
// links in the parent's partition, the children's public copies, and the children made roots
// when their parent is deleted. One code for every nested kind.

// nestRow is what the ancestry read takes of a record: its parent is the attribute its kind
// names (KindSpec.ParentAttr), whatever the kind.
type nestRow struct {
	ID        int64  `dynamo:"id"`
	Version   int64  `dynamo:"version"`
	IsPrivate bool   `dynamo:"is_private"`
	Parent    *int64 `dynamo:"-"`
}

func nestRowOf(raw dynamo.Item, k layout.KindSpec) (nestRow, error) {
	var r nestRow
	if err := dynamo.UnmarshalItem(raw, &r); err != nil {
		return r, err
	}
	r.Parent = parentOf(raw, k)
	return r, nil
}

// parentOf is the parent id a record of nested kind k holds (nil: a root).
func parentOf(raw dynamo.Item, k layout.KindSpec) *int64 {
	v, ok := raw[k.ParentAttr]
	if !ok || k.ParentAttr == "" {
		return nil
	}
	var p int64
	if dynamo.Unmarshal(v, &p) != nil {
		return nil
	}
	return &p
}

// ancestry reads the chain from record id of kind k upwards (id first), at most max links: the
// input of the parent and cycle checks, and of the conditions that make the write depend on it.
// A missing first record gives an empty chain.
func (s *Store) ancestry(ctx context.Context, k layout.KindSpec, cid, id int64, max int) ([]domain.AncestorLink, error) {
	var chain []domain.AncestorLink
	for next := &id; next != nil && len(chain) < max; {
		var raw dynamo.Item
		err := s.getItem(ctx, layout.CampaignPK(cid), layout.RecordSK(k.Prefix, *next), &raw, "id", "is_private", k.ParentAttr)
		if errors.Is(err, apperr.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		it, err := nestRowOf(raw, k)
		if err != nil {
			return nil, err
		}
		chain = append(chain, domain.AncestorLink{ID: it.ID, IsPrivate: it.IsPrivate, ParentID: it.Parent})
		next = it.Parent
	}
	return chain, nil
}

// parentChecks makes a write of kind k depend on its parent chain as read: every link still
// exists and still has the parent it had, so two concurrent moves cannot close a cycle (one of
// them fails its check and is retried on fresh data) and no record lands under a deleted one.
// The parent's check also holds its privacy as read, which placed the public copy.
func (s *Store) parentChecks(ctx context.Context, k layout.KindSpec, cid int64, parentID int64, chain []domain.AncestorLink, depth int) (func(*txBuilder), bool, error) {
	if len(chain) == 0 || chain[0].ID != parentID {
		var err error
		if chain, err = s.ancestry(ctx, k, cid, parentID, depth); err != nil {
			return nil, false, err
		}
		if len(chain) == 0 {
			return nil, false, apperr.ErrConflict // the parent went since it was checked
		}
	}
	chain = chain[:min(len(chain), depth)]
	return func(b *txBuilder) {
		for i, link := range chain {
			c := s.table.Check("pk", layout.CampaignPK(cid)).Range("sk", layout.RecordSK(k.Prefix, link.ID))
			cond, args := "attribute_exists(pk) AND attribute_not_exists($)", []any{k.ParentAttr}
			if link.ParentID != nil {
				cond, args = "$ = ?", []any{k.ParentAttr, *link.ParentID}
			}
			if i == 0 {
				cond, args = cond+" AND 'is_private' = ?", append(args, link.IsPrivate)
			}
			b.check(c.If(cond, args...))
		}
	}, chain[0].IsPrivate, nil
}

// parentPrivacy is whether parent is private, from the chain read for the parent checks when
// it starts there, else read (one GetItem); ok is false when the parent does not exist.
func (s *Store) parentPrivacy(ctx context.Context, k layout.KindSpec, cid, parent int64, chain []domain.AncestorLink) (private, ok bool, err error) {
	if len(chain) == 0 || chain[0].ID != parent {
		if chain, err = s.ancestry(ctx, k, cid, parent, 1); err != nil || len(chain) == 0 {
			return false, false, err
		}
	}
	return chain[0].IsPrivate, true, nil
}

// newParentCheck is the condition of a new record of kind k on its parent (exists, with the
// privacy read, which placed the public copy) and its link there.
func (s *Store) newParentCheck(ctx context.Context, k layout.KindSpec, m *domain.Meta, private bool, parent *int64, chain []domain.AncestorLink) (func(*txBuilder), bool, error) {
	parentPrivate, ok, err := s.parentPrivacy(ctx, k, m.CampaignID, *parent, chain)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, false, apperr.Invalid(k.ParentField, "The selected "+domain.Label(k.ParentField)+" is invalid.")
	}
	pk, sk := layout.CampaignPK(m.CampaignID), layout.RecordSK(k.Prefix, *parent)
	return func(b *txBuilder) {
		b.needIf(pk, sk, errParentChanged, "attribute_exists(pk) AND 'is_private' = ?", parentPrivate)
		s.linkParent(k, m.CampaignID, m.ID, nil, parent, false, private)(b)
	}, parentPrivate, nil
}

// keptParentCheck holds the privacy of an unchanged parent of a public record (its public copy
// shows the parent only when the parent is public); a parent being deleted is shown as none.
func (s *Store) keptParentCheck(ctx context.Context, k layout.KindSpec, cid, parent int64, chain []domain.AncestorLink) (func(*txBuilder), bool, error) {
	private, ok, err := s.parentPrivacy(ctx, k, cid, parent, chain)
	if err != nil {
		return nil, false, err
	}
	c := s.table.Check("pk", layout.CampaignPK(cid)).Range("sk", layout.RecordSK(k.Prefix, parent))
	if ok {
		c = c.If("attribute_exists(pk) AND 'is_private' = ?", private)
	} else {
		c = c.If("attribute_not_exists(pk)")
	}
	return func(b *txBuilder) { b.check(c) }, private || !ok, nil
}

// linkParent moves record id's link from parent prev to parent next (either may be nil), and
// rewrites it when the record's privacy changes; a location's link has a copy in its parent's
// related bucket (related=1), which follows it.
func (s *Store) linkParent(k layout.KindSpec, cid, id int64, prev, next *int64, prevPrivate, private bool) func(*txBuilder) {
	return func(b *txBuilder) {
		moved := prev == nil || next == nil || *prev != *next
		if prev != nil && moved {
			for _, l := range layout.LinkKeys(k, cid, *prev, id) {
				b.del(s.table.Delete("pk", l.PK).Range("sk", l.SK))
			}
		}
		if next != nil && (moved || prevPrivate != private) {
			for _, l := range layout.LinkKeys(k, cid, *next, id) {
				b.put(s.table.Put(layout.ChildLink{PK: l.PK, SK: l.SK, ID: id, IsPrivate: private}))
			}
		}
	}
}

// errParentChanged is a failed check of a new record's parent: gone, or of another privacy
// than the one its public copy was placed by. The create reads the parent again.
var errParentChanged = errors.New("store: the parent changed")

// childCopies re-places the public copies of record pid's public children when pid becomes
// private (their parent leaves the copy) or public (it returns), in pid's own transaction: each
// copy's update is conditional on the child's version read, and every child write checks its
// parent's privacy, so no copy shows a private parent. The children are a variable part of
// the transaction budget: more than fit answer 422 (is_private) and change nothing. Cost: one
// Query of the links (at most maxTx+1) and one BatchGetItem of the children's versions.
func (s *Store) childCopies(ctx context.Context, k layout.KindSpec, cid, pid int64, private bool) (func(*txBuilder), error) {
	var links []layout.ChildLink
	err := s.table.Get("pk", layout.ChildPK(cid, k.Prefix, pid)).Range("sk", dynamo.BeginsWith, layout.ChildLinkPrefix).
		Consistent(true).Limit(maxTx+1).All(ctx, &links)
	if err != nil {
		return nil, layout.Wrap(err)
	}
	var public []map[string]types.AttributeValue
	for _, l := range links {
		if !l.IsPrivate {
			public = append(public, sdkKey(layout.CampaignPK(cid), layout.RecordSK(k.Prefix, l.ID)))
		}
	}
	what := "child " + k.EntityType + "s"
	if len(public) > maxTx { // refused whatever else the write holds: read no more
		return func(b *txBuilder) { b.reserve("is_private", what, len(public)) }, nil
	}
	var rows []nestRow
	if len(public) > 0 {
		items, err := s.batchGetItems(ctx, true, public, "id", "version", "is_private", k.ParentAttr)
		if err != nil {
			return nil, err
		}
		for _, raw := range items {
			r, err := nestRowOf(raw, k)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
		}
	}
	under := func(r nestRow) bool { p := r.Parent; return !r.IsPrivate && p != nil && *p == pid }
	return func(b *txBuilder) {
		n := 0
		for _, r := range rows {
			if under(r) {
				n++
			}
		}
		b.part("is_private", what, n, func() {
			for _, r := range rows {
				if !under(r) {
					continue // a stale link, or a child made private since
				}
				u := s.table.Update("pk", layout.CampaignPK(cid)).Range("sk", layout.PublicCopy+layout.RecordSK(k.Prefix, r.ID)).If("'version' = ?", r.Version)
				if private {
					u = u.Remove(k.ParentAttr)
				} else {
					u = u.Set(k.ParentAttr, pid)
				}
				b.update(u)
			}
		})
	}, nil
}

// orphanChildren makes the children of record pid of kind k roots, as Kanka does: found by
// their links in its partition, read consistently, and rewritten (with their copies, entity
// and pointers; their links removed) in transactions of 30, conditional on the version read.
// A child moved meanwhile is read again. For a trash (mark) the links stay, marked with the
// trash and the child's new version, for the restore (adoptChildren); links marked already are
// left as they are.
func (s *Store) orphanChildren(ctx context.Context, k layout.KindSpec, cid, pid int64, mark bool) error {
	return apperr.RetryConflicts(ctx, func() error {
		var links []layout.ChildLink
		err := s.table.Get("pk", layout.ChildPK(cid, k.Prefix, pid)).Range("sk", dynamo.BeginsWith, layout.ChildLinkPrefix).Consistent(true).All(ctx, &links)
		if err != nil || len(links) == 0 {
			return layout.Wrap(err)
		}
		keys := make([]layout.ItemKey, len(links))
		for i, l := range links {
			keys[i] = layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Prefix, l.ID)}
		}
		items, err := s.getItems(ctx, keys...)
		if err != nil {
			return err
		}
		now := s.now()
		var txs []*txBuilder
		for _, link := range links {
			if len(txs) == 0 || txs[len(txs)-1].size()+10 > maxTx-10 {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			if mark && link.OrphanedBy != "" {
				continue
			}
			unlink := func() {
				for _, l := range layout.LinkKeys(k, cid, pid, link.ID) {
					b.del(s.table.Delete("pk", l.PK).Range("sk", l.SK))
				}
			}
			raw, ok := items[layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Prefix, link.ID)}]
			if !ok {
				unlink() // a stale link: the child is gone
				continue
			}
			var rec struct {
				layout.MetaAttrs
				layout.OwnerAttrs
			}
			if err := dynamo.UnmarshalItem(raw, &rec); err != nil {
				return err
			}
			if p := parentOf(raw, k); p == nil || *p != pid {
				unlink() // a stale link
				continue
			}
			prevM, prevO := rec.Meta(), rec.Owner()
			nextM := prevM
			nextM.Version, nextM.UpdatedAt = prevM.Version+1, now
			next := make(dynamo.Item, len(raw))
			for name, v := range raw {
				next[name] = v
			}
			delete(next, k.ParentAttr)
			next["version"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(nextM.Version, 10)}
			next["updated_at"] = layout.AttrS(layout.FormatTime(now))
			if mark { // the link stays, marked; its related=1 copy goes until the restore
				b.put(s.table.Put(layout.ChildLink{PK: link.PK, SK: link.SK, ID: link.ID, IsPrivate: link.IsPrivate,
					OrphanedBy: layout.FormatTime(now), ChildVersion: nextM.Version}))
				for _, l := range layout.LinkKeys(k, cid, pid, link.ID)[1:] {
					b.del(s.table.Delete("pk", l.PK).Range("sk", l.SK))
				}
			} else {
				unlink()
			}
			b.place(next, k.Slots(&prevM, &prevO), k.Slots(&nextM, &prevO), prevM.Version)
			b.syncMove(ownerRef(k.Prefix, &prevM, &prevO), ownerRef(k.Prefix, &nextM, &prevO))
			// Its entity mirrors it, update time included (so does its sync pointer).
			b.mirror(layout.Marshal(layout.EntityItemOf(k, &nextM, &prevO)), layout.EntitySlots(&prevM, &prevO), layout.EntitySlots(&nextM, &prevO))
			b.syncMove(layout.EntityRef(&prevM, &prevO), layout.EntityRef(&nextM, &prevO))
		}
		return runTxs(ctx, txs)
	})
}

// nestedUpdate is what an update of nested record id of kind k depends on and writes beside
// it: a move depends on the new parent chain as read, a public record that keeps its parent on
// the parent's privacy (its public copy shows the parent only when public); the link follows
// the record; a privacy change re-places its children's public copies. placed says whether
// parentPrivate (the parent's privacy, which places the public copy) was read.
func (s *Store) nestedUpdate(ctx context.Context, k layout.KindSpec, cid, id int64, prevParent, nextParent *int64, ancestry []domain.AncestorLink,
	prevPrivate, nextPrivate bool) (checks []func(*txBuilder), parentPrivate, placed bool, err error) {
	switch {
	case nextParent != nil && (prevParent == nil || *prevParent != *nextParent):
		c, private, err := s.parentChecks(ctx, k, cid, *nextParent, ancestry, domain.MaxLocationDepth)
		if err != nil {
			return nil, false, false, err
		}
		checks, parentPrivate, placed = append(checks, c), private, true
	case nextParent != nil && !nextPrivate:
		c, hidden, err := s.keptParentCheck(ctx, k, cid, *nextParent, ancestry)
		if err != nil {
			return nil, false, false, err
		}
		checks, parentPrivate, placed = append(checks, c), hidden, true
	}
	checks = append(checks, s.linkParent(k, cid, id, prevParent, nextParent, prevPrivate, nextPrivate))
	if prevPrivate != nextPrivate {
		c, err := s.childCopies(ctx, k, cid, id, nextPrivate)
		if err != nil {
			return nil, false, false, err
		}
		checks = append(checks, c)
	}
	return checks, parentPrivate, placed, nil
}

// createNested stores a new record of nested kind k (createOwner), on condition that its
// parent (nil: a root) still exists with the privacy read, which places the public copy
// (*parentPrivate, set here): a parent changed in between is read again (its ancestry
// dropped), a conflict after WriteAttempts.
func (s *Store) createNested(ctx context.Context, k layout.KindSpec, m *domain.Meta, o *domain.Owner, parentID *int64,
	ancestry *[]domain.AncestorLink, parentPrivate *bool, item func() any, also ...func(*txBuilder)) error {
	parentChanged := func(err error) bool { return errors.Is(err, errParentChanged) }
	err := apperr.Retry(ctx, parentChanged, func() error {
		var checks []func(*txBuilder)
		for _, c := range also {
			if c != nil {
				checks = append(checks, c)
			}
		}
		if parentID != nil {
			c, private, err := s.newParentCheck(ctx, k, m, o.IsPrivate, parentID, *ancestry)
			if err != nil {
				return err
			}
			*parentPrivate = private
			checks = append(checks, c)
		}
		err := s.createOwner(ctx, k, m, o, item, checks...)
		if parentChanged(err) {
			*ancestry = nil // read the parent again: gone (a 422) or of another privacy
		}
		return err
	})
	if parentChanged(err) {
		return apperr.ErrConflict
	}
	return err
}

// getNested reads record id of nested kind k and its public copy (one round trip, read ahead
// on the kind's routes); ErrNotFound when there is none. layout.ParentHidden: the public copy leaves
// the parent out, which it does when the parent is private (layout 3), so the parent's
// privacy is known for public records, the only ones a non-admin sees.
func getNested[I any](ctx context.Context, s *Store, k layout.KindSpec, cid, id int64) (it I, parentHidden bool, err error) {
	home := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Prefix, id)}
	pub := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.PublicCopy + layout.RecordSK(k.Prefix, id)}
	items, err := s.getItems(ctx, home, pub)
	if err != nil {
		return it, false, err
	}
	raw, ok := items[home]
	if !ok {
		return it, false, apperr.ErrNotFound
	}
	if err := unmarshalItem(raw, &it); err != nil {
		return it, false, err
	}
	if c, ok := items[pub]; ok {
		_, shown := c[k.ParentAttr]
		parentHidden = !shown
	}
	return it, parentHidden, nil
}

// listNested reads one page of the campaign's records of nested kind k, ordered by id: an
// admin's range holds every record, everyone else's only the public ones; a name filter alone
// is answered by the name shards (names.go).
func listNested[I any, R any](ctx context.Context, s *Store, k layout.KindSpec, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest, record func(I) R) (domain.Page[R], error) {
	if onlyName(f) {
		return listByName(ctx, s, cid, k, f.Name, !hidePrivate, p, record)
	}
	l := listSpec{ranges: ownerRanges(k.Prefix, cid, !hidePrivate)}
	l.filter(f)
	return listPage(ctx, s, l, p, record)
}
