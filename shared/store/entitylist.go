package store

import (
	"context"
	"strings"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// ListEntities reads one page of the campaign's entities (Kanka's entities list), ordered by id,
// from the entity items' audience ranges (entitySlots): they mirror their records, so the page
// reads nothing else. A list by kind alone of every kind Lorekeep stores is unfiltered (the
// range counters answer its total and start); any other filter reads the range once.
func (s *Store) ListEntities(ctx context.Context, cid int64, f domain.EntityFilter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Entity], error) {
	l := listSpec{ranges: ownerRanges(entityPrefix, cid, !hidePrivate)}
	var types []any
	for _, t := range f.Types {
		if t == locationKind.entityType || t == calendarKind.entityType {
			types = append(types, t)
		}
	}
	switch {
	case len(f.Types) > 0 && len(types) == 0: // only kinds Lorekeep does not store
		return domain.Page[domain.Entity]{Items: []domain.Entity{}}, nil
	case onlyName(f.Filter): // the name shards answer it (names.go)
		return s.entitiesMatching(ctx, cid, f.Types, !hidePrivate, termsMatch(f.Name), p)
	case len(f.Types) > 0 && len(types) < len(domain.EntityTypes):
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(types)), ", ")
		l.where("'type' IN ("+marks+")", types...)
	}
	l.filter(f.Filter)
	return listPage(ctx, s, l, p, func(it entityItem) domain.Entity { return *it.entity() })
}

// mirror writes a record's mirror item (its entity) to the slots next, removing it from the
// slots of prev that next lacks, and counts the change. The mirror has no version of its own:
// the record's write in the same transaction is conditional on the record's; the home must
// still exist.
func (b *txBuilder) mirror(item dynamo.Item, prev, next []slot) {
	in := func(sls []slot, sk string) bool {
		for _, sl := range sls {
			if sl.sk == sk {
				return true
			}
		}
		return false
	}
	for _, sl := range next {
		put := b.s.table.Put(copyItem(item, sl))
		if sl.home {
			put = put.If("attribute_exists(pk)")
		}
		b.put(put)
		if !in(prev, sl.sk) {
			b.count(sl, 1)
		}
	}
	for _, sl := range prev {
		if !in(next, sl.sk) {
			b.del(b.s.table.Delete("pk", sl.pk).Range("sk", sl.sk))
			b.count(sl, -1)
		}
	}
}
