package store

import (
	"context"
	"slices"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// ListEntities reads one page of the campaign's entities (Kanka's entities list), ordered by id,
// from the entity items, which mirror their records. hidePrivate hides private ones. No counter
// counts the entity items by id bucket, so the range is read once, filtered and counted.
func (s *Store) ListEntities(ctx context.Context, cid int64, f domain.EntityFilter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Entity], error) {
	l := listSpec{ranges: []listRange{{pk: campaignPK(cid), prefix: entityPrefix + "#"}}}
	types := []string{}
	for _, t := range f.Types {
		if slices.Contains(domain.EntityTypes, t) {
			types = append(types, t)
		}
	}
	if len(f.Types) > 0 && len(types) == 0 { // only kinds Lorekeep does not store: nothing to read
		return domain.Page[domain.Entity]{Items: []domain.Entity{}}, nil
	}
	if len(types) == 0 {
		types = domain.EntityTypes
	}
	marks := make([]string, len(types))
	args := make([]any, len(types))
	for i, t := range types {
		marks[i], args[i] = "?", t
	}
	l.where("'type' IN ("+strings.Join(marks, ", ")+")", args...)
	if hidePrivate {
		l.where("'is_private' = ?", false)
	}
	l.filter(f.Filter)
	return listPage(ctx, s, l, p, func(it entityItem) domain.Entity { return *it.entity() })
}
