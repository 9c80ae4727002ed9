package store

import (
	"context"
	"errors"
	"sort"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Mentions: the reverse index of `[type:id]` mentions. Each (source entity, post) that mentions
// entity T has one item MIN#<source>#<post> (post 0: the source's own entry) in T's partition,
// written in the transaction of the entry that mentions (a location, a calendar, a note), so
// that "who mentions T" reads T's partition only. Items exist only for mentioned ids that are
// entities of the campaign when the entry is written (Kanka maps only existing entities), never
// for a self-mention (Kanka skips them), for at most domain.MaxMentions targets per entry (the
// ones rendering resolves). The item carries the post's visibility and creator; whether the
// reader may see the source entity is read with the source itself, so a privacy change of the
// source needs no rewrite of its mentions, and an owner's trash keeps its entry's items (its
// purge's and a tag's delete's cascades remove them, named by the tombstone: no first step
// holds 50 of them beside 20 tags' links and packs). Any writer of an entry calls mentionPlan: tags and
// other kinds hook in the same way.

// mentionSource is what writes an entry: the source entity, its post (0 for the record's own
// entry; set once the post has its id) and the post's visibility and creator.
type mentionSource struct {
	cid, src   int64
	post       func() int64
	visibility domain.Visibility
	createdBy  int64
}

// mentionPlan prepares the reverse items of an entry that changes from prev to next (""
// when created or deleted), as it changes from prevSrc to nextSrc (its visibility), and
// returns what to add to the entry's transaction. It reads, in one round trip, the entities
// next mentions (only those that exist get an item) and the reverse items that exist, so that
// the transaction writes only what changes and deletes only what is there. A delete reads
// nothing: it removes every item the entry may have. Nothing to do gives nil, reading nothing.
func (s *Store) mentionPlan(ctx context.Context, prev, next string, prevSrc, nextSrc mentionSource, deleting bool) (func(*txBuilder), error) {
	src := nextSrc.src
	if src == 0 {
		src = prevSrc.src
	}
	prevT, nextT := layout.TargetsOf(prev, src), layout.TargetsOf(next, src)
	if len(prevT) == 0 && len(nextT) == 0 {
		return nil, nil
	}
	if deleting {
		return func(b *txBuilder) {
			b.part("entry", "mentioned entities", len(prevT), func() {
				for _, t := range prevT {
					k := layout.MentionKey(prevSrc.cid, t, src, prevSrc.post())
					b.del(s.table.Delete("pk", k.PK).Range("sk", k.SK))
				}
			})
		}, nil
	}
	if prev == next && prevSrc.visibility == nextSrc.visibility {
		return nil, nil
	}
	cid := nextSrc.cid
	var entities, existing map[layout.ItemKey]dynamo.Item
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		keys := make([]layout.ItemKey, len(nextT))
		for i, t := range nextT {
			keys[i] = layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, t)}
		}
		var err error
		entities, err = s.getItems(gctx, keys...)
		return err
	})
	// An entry being created has no items yet (its post id is not even known).
	creating := prev == "" && prevSrc.post == nil
	if !creating {
		g.Go(func() error {
			var keys []layout.ItemKey
			for _, t := range union(prevT, nextT) {
				keys = append(keys, layout.MentionKey(cid, t, src, prevSrc.post()))
			}
			var err error
			existing, err = s.getItems(gctx, keys...)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return func(b *txBuilder) {
		b.part("entry", "mentioned entities", len(union(prevT, nextT)), func() {
			post := nextSrc.post()
			keep := map[int64]bool{}
			for _, t := range nextT {
				if _, ok := entities[layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.EntityPrefix, t)}]; !ok {
					continue // not an entity of the campaign: Kanka maps nothing
				}
				keep[t] = true
				k := layout.MentionKey(cid, t, src, post)
				want := layout.MentionItem{PK: k.PK, SK: k.SK, CampaignID: cid, SourceID: src, PostID: post, TargetID: t,
					Visibility: string(nextSrc.visibility), CreatedBy: nextSrc.createdBy}
				if old, ok := existing[k]; ok {
					var have layout.MentionItem
					if dynamo.UnmarshalItem(old, &have) == nil && have == want {
						continue
					}
				}
				b.put(s.table.Put(want))
			}
			for _, t := range prevT {
				k := layout.MentionKey(cid, t, src, post)
				if _, ok := existing[k]; ok && !keep[t] {
					b.del(s.table.Delete("pk", k.PK).Range("sk", k.SK))
				}
			}
		})
	}, nil
}

func union(a, b []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, x := range append(append([]int64{}, a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Mentions answers entities/{id}/mentions for entity e as reader a sees it. Kanka's direction
// (incoming false): what e's entry and the posts a may see mention, among the entities a may
// see, read from e's record and posts (bounded by them, as the post list) with one BatchGet of
// the mentioned entities. The reverse (incoming true): who mentions e, from e's reverse items,
// with one BatchGet of the mentioning entities. Both ordered, and either three round trips
// with the access.
func (s *Store) Mentions(ctx context.Context, e *domain.Entity, a domain.Access, incoming bool) ([]domain.MentionRow, error) {
	if incoming {
		return s.mentionsIn(ctx, e, a)
	}
	return s.mentionsOut(ctx, e, a)
}

func (s *Store) mentionsIn(ctx context.Context, e *domain.Entity, a domain.Access) ([]domain.MentionRow, error) {
	var items []layout.MentionItem
	err := s.table.Get("pk", layout.EntityPK(e.CampaignID, e.ID)).Range("sk", dynamo.BeginsWith, layout.MentionPrefix).Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, layout.Wrap(err)
	}
	var srcs []int64
	for _, it := range items {
		srcs = append(srcs, it.SourceID)
	}
	sources, err := getRecords(ctx, s, e.CampaignID, layout.EntityPrefix, srcs, true, entityByID)
	if err != nil {
		return nil, err
	}
	out := []domain.MentionRow{}
	for _, it := range items { // in key order: by source, then post
		src := sources[it.SourceID]
		if src == nil || !a.CanSee(src.IsPrivate) {
			continue
		}
		if it.PostID != 0 && !a.CanSeeVisibility(domain.Visibility(it.Visibility), it.CreatedBy) {
			continue
		}
		out = append(out, domain.MentionRow{EntityID: it.SourceID, PostID: it.PostID, TargetID: e.ID})
	}
	return out, nil
}

func (s *Store) mentionsOut(ctx context.Context, e *domain.Entity, a domain.Access) ([]domain.MentionRow, error) {
	k, ok := layout.OwnerKindOf(e.Type)
	if !ok {
		return nil, apperr.ErrNotFound
	}
	var entry string
	type post struct {
		ID    int64  `dynamo:"id"`
		Entry string `dynamo:"entry"`
	}
	ranges := childRanges(layout.NotePrefix, layout.EntityPK(e.CampaignID, e.ID), a)
	posts := make([][]post, len(ranges))
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var rec struct {
			Entry string `dynamo:"entry"`
		}
		err := s.getItem(gctx, layout.CampaignPK(e.CampaignID), layout.RecordSK(k.Prefix, e.ChildID), &rec, "entry")
		entry = rec.Entry
		if errors.Is(err, apperr.ErrNotFound) {
			err = nil // deleted since its entity was read: nothing left to mention
		}
		return err
	})
	for i, r := range ranges {
		g.Go(func() error {
			return layout.Wrap(s.table.Get("pk", r.PK).Range("sk", dynamo.BeginsWith, r.Prefix).Project("id", "entry").Consistent(true).All(gctx, &posts[i]))
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rows := []domain.MentionRow{}
	for _, t := range layout.TargetsOf(entry, e.ID) {
		rows = append(rows, domain.MentionRow{EntityID: e.ID, TargetID: t})
	}
	var all []post
	for _, ps := range posts {
		all = append(all, ps...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	for _, p := range all {
		for _, t := range layout.TargetsOf(p.Entry, e.ID) {
			rows = append(rows, domain.MentionRow{EntityID: e.ID, PostID: p.ID, TargetID: t})
		}
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.TargetID
	}
	targets, err := getRecords(ctx, s, e.CampaignID, layout.EntityPrefix, ids, true, entityByID)
	if err != nil {
		return nil, err
	}
	out := rows[:0]
	for _, r := range rows {
		if t := targets[r.TargetID]; t != nil && a.CanSee(t.IsPrivate) {
			out = append(out, r)
		}
	}
	return out, nil
}

func entityByID(it layout.EntityItem) (int64, *domain.Entity) { return it.ID, it.Entity() }

// existingTargets keeps the items whose target is an entity of the campaign (BatchGetItem of
// the distinct targets, 100 keys a call).
func (s *Store) existingTargets(ctx context.Context, items []layout.MentionItem) ([]layout.MentionItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	var keys []layout.ItemKey
	for _, m := range items {
		keys = append(keys, layout.ItemKey{PK: layout.CampaignPK(m.CampaignID), SK: layout.RecordSK(layout.EntityPrefix, m.TargetID)})
	}
	got, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, err
	}
	var out []layout.MentionItem
	for _, m := range items {
		if _, ok := got[layout.ItemKey{PK: layout.CampaignPK(m.CampaignID), SK: layout.RecordSK(layout.EntityPrefix, m.TargetID)}]; ok {
			out = append(out, m)
		}
	}
	return out, nil
}
