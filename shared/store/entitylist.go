package store

import (
	"context"
	"slices"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// ListEntities reads one page of the campaign's entities (Kanka's entities list), ordered by id,
// from the entity items' audience ranges (layout.EntitySlots): they mirror their records, so the page
// reads nothing else. A list by kind alone of every kind Lorekeep stores is unfiltered (the
// range counters answer its total and start); any other filter reads the range once. A list of
// one kind reads that kind's own ranges instead (its records, rendered as their entities): a
// kind's ids and its entities' ids come from one sequence update (createOwner), so the kind's
// id order is its entities' order, and the page costs limit+1 items, not a filtered read of
// every entity.
func (s *Store) ListEntities(ctx context.Context, cid int64, f domain.EntityFilter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Entity], error) {
	l := listSpec{ranges: ownerRanges(layout.EntityPrefix, cid, !hidePrivate)}
	served := f.ServedTypes()
	switch {
	case len(served) == 0: // only kinds Lorekeep does not store
		return domain.Page[domain.Entity]{Items: []domain.Entity{}}, nil
	case onlyName(f.Filter): // the name shards answer it (names.go)
		return s.entitiesMatching(ctx, cid, served, !hidePrivate, termsMatch(f.Name), p)
	case len(served) == 1:
		k, _ := layout.OwnerKindOf(served[0]) // served types are owner kinds
		l.ranges = ownerRanges(k.Prefix, cid, !hidePrivate)
		l.filter(f.Filter)
		return listPage(ctx, s, l, p, func(it struct {
			layout.MetaAttrs
			layout.OwnerAttrs
		}) domain.Entity {
			m, o := it.Meta(), it.Owner()
			return *layout.EntityItemOf(k, &m, &o).Entity()
		})
	}
	l.filter(f.Filter)
	if len(served) < len(domain.EntityTypes) { // some kinds only: a filtered read of the entities
		conds, args := make([]string, len(served)), make([]any, len(served))
		for i, t := range served {
			conds[i], args[i] = "'type' = ?", t
		}
		l.where("("+strings.Join(conds, " OR ")+")", args...)
		l.keep = func(it dynamo.Item) bool {
			var typ string
			_ = dynamo.Unmarshal(it["type"], &typ)
			return slices.Contains(served, typ)
		}
	}
	return listPage(ctx, s, l, p, func(it layout.EntityItem) domain.Entity { return *it.Entity() })
}

// mirror writes a record's mirror item (its entity) to the slots next, removing it from the
// slots of prev that next lacks, and counts the change. The mirror has no version of its own:
// the record's write in the same transaction is conditional on the record's; the home must
// still exist.
func (b *txBuilder) mirror(item dynamo.Item, prev, next []layout.Slot) {
	in := func(sls []layout.Slot, sk string) bool {
		for _, sl := range sls {
			if sl.SK == sk {
				return true
			}
		}
		return false
	}
	for _, sl := range next {
		put := b.s.table.Put(layout.CopyItem(item, sl))
		if sl.Home {
			put = put.If("attribute_exists(pk)")
		}
		b.put(put)
		if !in(prev, sl.SK) {
			b.count(sl, 1)
		}
	}
	for _, sl := range prev {
		if !in(next, sl.SK) {
			b.del(b.s.table.Delete("pk", sl.PK).Range("sk", sl.SK))
			b.count(sl, -1)
		}
	}
}
