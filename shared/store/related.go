package store

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/domain/timeline"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// What ?related=1 reads besides the record (DESIGN.md 9).

// LocationLinks reads the id, privacy and parent of the campaign's locations with the given ids:
// one BatchGetItem per 100 ids. Missing ones are absent from the map.
func (s *Store) LocationLinks(ctx context.Context, cid int64, ids []int64) (map[int64]domain.AncestorLink, error) {
	out := map[int64]domain.AncestorLink{}
	if len(ids) == 0 {
		return out, nil
	}
	keys := make([]map[string]types.AttributeValue, 0, len(ids))
	seen := map[int64]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			keys = append(keys, sdkKey(layout.CampaignPK(cid), layout.RecordSK(layout.LocationPrefix, id)))
		}
	}
	items, err := s.batchGetItems(ctx, true, keys, "id", "is_private", "parent_location_id")
	if err != nil {
		return nil, err
	}
	rows, err := unmarshalAll[struct {
		ID        int64  `dynamo:"id"`
		IsPrivate bool   `dynamo:"is_private"`
		ParentID  *int64 `dynamo:"parent_location_id"`
	}](items)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = domain.AncestorLink{ID: r.ID, IsPrivate: r.IsPrivate, ParentID: r.ParentID}
	}
	return out, nil
}

// RelatedOf reads the notes, events and relations of entities eids and the child links of
// locations lids, all of them (the caller filters what its reader may see), from their related
// buckets (layout/keys.go): one Query per bucket over the sort keys between
// the first and the last of the page's owners in it, at most relatedConcurrency at once. A page
// of owners with neighbouring ids costs one or two Queries of each bucket kind whatever its
// size, and at most one per owner however its ids are spread.
func (s *Store) RelatedOf(ctx context.Context, cid int64, eids, lids []int64) (timeline.Related, error) {
	out := timeline.NewRelated()
	type span struct{ lo, hi int64 }
	spans := func(ids []int64, pk func(int64) string) map[string]*span {
		m := map[string]*span{}
		for _, id := range ids {
			if sp := m[pk(id)]; sp == nil {
				m[pk(id)] = &span{id, id}
			} else {
				sp.lo, sp.hi = min(sp.lo, id), max(sp.hi, id)
			}
		}
		return m
	}
	wantE, wantL := map[int64]bool{}, map[int64]bool{}
	for _, id := range eids {
		wantE[id] = true
	}
	for _, id := range lids {
		wantL[id] = true
	}
	var mu sync.Mutex
	add := func(raw dynamo.Item) error {
		var sk string
		_ = dynamo.Unmarshal(raw["sk"], &sk)
		owner, rest, _ := strings.Cut(sk, "#")
		kind, _, _ := strings.Cut(rest, "#")
		id, _ := strconv.ParseInt(owner, 10, 64)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case kind == layout.RelatedChildKind && wantL[id]:
			var l layout.ChildLink
			if err := unmarshalItem(raw, &l); err != nil {
				return err
			}
			out.Children[id] = append(out.Children[id], domain.AncestorLink{ID: l.ID, IsPrivate: l.IsPrivate, ParentID: &id})
		case kind == layout.RelatedChildKind || !wantE[id]: // an owner between the page's in the bucket
		default:
			if decode, ok := relatedDecoders[kind]; ok {
				return decode(raw, id, &out)
			}
		}
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(relatedConcurrency)
	query := func(pk string, sp *span) {
		g.Go(func() error {
			var rows []dynamo.Item
			err := s.table.Get("pk", pk).Range("sk", dynamo.Between, layout.Pad(sp.lo)+"#", layout.Pad(sp.hi)+"#~").Consistent(true).All(gctx, &rows)
			if err != nil {
				return layout.Wrap(err)
			}
			for _, raw := range rows {
				if err := add(raw); err != nil {
					return err
				}
			}
			return nil
		})
	}
	for pk, sp := range spans(eids, func(id int64) string { return layout.RelatedPK(cid, id) }) {
		query(pk, sp)
	}
	for pk, sp := range spans(lids, func(id int64) string { return layout.RelatedLocationPK(cid, id) }) {
		query(pk, sp)
	}
	if err := g.Wait(); err != nil {
		return out, err
	}
	// Each owner's children lie in one bucket, in key (id) order; the buckets answered in
	// any order, but an owner's rows all come from one Query, so each list is already sorted.
	return out, nil
}

// relatedConcurrency bounds the bucket Queries of one related=1 read in flight at once.
const relatedConcurrency = 10
