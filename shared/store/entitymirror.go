package store

import (
	"context"

	"github.com/guregu/dynamo/v2"
)

// MirrorEntities brings the entity items of campaign cid written before entities mirrored
// their record's tags, image and write history (Kanka's entities endpoint reads only entity
// items) up to date from their records. It is idempotent and safe beside live traffic: an
// entity is rewritten only while it exists and still lacks the mirror, so a newer write always
// wins. It returns how many it rewrote; for the table migration.
func (s *Store) MirrorEntities(ctx context.Context, cid int64) (int, error) {
	n := 0
	for _, k := range []ownerKind{locationKind, calendarKind} {
		var recs []struct {
			metaAttrs
			ownerAttrs
		}
		err := s.table.Get("pk", campaignPK(cid)).Range("sk", dynamo.BeginsWith, k.prefix+"#").Consistent(true).All(ctx, &recs)
		if err != nil {
			return n, wrap(err)
		}
		for _, r := range recs {
			m, o := r.meta(), r.owner()
			err := s.table.Put(entityItemOf(k, &m, &o)).If("attribute_exists(pk) AND attribute_not_exists(name_lc)").Run(ctx)
			switch {
			case dynamo.IsCondCheckFailed(err): // mirrored already, or gone
			case err != nil:
				return n, wrap(err)
			default:
				n++
			}
		}
	}
	return n, nil
}
