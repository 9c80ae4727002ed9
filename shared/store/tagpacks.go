package store

import (
	"context"
	"errors"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Tag member packs (round3 5.11, DESIGN 3.3). Every tag has one pack in its partition,
//
//	CAMPAIGN#c#TAG#tid   TMPACK   (a, p: number sets of entity ids; na, np; v; is_private)
//
// holding the entity ids of its members, the private records' (`a`) apart from the others'
// (`p`), the layout.TagPackCap smallest of each class, and each class's exact number (`na`, `np`),
// so that a tags list page answers every row's `entities` with one BatchGetItem. It is kept in
// the transaction that moves a member item (tagPlan), mirrors the tag's `is_private` (written
// with the tag), is put with the tag and deleted by its delete's first step, so its
// conditional update is also the check that the tag lives with the privacy read.

// newTagPack is the pack of a tag being created (no members).
func (s *Store) newTagPack(t *domain.Tag) func(*txBuilder) {
	return func(b *txBuilder) {
		k := layout.TagPackKey(t.CampaignID, t.ID)
		b.put(s.table.Put(layout.TagPack{PK: k.PK, SK: k.SK, IsPrivate: t.IsPrivate}).If("attribute_not_exists(pk)"))
	}
}

// tagPackPrivacy makes the pack of tag t mirror its new privacy (in the tag's update).
func (s *Store) tagPackPrivacy(prev, next *domain.Tag) func(*txBuilder) {
	if prev.IsPrivate == next.IsPrivate {
		return nil
	}
	return func(b *txBuilder) {
		k := layout.TagPackKey(next.CampaignID, next.ID)
		b.needUpdate(s.table.Update("pk", k.PK).Range("sk", k.SK).Set("is_private", next.IsPrivate).If("attribute_exists(pk)"),
			func(dynamo.Item) error { return apperr.ErrConflict }) // deleted meanwhile: the retry reads it gone
	}
}

// tagPackGone deletes the pack of tag t (its delete's first step).
func (s *Store) tagPackGone(t *domain.Tag) func(*txBuilder) {
	return func(b *txBuilder) {
		k := layout.TagPackKey(t.CampaignID, t.ID)
		b.del(s.table.Delete("pk", k.PK).Range("sk", k.SK))
	}
}

// readTagPacks reads the packs of tags (consistently, one BatchGetItem per 100): absent ones
// (deleted tags) are missing from the answer.
func (s *Store) readTagPacks(ctx context.Context, cid int64, tags []int64) (map[int64]*layout.TagPack, error) {
	keys := make([]layout.ItemKey, len(tags))
	for i, t := range tags {
		keys[i] = layout.TagPackKey(cid, t)
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*layout.TagPack, len(got))
	for i, t := range tags {
		if raw, ok := got[keys[i]]; ok {
			var p layout.TagPack
			if err := dynamo.UnmarshalItem(raw, &p); err != nil {
				return nil, err
			}
			out[t] = &p
		}
	}
	return out, nil
}

// packMove is what one record's write changes in the pack of one tag: entity eid leaves class
// from and/or joins class to ("" for neither); check makes the update conditional on the tag's
// privacy read (private), as the member item it puts requires.
type packMove struct {
	tid, eid int64
	from, to string
	check    bool
	private  bool
}

// packPlan prepares the update of pack p (nil: the tag is deleted) for move mv. A pack whose
// classes stay within layout.TagPackCap is updated by increments (ADD/DELETE, on condition of the
// counts read: concurrent members of a small tag commute); otherwise the classes are rewritten
// whole on condition of the version read: a full class keeps its smallest ids (an addition
// below its largest replaces it), and a removal from a class with more members than it holds
// refills it from one Query of the class's member items (a cost proportional to the tag's
// members of that class, only for tags of more than layout.TagPackCap of them).
func (s *Store) packPlan(ctx context.Context, cid int64, p *layout.TagPack, mv packMove) (func(*txBuilder), error) {
	if p == nil {
		return nil, nil // a deleted tag: its member items go with its delete's cascade
	}
	k := layout.TagPackKey(cid, mv.tid)
	u := s.table.Update("pk", k.PK).Range("sk", k.SK)
	cond, args := "attribute_exists(pk)", []any{}
	if mv.check {
		cond += " AND 'is_private' = ?"
		args = append(args, mv.private)
	}
	small := true
	if mv.to != "" {
		_, n := p.Class(mv.to)
		small = small && *n < layout.TagPackCap
	}
	if mv.from != "" {
		_, n := p.Class(mv.from)
		small = small && *n <= layout.TagPackCap
	}
	if small {
		if mv.to != "" {
			u = u.Add(mv.to, []int64{mv.eid}).Add("n"+mv.to, 1)
			cond += " AND 'n" + mv.to + "' < ?"
			args = append(args, layout.TagPackCap)
		}
		if mv.from != "" {
			u = u.DeleteFromSet(mv.from, []int64{mv.eid}).Add("n"+mv.from, -1)
			cond += " AND 'n" + mv.from + "' <= ?"
			args = append(args, layout.TagPackCap)
		}
		u = u.Add("v", 1)
	} else {
		next := *p
		next.A, next.P = slices.Clone(p.A), slices.Clone(p.P)
		if mv.from != "" {
			ids, n := next.Class(mv.from)
			*n--
			if i := slices.Index(*ids, mv.eid); i >= 0 {
				*ids = slices.Delete(*ids, i, i+1)
				if *n > len(*ids) { // members beyond the pack: the smallest of them joins
					held := append(slices.Clone(*ids), mv.eid)
					refill, err := s.smallestMemberBut(ctx, cid, mv.tid, mv.from, held)
					if err != nil {
						return nil, err
					}
					if refill != 0 {
						*ids = append(*ids, refill)
					}
				}
			}
		}
		if mv.to != "" {
			ids, n := next.Class(mv.to)
			*n++
			if !slices.Contains(*ids, mv.eid) {
				*ids = append(*ids, mv.eid)
				slices.Sort(*ids)
				*ids = (*ids)[:min(len(*ids), layout.TagPackCap)]
			}
		}
		for _, c := range []string{"a", "p"} {
			ids, n := next.Class(c)
			if len(*ids) == 0 {
				u = u.Remove(c)
			} else {
				u = u.SetSet(c, *ids)
			}
			u = u.Set("n"+c, *n)
		}
		u = u.Set("v", p.V+1)
		cond += " AND 'v' = ?"
		args = append(args, p.V)
	}
	return func(b *txBuilder) {
		b.needUpdate(u.If(cond, args...), func(found dynamo.Item) error {
			// The tag is gone or of another privacy: the write's tags are refused. Otherwise the
			// pack moved under a concurrent member's write: read again.
			if mv.check {
				var now layout.TagPack
				if found == nil || dynamo.UnmarshalItem(found, &now) != nil || now.IsPrivate != mv.private {
					return errTagGone
				}
			}
			return apperr.ErrConflict
		})
	}, nil
}

// smallestMemberBut is the smallest entity id among the members of class c of tag tid that
// held does not name (0: none), read page by page (a full pack's refill: memory stays the pack's).
func (s *Store) smallestMemberBut(ctx context.Context, cid, tid int64, c string, held []int64) (int64, error) {
	skip := make(map[int64]bool, len(held))
	for _, id := range held {
		skip[id] = true
	}
	it := s.table.Get("pk", layout.ChildPK(cid, layout.TagPrefix, tid)).Range("sk", dynamo.BeginsWith, layout.TagMemberPrefix+classLetter(c)+"#").
		Project("pk", "sk", "entity_id").Consistent(true).Iter()
	var m layout.TagMember
	best := int64(0)
	for it.Next(ctx, &m) {
		if !skip[m.EntityID] && (best == 0 || m.EntityID < best) {
			best = m.EntityID
		}
	}
	return best, layout.Wrap(it.Err())
}

// classLetter is the member items' class (A, P) of pack class c.
func classLetter(c string) string {
	if c == "a" {
		return "A"
	}
	return "P"
}

// needUpdate adds update u, whose failed condition judge explains from the item as it was
// found (nil when absent).
func (b *txBuilder) needUpdate(u *dynamo.Update, judge func(found dynamo.Item) error) {
	if b.judges == nil {
		b.judges = map[int]func(dynamo.Item) error{}
	}
	b.judges[b.n] = judge
	b.update(u.IncludeItemInCondCheckFail(true))
}

// judgedFailure is the explanation of the first judged update that cancelled the transaction.
func (b *txBuilder) judgedFailure(err error) error {
	var tce *types.TransactionCanceledException
	if len(b.judges) == 0 || !errors.As(err, &tce) {
		return nil
	}
	for i, r := range tce.CancellationReasons {
		if judge, ok := b.judges[i]; ok && r.Code != nil && *r.Code == "ConditionalCheckFailed" {
			var found dynamo.Item
			if len(r.Item) > 0 {
				found = r.Item
			}
			return judge(found)
		}
	}
	return nil
}

// TagMembers answers the `entities` and `entities_count` of tags for a reader (admin: every
// member; others: the public records'), from their packs: one BatchGetItem per 100 tags,
// projected to the public class for non-admins. A tag without a pack (deleted meanwhile)
// answers none.
func (s *Store) TagMembers(ctx context.Context, cid int64, tags []int64, admin bool) (map[int64]domain.TagMembers, error) {
	out := make(map[int64]domain.TagMembers, len(tags))
	if len(tags) == 0 {
		return out, nil
	}
	keys := make([]map[string]types.AttributeValue, 0, len(tags))
	for _, t := range slices.Compact(slices.Sorted(slices.Values(tags))) {
		k := layout.TagPackKey(cid, t)
		keys = append(keys, sdkKey(k.PK, k.SK))
	}
	var project []string
	if !admin {
		project = []string{"pk", "sk", "p", "np"}
	}
	items, err := s.batchGetItems(ctx, true, keys, project...)
	if err != nil {
		return nil, err
	}
	packs, err := unmarshalAll[layout.TagPack](items)
	if err != nil {
		return nil, err
	}
	byPK := map[string]*layout.TagPack{}
	for i := range packs {
		byPK[packs[i].PK] = &packs[i]
	}
	for _, t := range tags {
		m := domain.TagMembers{Entities: []int64{}}
		if p := byPK[layout.ChildPK(cid, layout.TagPrefix, t)]; p != nil {
			ids := slices.Clone(p.P)
			m.Count = p.NP
			if admin {
				ids = append(ids, p.A...)
				m.Count += p.NA
			}
			slices.Sort(ids)
			m.Entities = ids[:min(len(ids), layout.TagPackCap)] // MaxTagEntities (tests lower the cap)
		}
		out[t] = m
	}
	return out, nil
}

// A tag's purge takes its id off its members (found in its partition) before the partition goes.
func init() {
	declareCascade(layout.TagPrefix, kindCascade{
		purge: func(ctx context.Context, s *Store, t layout.Tombstone) error {
			return s.tagMembersGone(ctx, t.CID, t.ID)
		},
	})
}
