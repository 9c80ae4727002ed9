package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

type locationItem struct {
	metaAttrs
	ownerAttrs
	ParentID     *int64 `dynamo:"parent_location_id,omitempty"`
	MapURL       string `dynamo:"map_url,omitempty"`
	IsMapPrivate bool   `dynamo:"is_map_private"`
	// ParentHidden: the parent is private, so the public copy leaves it out (copyItem).
	ParentHidden bool `dynamo:"parent_hidden,omitempty"`
}

var locationKind = ownerKind{prefix: locationPrefix, entityType: "location"}

func toLocationItem(l *domain.Location) locationItem {
	it := locationItem{metaAttrs: toMetaAttrs(campaignPK(l.CampaignID), recordSK(locationPrefix, l.ID), l.Meta),
		ownerAttrs: toOwnerAttrs(l.Owner), ParentID: l.ParentID, MapURL: l.MapURL, IsMapPrivate: l.IsMapPrivate,
		ParentHidden: l.ParentID != nil && l.ParentPrivate}
	return it
}

func (it locationItem) location() domain.Location {
	return domain.Location{Meta: it.meta(), Owner: it.owner(), ParentID: it.ParentID, MapURL: it.MapURL, IsMapPrivate: it.IsMapPrivate}
}

// GetLocation reads one location of the campaign and its public copy (both read ahead on
// location routes: one round trip, no counter); ErrNotFound when there is none. ParentPrivate
// comes from the public copy, which has no parent when the parent is private (layout 3), so
// it is known for public locations, the only ones a non-admin sees.
func (s *Store) GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error) {
	home := itemKey{campaignPK(cid), recordSK(locationPrefix, id)}
	pub := itemKey{campaignPK(cid), publicCopy + recordSK(locationPrefix, id)}
	items, err := s.getItems(ctx, home, pub)
	if err != nil {
		return nil, err
	}
	raw, ok := items[home]
	if !ok {
		return nil, apperr.ErrNotFound
	}
	var it locationItem
	if err := dynamo.UnmarshalItem(raw, &it); err != nil {
		return nil, err
	}
	l := it.location()
	if c, ok := items[pub]; ok && l.ParentID != nil {
		_, shown := c["parent_location_id"]
		l.ParentPrivate = !shown
	}
	return &l, nil
}

// LocationAncestry reads the chain from location id upwards (id first), at most max links: the
// input of the parent and cycle checks, and of the conditions that make the write depend on it.
// A missing first location gives an empty chain.
func (s *Store) LocationAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error) {
	var chain []domain.AncestorLink
	for next := &id; next != nil && len(chain) < max; {
		var it struct {
			ID        int64  `dynamo:"id"`
			IsPrivate bool   `dynamo:"is_private"`
			ParentID  *int64 `dynamo:"parent_location_id"`
		}
		err := s.getItem(ctx, campaignPK(cid), recordSK(locationPrefix, *next), &it, "id", "is_private", "parent_location_id")
		if errors.Is(err, apperr.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		chain = append(chain, domain.AncestorLink{ID: it.ID, IsPrivate: it.IsPrivate, ParentID: it.ParentID})
		next = it.ParentID
	}
	return chain, nil
}

// ListLocations reads one page of the campaign's locations, ordered by id: an admin's range
// holds every location, everyone else's only the public ones.
func (s *Store) ListLocations(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Location], error) {
	if onlyName(f) { // the name shards answer it (names.go)
		return listByName(ctx, s, cid, locationKind, f.Name, !hidePrivate, p, locationItem.location)
	}
	l := listSpec{ranges: ownerRanges(locationPrefix, cid, !hidePrivate)}
	l.filter(f)
	return listPage(ctx, s, l, p, locationItem.location)
}

// parentChecks makes a location write depend on its parent chain as read: every link still
// exists and still has the parent it had, so two concurrent moves cannot close a cycle (one of
// them fails its check and is retried on fresh data) and no location lands under a deleted one.
// The parent's check also holds its privacy as read, which placed the public copy.
func (s *Store) parentChecks(ctx context.Context, cid int64, parentID int64, chain []domain.AncestorLink, depth int) (func(*txBuilder), bool, error) {
	if len(chain) == 0 || chain[0].ID != parentID {
		var err error
		if chain, err = s.LocationAncestry(ctx, cid, parentID, depth); err != nil {
			return nil, false, err
		}
		if len(chain) == 0 {
			return nil, false, apperr.ErrConflict // the parent went since it was checked
		}
	}
	chain = chain[:min(len(chain), depth)]
	return func(b *txBuilder) {
		for i, link := range chain {
			c := s.table.Check("pk", campaignPK(cid)).Range("sk", recordSK(locationPrefix, link.ID))
			cond, args := "attribute_exists(pk) AND attribute_not_exists('parent_location_id')", []any{}
			if link.ParentID != nil {
				cond, args = "'parent_location_id' = ?", []any{*link.ParentID}
			}
			if i == 0 {
				cond, args = cond+" AND 'is_private' = ?", append(args, link.IsPrivate)
			}
			b.check(c.If(cond, args...))
		}
	}, chain[0].IsPrivate, nil
}

// childLink is the item that lists a child location in its parent's partition (beside the
// parent's map points), written with the child: the parent's delete and privacy change find
// its children there, strongly consistent, where an index could lag behind a child written
// just before. It carries the child's privacy (related=1 lists a non-admin's children by it).
type childLink struct {
	PK        string `dynamo:"pk"`
	SK        string `dynamo:"sk"`
	ID        int64  `dynamo:"id"`
	IsPrivate bool   `dynamo:"is_private"`
	// OrphanedBy (the trash time) and ChildVersion mark the link of a child its parent's trash
	// made a root: the parent's restore re-parents it if it is still that version.
	OrphanedBy   string `dynamo:"orphaned_by,omitempty"`
	ChildVersion int64  `dynamo:"child_version,omitempty"`
}

// linkParent moves location id's link from parent prev to parent next (either may be nil), and
// rewrites it when the location's privacy changes.
func (s *Store) linkParent(cid, id int64, prev, next *int64, prevPrivate, private bool) func(*txBuilder) {
	return func(b *txBuilder) {
		moved := prev == nil || next == nil || *prev != *next
		if prev != nil && moved {
			k := childLinkKey(cid, *prev, id)
			b.del(s.table.Delete("pk", k.pk).Range("sk", k.sk))
		}
		if next != nil && (moved || prevPrivate != private) {
			k := childLinkKey(cid, *next, id)
			b.put(s.table.Put(childLink{PK: k.pk, SK: k.sk, ID: id, IsPrivate: private}))
		}
	}
}

// errParentChanged is a failed check of a new location's parent: gone, or of another privacy
// than the one its public copy was placed by. CreateLocation reads the parent again.
var errParentChanged = errors.New("store: the parent location changed")

// CreateLocation stores a new location, its entity and its link in its parent in one
// transaction, with ids from the campaign's sequences, on condition that its parent still
// exists with the privacy read (which places the public copy): two round trips (three when the
// parent was not read before, by the parent checks).
func (s *Store) CreateLocation(ctx context.Context, l *domain.Location) error {
	for attempt := 0; ; attempt++ {
		var checks []func(*txBuilder)
		if l.ParentID != nil {
			private, ok, err := s.parentPrivacy(ctx, l.CampaignID, *l.ParentID, l.Ancestry)
			if err != nil {
				return err
			}
			if !ok {
				return apperr.Invalid("parent_location_id", "The selected parent location id is invalid.")
			}
			l.ParentPrivate = private
			pk, sk := campaignPK(l.CampaignID), recordSK(locationPrefix, *l.ParentID)
			checks = append(checks, func(b *txBuilder) {
				b.needIf(pk, sk, errParentChanged, "attribute_exists(pk) AND 'is_private' = ?", private)
				s.linkParent(l.CampaignID, l.ID, nil, l.ParentID, false, l.IsPrivate)(b)
			})
		}
		err := s.createOwner(ctx, locationKind, &l.Meta, &l.Owner, func() any { return toLocationItem(l) }, checks...)
		if !errors.Is(err, errParentChanged) {
			return err
		}
		if attempt >= domain.WriteAttempts {
			return apperr.ErrConflict
		}
		l.Ancestry = nil // read the parent again: gone (a 422) or of another privacy
	}
}

// parentPrivacy is whether parent is private, from the chain read for the parent checks when
// it starts there, else read (one GetItem); ok is false when the parent does not exist.
func (s *Store) parentPrivacy(ctx context.Context, cid, parent int64, chain []domain.AncestorLink) (private, ok bool, err error) {
	if len(chain) == 0 || chain[0].ID != parent {
		if chain, err = s.LocationAncestry(ctx, cid, parent, 1); err != nil || len(chain) == 0 {
			return false, false, err
		}
	}
	return chain[0].IsPrivate, true, nil
}

// UpdateLocation writes next over prev, on condition that nobody wrote since prev was read
// (ErrConflict otherwise), and, when the parent changes, that the new parent chain is still the
// one read (next.Ancestry). The entity, the counts and the link follow in the same transaction;
// the public copy is placed by its parent's privacy, checked in it; a change of privacy
// re-places the public copies of the children (childCopies).
func (s *Store) UpdateLocation(ctx context.Context, prev, next *domain.Location) error {
	cid := next.CampaignID
	var checks []func(*txBuilder)
	switch {
	case next.ParentID != nil && (prev.ParentID == nil || *prev.ParentID != *next.ParentID):
		c, private, err := s.parentChecks(ctx, cid, *next.ParentID, next.Ancestry, domain.MaxLocationDepth)
		if err != nil {
			return err
		}
		next.ParentPrivate = private
		checks = append(checks, c)
	case next.ParentID != nil && !next.IsPrivate:
		// The public copy shows the parent only when it is public: read it and hold it.
		private, ok, err := s.parentPrivacy(ctx, cid, *next.ParentID, next.Ancestry)
		if err != nil {
			return err
		}
		next.ParentPrivate = private || !ok // a parent being deleted is shown as none
		c := s.table.Check("pk", campaignPK(cid)).Range("sk", recordSK(locationPrefix, *next.ParentID))
		if ok {
			c = c.If("attribute_exists(pk) AND 'is_private' = ?", private)
		} else {
			c = c.If("attribute_not_exists(pk)")
		}
		checks = append(checks, func(b *txBuilder) { b.check(c) })
	}
	checks = append(checks, s.linkParent(cid, next.ID, prev.ParentID, next.ParentID, prev.IsPrivate, next.IsPrivate))
	if prev.IsPrivate != next.IsPrivate {
		c, err := s.childCopies(ctx, cid, next.ID, next.IsPrivate)
		if err != nil {
			return err
		}
		checks = append(checks, c)
	}
	return s.updateOwner(ctx, locationKind, &prev.Meta, &next.Meta, &prev.Owner, &next.Owner, func() any { return toLocationItem(next) }, checks...)
}

// childCopies re-places the public copies of location pid's public children when pid becomes
// private (their parent leaves the copy) or public (it returns), in pid's own transaction: each
// copy's update is conditional on the child's version read, and every child write checks its
// parent's privacy, so no copy shows a private parent. The children are a variable part of
// the transaction budget: more than fit answer 422 (is_private) and change nothing. Cost: one
// Query of the links (at most maxTx+1) and one BatchGetItem of the children's versions.
func (s *Store) childCopies(ctx context.Context, cid, pid int64, private bool) (func(*txBuilder), error) {
	var links []childLink
	err := s.table.Get("pk", mapPointsPK(cid, pid)).Range("sk", dynamo.BeginsWith, childLinkPrefix).
		Consistent(true).Limit(maxTx+1).All(ctx, &links)
	if err != nil {
		return nil, wrap(err)
	}
	var public []dynamo.Keyed
	for _, l := range links {
		if !l.IsPrivate {
			public = append(public, dynamo.Keys{campaignPK(cid), recordSK(locationPrefix, l.ID)})
		}
	}
	if len(public) > maxTx { // refused whatever else the write holds: read no more
		return func(b *txBuilder) { b.reserve("is_private", "child locations", len(public)) }, nil
	}
	var rows []struct {
		ID        int64  `dynamo:"id"`
		Version   int64  `dynamo:"version"`
		IsPrivate bool   `dynamo:"is_private"`
		ParentID  *int64 `dynamo:"parent_location_id"`
	}
	if len(public) > 0 {
		err = s.table.Batch("pk", "sk").Get(public...).Project("id", "version", "is_private", "parent_location_id").Consistent(true).All(ctx, &rows)
		if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
			return nil, wrap(err)
		}
	}
	return func(b *txBuilder) {
		n := 0
		for _, r := range rows {
			if !r.IsPrivate && r.ParentID != nil && *r.ParentID == pid {
				n++
			}
		}
		b.part("is_private", "child locations", n, func() {
			for _, r := range rows {
				if r.IsPrivate || r.ParentID == nil || *r.ParentID != pid {
					continue // a stale link, or a child made private since
				}
				u := s.table.Update("pk", campaignPK(cid)).Range("sk", publicCopy+recordSK(locationPrefix, r.ID)).If("'version' = ?", r.Version)
				if private {
					u = u.Remove("parent_location_id")
				} else {
					u = u.Set("parent_location_id", pid)
				}
				b.update(u)
			}
		})
	}, nil
}

// DeleteLocation moves a location to the trash (trash.go): its children become roots (put back
// by a restore), its map points, events and notes stay, unreachable, until the purge.
func (s *Store) DeleteLocation(ctx context.Context, l *domain.Location) error {
	return s.trashOwner(ctx, locationKind, &l.Meta, &l.Owner, toLocationItem(l), s.linkParent(l.CampaignID, l.ID, l.ParentID, nil, l.IsPrivate, l.IsPrivate))
}

// ResumeLocationDelete finishes a delete of location id that failed after its first step; it
// reports whether there was one.
func (s *Store) ResumeLocationDelete(ctx context.Context, cid, id int64) (bool, error) {
	return s.resumeDelete(ctx, cid, locationPrefix, id)
}

// orphanChildren makes the children of location pid roots, as Kanka does: found by their links
// in its partition, read consistently, and rewritten (with their copies, their links removed)
// in transactions of 30, conditional on the version read. A child moved meanwhile is read again.
// For a trash (mark) the links stay, marked with the trash and the child's new version, for the
// restore (adoptChildren); links marked already are left as they are.
func (s *Store) orphanChildren(ctx context.Context, cid, pid int64, mark bool) error {
	for attempt := 0; ; attempt++ {
		var links []childLink
		err := s.table.Get("pk", mapPointsPK(cid, pid)).Range("sk", dynamo.BeginsWith, childLinkPrefix).Consistent(true).All(ctx, &links)
		if err != nil || len(links) == 0 {
			return wrap(err)
		}
		keys := make([]itemKey, len(links))
		for i, k := range links {
			keys[i] = itemKey{campaignPK(cid), recordSK(locationPrefix, k.ID)}
		}
		items, err := s.getItems(ctx, keys...)
		if err != nil {
			return err
		}
		now := s.now()
		var txs []*txBuilder
		for _, link := range links {
			if len(txs) == 0 || txs[len(txs)-1].size()+9 > maxTx-10 {
				txs = append(txs, s.newTx())
			}
			b := txs[len(txs)-1]
			if mark && link.OrphanedBy != "" {
				continue
			}
			raw, ok := items[itemKey{campaignPK(cid), recordSK(locationPrefix, link.ID)}]
			var it locationItem
			if ok {
				if err := dynamo.UnmarshalItem(raw, &it); err != nil {
					return err
				}
			}
			prev := it.location()
			if !ok || prev.ParentID == nil || *prev.ParentID != pid {
				b.del(s.table.Delete("pk", link.PK).Range("sk", link.SK)) // a stale link
				continue
			}
			next := prev.Clone()
			next.ParentID, next.Version, next.UpdatedAt = nil, prev.Version+1, now
			if mark {
				b.put(s.table.Put(childLink{PK: link.PK, SK: link.SK, ID: link.ID, IsPrivate: link.IsPrivate,
					OrphanedBy: formatTime(now), ChildVersion: next.Version}))
			} else {
				b.del(s.table.Delete("pk", link.PK).Range("sk", link.SK))
			}

			b.place(marshal(toLocationItem(next)), locationKind.slots(&prev.Meta, &prev.Owner),
				locationKind.slots(&next.Meta, &next.Owner), prev.Version)
			b.syncMove(ownerRef(locationPrefix, &prev.Meta, &prev.Owner), ownerRef(locationPrefix, &next.Meta, &next.Owner))
			// Its entity mirrors it, update time included (so does its sync pointer).
			b.mirror(marshal(entityItemOf(locationKind, &next.Meta, &next.Owner)), entitySlots(&prev.Meta, &prev.Owner), entitySlots(&next.Meta, &next.Owner))
			b.syncMove(entityRef(&prev.Meta, &prev.Owner), entityRef(&next.Meta, &next.Owner))
		}
		err = runTxs(ctx, txs)
		if !errors.Is(err, apperr.ErrConflict) || attempt >= domain.WriteAttempts {
			return err
		}
	}
}
