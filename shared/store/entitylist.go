package store

import (
	"context"
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// ListEntities reads one page of the campaign's entities (Kanka's entities list), ordered by id:
// one Query on the entity items, which mirror their records. hidePrivate hides private ones.
func (s *Store) ListEntities(ctx context.Context, cid int64, f domain.EntityFilter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Entity], error) {
	l := listSpec{pk: campaignPK(cid), prefix: entityPrefix + "#", hidePrivate: hidePrivate}
	if len(f.Types) > 0 {
		marks := make([]string, len(f.Types))
		args := make([]any, len(f.Types))
		for i, t := range f.Types {
			marks[i], args[i] = "?", t
		}
		l.where("'type' IN ("+strings.Join(marks, ", ")+")", args...)
	}
	l.recordFilter(f.RecordFilter)
	return listPage(ctx, s, l, p, func(it entityItem) domain.Entity { return *it.entity() })
}

func (it entityItem) sortKey() string { return it.SK }
