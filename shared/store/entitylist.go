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
	page, err := listPage[entityItem](ctx, s, l, p)
	out := domain.Page[domain.Entity]{Total: page.Total, Next: page.Next, Items: make([]domain.Entity, len(page.Items))}
	for i, it := range page.Items {
		out.Items[i] = *it.entity()
	}
	return out, err
}
