package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
	"github.com/lorekeep/lorekeep/shared/telemetry"
)

// Tag links (round3 5.11). A record's `tags` (locations, calendars, tags: every owner kind)
// name tags of its campaign; each (tag, record) pair is a member item in the tag's partition,
//
//	CAMPAIGN#c#TAG#tid   TM#<A|P>#<KIND>#<child id>   (entity_id)
//
// A when the record is private (admins only), P otherwise: the member items of a tag that a
// reader may see are one range. They are written in the record's own transaction, diffed
// against the record as read, each with an update of its tag's member pack (tagpacks.go)
// conditional on the tag existing with the privacy read (so no link names a deleted tag, and a
// private tag is named by admins only). A tag's delete removes its pack, then its id from every
// member (tagMembersGone), then its partition.

// setTags sets a record's (or entity's) tags on its slot sl: a home gets them all with their
// private ones, a public copy the projection (as layout.CopyItem writes them).
func setTags(u *dynamo.Update, sl layout.Slot, tags, private []int64) *dynamo.Update {
	if strings.HasPrefix(sl.SK, layout.PublicCopy) {
		return u.Set("tags", domain.VisibleTags(tags, private, false))
	}
	u = u.Set("tags", tags)
	if private = layout.PrivateTagsOf(tags, private); len(private) > 0 {
		return u.Set("private_tags", private)
	}
	return u.Remove("private_tags")
}

// errTagGone is a failed check of a tag a write links: deleted or made private since read.
var errTagGone = errors.New("store: a linked tag changed")

// tagPlan validates the tags next names that prev did not (prev nil: a create), reading the
// packs of the tags it adds or removes in one BatchGetItem, and returns the transaction part
// that moves the record's member items and updates those packs (m.ID is read when the part
// runs, after a create's ids are set). Unknown, deleting or, for
// a writer who is not an admin, private tags, and a tag naming itself are a 422 naming tags.N.
func (s *Store) tagPlan(ctx context.Context, k layout.KindSpec, m *domain.Meta, prev, next *domain.Owner) (func(*txBuilder), error) {
	var prevTags []int64
	prevPrivate := false
	if prev != nil {
		prevTags, prevPrivate = prev.Tags, prev.IsPrivate
	}
	moved := prevPrivate != next.IsPrivate
	// A writer who is not an admin neither sees nor drops the private tags (their ids are
	// left out of what it reads): they are kept whatever `tags` it sends.
	if prev != nil && !next.TagsByAdmin {
		for _, t := range layout.PrivateTagsOf(prev.Tags, prev.PrivateTags) {
			if !slices.Contains(next.Tags, t) {
				next.Tags = append(slices.Clone(next.Tags), t)
			}
		}
		if len(next.Tags) > domain.MaxTags {
			return nil, apperr.Invalid("tags", fmt.Sprintf("The record may not have more than %d tags.", domain.MaxTags))
		}
	}
	// Tags kept keep the privacy known (a tag's privacy change re-places its members:
	// relinkTagMembers); the checked ones get the privacy read below.
	if prev != nil {
		next.PrivateTags = layout.PrivateTagsOf(next.Tags, prev.PrivateTags)
	} else {
		next.PrivateTags = nil
	}
	var checked []int64 // tags that get a member item put: checked in the transaction
	for i, t := range next.Tags {
		if k.Prefix == layout.TagPrefix && t == m.ID && m.ID != 0 { // its home is written beside: one item twice
			return nil, apperr.Invalid(fmt.Sprintf("tags.%d", i), "A tag cannot be one of its own tags.")
		}
		if moved || !slices.Contains(prevTags, t) {
			checked = append(checked, t)
		}
	}
	var removed []int64
	for _, t := range prevTags {
		if moved || !slices.Contains(next.Tags, t) {
			removed = append(removed, t)
		}
	}
	if len(checked) == 0 && len(removed) == 0 {
		return nil, nil
	}
	cid := m.CampaignID
	packs, err := s.readTagPacks(ctx, cid, slices.Concat(checked, removed))
	if err != nil {
		return nil, err
	}
	privacy := map[int64]bool{}
	for _, t := range checked {
		p, ok := packs[t]
		isNew := !slices.Contains(prevTags, t)
		if !ok || (p.IsPrivate && !next.TagsByAdmin && isNew) {
			return nil, apperr.Invalid(fmt.Sprintf("tags.%d", slices.Index(next.Tags, t)), "The selected tags."+strconv.Itoa(slices.Index(next.Tags, t))+" is invalid.")
		}
		privacy[t] = p.IsPrivate
		next.PrivateTags = slices.DeleteFunc(next.PrivateTags, func(p int64) bool { return p == t })
		if p.IsPrivate {
			next.PrivateTags = append(next.PrivateTags, t)
		}
	}
	// Each tag's pack follows its member item in the same transaction; its conditional update
	// is also the check that a tag linked lives with the privacy read (packPlan).
	eid := next.EntityID
	if eid == 0 && prev != nil {
		eid = prev.EntityID
	}
	var packParts []func(*txBuilder)
	for _, t := range slices.Compact(slices.Sorted(slices.Values(slices.Concat(checked, removed)))) {
		mv := packMove{tid: t, eid: eid}
		if slices.Contains(removed, t) {
			mv.from = layout.MemberClass(prevPrivate)
		}
		if slices.Contains(checked, t) {
			mv.to, mv.check, mv.private = layout.MemberClass(next.IsPrivate), true, privacy[t]
		}
		part, err := s.packPlan(ctx, cid, packs[t], mv)
		if err != nil {
			return nil, err
		}
		if part != nil {
			packParts = append(packParts, part)
		}
	}
	return func(b *txBuilder) {
		b.part("tags", "tags", len(checked)+len(removed), func() {
			for _, t := range removed {
				key := layout.TagMemberKey(cid, t, prevPrivate, k.Prefix, m.ID)
				b.del(s.table.Delete("pk", key.PK).Range("sk", key.SK))
			}
			for _, t := range checked {
				key := layout.TagMemberKey(cid, t, next.IsPrivate, k.Prefix, m.ID)
				b.put(s.table.Put(layout.TagMember{PK: key.PK, SK: key.SK, EntityID: next.EntityID}))
			}
			for _, part := range packParts {
				part(b)
			}
		})
	}, nil
}

// tagLinksGone is the transaction part that removes the member items of a record being
// deleted or trashed, with its tags' packs (tagPlan to no tags).
func (s *Store) tagLinksGone(ctx context.Context, k layout.KindSpec, m *domain.Meta, o *domain.Owner) (func(*txBuilder), error) {
	none := *o
	none.Tags, none.PrivateTags, none.TagsByAdmin = nil, nil, true
	return s.tagPlan(ctx, k, m, o, &none)
}

// tagMembersGone removes deleted tag tid from every record that carries it (rewriteMembers),
// each member item going in its record's transaction. Its update time is kept, as Kanka's.
// Idempotent: the tag's delete, its retry, the sweeper or the migration finish it.
func (s *Store) tagMembersGone(ctx context.Context, cid, tid int64) error {
	return s.rewriteMembers(ctx, cid, tid, true, func(tags, private []int64) ([]int64, []int64, bool) {
		if !slices.Contains(tags, tid) {
			return nil, nil, false
		}
		drop := func(t int64) bool { return t == tid }
		return slices.DeleteFunc(slices.Clone(tags), drop), slices.DeleteFunc(slices.Clone(private), drop), true
	})
}

// relinkTagMembers places tag tid's id on its members as private says (a step of the tag's
// privacy change, calendarlinks.go): each member whose private_tags disagree is rewritten, so a
// non-admin's copy shows the id only while the tag is public. Idempotent.
func (s *Store) relinkTagMembers(ctx context.Context, cid, tid int64, private bool) error {
	return s.rewriteMembers(ctx, cid, tid, false, func(tags, ptags []int64) ([]int64, []int64, bool) {
		if !slices.Contains(tags, tid) || slices.Contains(ptags, tid) == private {
			return nil, nil, false
		}
		ptags = slices.DeleteFunc(slices.Clone(ptags), func(t int64) bool { return t == tid })
		if private {
			ptags = append(ptags, tid)
		}
		return tags, ptags, true
	})
}

// rewriteMembers rewrites the tags of every record tag tid links, found by its member items
// (read consistently), in transactions of at most maxTx items: edit says a member's new tags
// and private tags (false: leave it); its home, public copy and entity (and its copy) get them,
// conditional on the version read (bumped: a concurrent write of the record conflicts and is
// retried on fresh data), with its member item deleted in the same transaction when drop.
func (s *Store) rewriteMembers(ctx context.Context, cid, tid int64, drop bool, edit func(tags, private []int64) ([]int64, []int64, bool)) error {
	return apperr.RetryConflicts(ctx, func() error {
		var members []layout.TagMember
		err := s.table.Get("pk", layout.ChildPK(cid, layout.TagPrefix, tid)).Range("sk", dynamo.BeginsWith, layout.TagMemberPrefix).Consistent(true).All(ctx, &members)
		if err != nil || len(members) == 0 {
			return layout.Wrap(err)
		}
		type member struct {
			k   layout.KindSpec
			id  int64
			key layout.TagMember
		}
		var ms []member
		var homes []layout.ItemKey
		for _, tm := range members {
			parts := strings.Split(tm.SK, "#") // TM, class, KIND, id
			if len(parts) != 4 {
				continue
			}
			k, ok := layout.KindOf(parts[2])
			id, err := strconv.ParseInt(parts[3], 10, 64)
			if !ok || err != nil {
				continue
			}
			ms = append(ms, member{k, id, tm})
			homes = append(homes, layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Prefix, id)})
		}
		items, err := s.getItems(ctx, homes...)
		if err != nil {
			return err
		}
		var txs []*txBuilder
		for i, mb := range ms {
			if len(txs) == 0 || txs[len(txs)-1].size()+5 > maxTx {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			if drop {
				b.del(s.table.Delete("pk", mb.key.PK).Range("sk", mb.key.SK))
			}
			raw, ok := items[homes[i]]
			if !ok {
				continue // a stale member item: the record is gone
			}
			var rec struct {
				layout.MetaAttrs
				layout.OwnerAttrs
			}
			if err := dynamo.UnmarshalItem(raw, &rec); err != nil {
				return err
			}
			m, o := rec.Meta(), rec.Owner()
			tags, private, changed := edit(o.Tags, o.PrivateTags)
			if !changed {
				continue
			}
			for _, sl := range mb.k.Slots(&m, &o) {
				u := s.table.Update("pk", sl.PK).Range("sk", sl.SK).Set("version", m.Version+1).If("'version' = ?", m.Version)
				b.update(setTags(u, sl, tags, private))
			}
			for _, sl := range layout.EntitySlots(&m, &o) {
				b.update(setTags(s.table.Update("pk", sl.PK).Range("sk", sl.SK).If("attribute_exists(pk)"), sl, tags, private))
			}
		}
		return runTxs(ctx, txs)
	})
}

// TagChange is a change of one of a record's tags (Kanka's entities/{id}/entity_tags): Drop
// leaves (0: none), Put arrives (0: none), in Drop's place when both are set (a PUT moves the
// row to another tag). MustHave makes Drop's absence ErrNotFound (the row is gone); ByAdmin
// says who writes, for the private tags' checks.
type TagChange struct {
	Drop, Put         int64
	ByAdmin, MustHave bool
}

// ChangeEntityTag applies c to the record of entity eid, with the checks and links of a
// record update that changes its `tags` (tagPlan): the record's home, public copy and entity
// get the new list, conditional on the version read (bumped; updated_at kept, as a tag's
// delete does); a lost race re-reads. It reports whether anything changed: adding a tag already
// there or removing one absent does not. Errors of the tag name `tag_id`; the record's tags
// are at most domain.MaxTags.
func (s *Store) ChangeEntityTag(ctx context.Context, cid, eid int64, c TagChange) (bool, error) {
	return s.changeEntityTag(ctx, cid, eid, c.Drop, c.Put, c.ByAdmin, c.MustHave)
}

// changeEntityTag removes tag drop (0: none) and adds tag put (0: none) on entity eid's
// record, retried on conflicts; mustHave makes drop's absence ErrNotFound.
func (s *Store) changeEntityTag(ctx context.Context, cid, eid, drop, put int64, byAdmin, mustHave bool) (bool, error) {
	var changed bool
	err := apperr.RetryConflicts(ctx, func() (err error) {
		changed, err = s.setEntityTag(ctx, cid, eid, drop, put, byAdmin, mustHave)
		return err
	})
	return changed, err
}

func (s *Store) setEntityTag(ctx context.Context, cid, eid, drop, put int64, byAdmin, mustHave bool) (bool, error) {
	e, err := s.GetEntity(ctx, cid, eid)
	if err != nil {
		return false, err
	}
	k, ok := layout.OwnerKindOf(e.Type)
	if !ok {
		return false, apperr.ErrNotFound
	}
	home := layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(k.Prefix, e.ChildID)}
	got, err := s.getItems(ctx, home)
	if err != nil {
		return false, err
	}
	raw, ok := got[home]
	if !ok {
		return false, apperr.ErrNotFound
	}
	var rec struct {
		layout.MetaAttrs
		layout.OwnerAttrs
	}
	if err := dynamo.UnmarshalItem(raw, &rec); err != nil {
		return false, err
	}
	m, prev := rec.Meta(), rec.Owner()
	next := prev
	next.TagsByAdmin = byAdmin
	next.Tags = slices.Clone(prev.Tags)
	// A private tag the record has is, for a writer who is not an admin, as absent as one it
	// lacks: the same 422 (answering 200 would tell a member which private tags it carries).
	if put != 0 && !byAdmin && slices.Contains(layout.PrivateTagsOf(prev.Tags, prev.PrivateTags), put) {
		return false, entityTagErr(apperr.Invalid("tags", "hidden"))
	}
	if drop != 0 && drop == put { // onto itself: nothing moves (the row, absent, is a 404)
		if mustHave && !slices.Contains(prev.Tags, drop) {
			return false, apperr.ErrNotFound
		}
		return false, nil
	}
	if drop != 0 {
		i := slices.Index(next.Tags, drop)
		switch {
		case i < 0 && mustHave:
			return false, apperr.ErrNotFound
		case i >= 0 && put != 0 && !slices.Contains(next.Tags, put):
			next.Tags[i] = put // the row moves to the other tag, in its place
		case i >= 0:
			next.Tags = slices.Delete(next.Tags, i, i+1)
		}
	}
	if put != 0 && !slices.Contains(next.Tags, put) {
		if len(next.Tags) >= domain.MaxTags {
			return false, apperr.Invalid("tag_id", fmt.Sprintf("The entity may not have more than %d tags.", domain.MaxTags))
		}
		next.Tags = append(next.Tags, put)
	}
	if slices.Equal(next.Tags, prev.Tags) {
		return false, nil
	}
	plan, err := s.tagPlan(ctx, k, &m, &prev, &next)
	if err != nil {
		return false, entityTagErr(err)
	}
	b := s.newTx()
	for _, sl := range k.Slots(&m, &prev) {
		u := s.table.Update("pk", sl.PK).Range("sk", sl.SK).Set("version", m.Version+1).If("'version' = ?", m.Version)
		b.update(setTags(u, sl, next.Tags, next.PrivateTags))
	}
	for _, sl := range layout.EntitySlots(&m, &prev) {
		b.update(setTags(s.table.Update("pk", sl.PK).Range("sk", sl.SK).If("attribute_exists(pk)"), sl, next.Tags, next.PrivateTags))
	}
	if plan != nil {
		plan(b)
	}
	return true, entityTagErr(tagsChanged(b.run(ctx)))
}

// entityTagErr names `tag_id` for a tag refused by tagPlan (which names `tags.N`).
func entityTagErr(err error) error {
	if apperr.ErrorCode(err) == apperr.EInvalid {
		return apperr.Invalid("tag_id", "The selected tag id is invalid.")
	}
	return err
}

// tagListByMembers switches the tags[] filter's read of the tags' member items (tests compare
// it with the filtered scan of the range it replaces).
var tagListByMembers = true

// listByTags answers a list filtered by tags[] alone (all or any) from the tags' member items
// of the list's kind, instead of a filtered scan of the range: one Query per tag and reader
// class (P; A too for the admins' range), concurrent; ids intersected (all) or united (any) in
// memory; then the page's records in one BatchGetItem. Items evaluated: the members of those
// tags of that kind, plus the page. Not ok (the caller scans) for a range that is not an owner
// kind's. As the scan, a private tag matches nothing for non-admins (their copies' `tags` are
// projected: its id is not there). exclude and none select by absence: the filtered scan
// answers them.
func (s *Store) listByTags(ctx context.Context, l listSpec, p domain.PageRequest) ([]row, int, string, bool, error) {
	r := l.ranges[0]
	kind, admin := strings.TrimSuffix(r.Prefix, "#"), true
	if pub, ok := strings.CutPrefix(kind, layout.PublicCopy); ok {
		kind, admin = pub, false
	}
	cid, err := strconv.ParseInt(strings.TrimPrefix(r.PK, layout.CampaignPrefix), 10, 64)
	if err != nil || !layout.IsOwnerPrefix(kind) || r.PK != layout.CampaignPK(cid) {
		return nil, 0, "", false, nil
	}
	classes := []string{"P"}
	if admin {
		classes = append(classes, "A")
	}
	tags := slices.Compact(slices.Sorted(slices.Values(l.f.Tags)))
	got := make([][]layout.TagMember, len(tags)*len(classes))
	g, gctx := errgroup.WithContext(telemetry.Fanout(ctx))
	for i, t := range tags {
		for j, c := range classes {
			g.Go(func() error {
				return layout.Wrap(s.table.Get("pk", layout.ChildPK(cid, layout.TagPrefix, t)).Range("sk", dynamo.BeginsWith, layout.TagMemberPrefix+c+"#"+kind+"#").
					Project("pk", "sk").Consistent(true).All(gctx, &got[i*len(classes)+j]))
			})
		}
	}
	// A private tag matches nothing for non-admins (their copies' tags leave it out): the tags'
	// homes are read beside the members.
	var homes map[layout.ItemKey]dynamo.Item
	if !admin {
		g.Go(func() error {
			keys := make([]layout.ItemKey, len(tags))
			for i, t := range tags {
				keys[i] = layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.TagPrefix, t)}
			}
			var err error
			homes, err = s.getItems(gctx, keys...)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, "", true, err
	}
	hits := map[int64]int{} // child id: how many of the tags name it
	for i, t := range tags {
		if !admin {
			var private bool
			home, ok := homes[layout.ItemKey{PK: layout.CampaignPK(cid), SK: layout.RecordSK(layout.TagPrefix, t)}]
			if ok {
				_ = dynamo.Unmarshal(home["is_private"], &private)
			}
			if !ok || private {
				continue
			}
		}
		seen := map[int64]bool{}
		for j := range classes {
			for _, m := range got[i*len(classes)+j] {
				id, err := strconv.ParseInt(m.SK[strings.LastIndexByte(m.SK, '#')+1:], 10, 64)
				if err == nil && !seen[id] {
					seen[id] = true
					hits[id]++
				}
			}
		}
	}
	var ids []int64
	for id, n := range hits {
		if l.f.TagsMatch == domain.TagsAny || n == len(tags) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	total := len(ids)
	from := (p.Page - 1) * p.Limit
	if after, ok := domain.DecodeCursor(p.Cursor); ok {
		from, _ = slices.BinarySearch(ids, after+1)
	}
	if from >= len(ids) {
		return nil, total, "", true, nil
	}
	page := ids[from:min(from+p.Limit, len(ids))]
	keys := make([]layout.ItemKey, len(page))
	for i, id := range page {
		keys[i] = layout.ItemKey{PK: r.PK, SK: r.SK(id)}
	}
	items, err := s.getItems(ctx, keys...)
	if err != nil {
		return nil, 0, "", true, err
	}
	rows := make([]row, 0, len(page))
	for i, id := range page {
		if it, ok := items[keys[i]]; ok { // a member whose record is gone meanwhile is skipped
			rows = append(rows, row{id, it})
		}
	}
	next := ""
	if from+p.Limit < len(ids) && len(rows) > 0 {
		next = domain.EncodeCursor(page[len(page)-1])
	}
	return rows, total, next, true, nil
}
