package store

import (
	"context"
	"slices"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// ListEntities reads one page of the campaign's entities (Kanka's entities list), ordered by id:
// one Query on the entity items, which mirror their records. hidePrivate hides private ones.
func (s *Store) ListEntities(ctx context.Context, cid int64, f domain.EntityFilter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Entity], error) {
	l := listSpec{pk: campaignPK(cid), prefix: entityPrefix + "#", hidePrivate: hidePrivate}
	// Each kind's counter counts its entities: the total of a list by kinds alone is their sum.
	kinds := map[string]ownerKind{locationKind.entityType: locationKind, calendarKind.entityType: calendarKind}
	types := f.Types
	if len(types) == 0 {
		types = domain.EntityTypes
	}
	for _, t := range types {
		if k, ok := kinds[t]; ok && !slices.Contains(l.counters, k.counterSK()) {
			l.counters = append(l.counters, k.counterSK())
		}
	}
	if len(f.Types) > 0 {
		if len(l.counters) == 0 { // only kinds Lorekeep does not store: nothing to read
			return domain.Page[domain.Entity]{Items: []domain.Entity{}}, nil
		}
		marks := make([]string, len(f.Types))
		args := make([]any, len(f.Types))
		for i, t := range f.Types {
			marks[i], args[i] = "?", t
		}
		l.where("'type' IN ("+strings.Join(marks, ", ")+")", args...)
	}
	byKind := len(l.conds)
	l.filter(f.Filter)
	l.counted = len(l.conds) == byKind
	return listPage(ctx, s, l, p, func(it entityItem) domain.Entity { return *it.entity() })
}

func (it entityItem) sortKey() string { return it.SK }
