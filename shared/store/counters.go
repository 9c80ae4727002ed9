package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// Range counters (layout 3): no counter item grows with the campaign.
//
// A counted range has a total item (sk `COUNT#<RANGE>`, one number per class: the range's size
// for each audience) and segment items (sk `COUNT#<RANGE>#S#<k>`, ids k*layout.SegmentWidth ..
// (k+1)*layout.SegmentWidth-1) holding, per class, the segment's total (`<class>`) and one count per
// bucket of layout.BucketWidth ids (`<class>_<b>`, b = 0..99). A total item holds at most one number
// per class, a segment at most classes × 101 numbers, whatever the campaign's size.
//
// A list's page 1 and every cursor page read the total item only (read ahead with the campaign
// access); a show reads no counter. `?page=N` without a cursor Queries the segments from the
// first until the count passes (N-1)*limit (seek), then starts the range Query at the bucket
// found.
//
// Writers count with txBuilder.addCount (one delta to a range for a class and an id): it adds to
// the total and to the id's segment, merged per item, in the record's transaction.

// segmentPageSize is how many segments one page of the seek's Query reads (about 6 KB each at
// most): a deep page reads what it needs, not the whole range's segments at once.
const segmentPageSize = 8

// addCount adds d to the range counted by counter (sk, in partition pk) for a record of class
// with id: the total and the id's segment, each one update of the transaction however many
// records of it change. Every counted write goes through it.
func (b *txBuilder) addCount(pk, counter, class string, id int64, d int) {
	for _, t := range layout.CountTargets(pk, counter, class, id) {
		m := b.deltas[t.Key]
		if m == nil {
			m = map[string]int{}
			b.deltas[t.Key] = m
		}
		m[t.Attr] += d
	}
}

// segmentAttrs are what a reader of class needs of a segment: its key, the class's segment
// total and buckets (a segment holds every class; a reader's seek carries only its own).
func segmentAttrs(class string) []string {
	out := make([]string, 0, 2+layout.SegmentWidth/layout.BucketWidth)
	out = append(out, "sk", class)
	for b := 0; b < layout.SegmentWidth/layout.BucketWidth; b++ {
		out = append(out, class+"_"+strconv.Itoa(b))
	}
	return out
}

// seek maps the skip-th item (0-based) of the reader's ranges, merged by id, to the bucket that
// holds it: the page's Query starts at that bucket's first id and skips offset items. Each
// counter's segments are read in id order, a few at a time, until that counter alone passes
// skip: the merged count passes it no later, so the bucket found is covered.
func (s *Store) seek(ctx context.Context, ranges []layout.ListRange, skip int) (startID int64, offset int, err error) {
	per := make([]map[int64]int, len(ranges)) // per range: bucket (id/layout.BucketWidth) -> items
	g, gctx := errgroup.WithContext(ctx)
	for i, r := range ranges {
		per[i] = map[int64]int{}
		g.Go(func() error {
			prefix := layout.SegmentPrefix(r.Counter)
			var lek dynamo.PagingKey
			for cum := 0; cum <= skip; {
				q := s.table.Get("pk", r.PK).Range("sk", dynamo.BeginsWith, prefix).
					Project(segmentAttrs(r.Attr)...).Consistent(true).SearchLimit(segmentPageSize)
				if lek != nil {
					q = q.StartFrom(lek)
				}
				var segs []dynamo.Item
				var err error
				if lek, err = q.AllWithLastEvaluatedKey(gctx, &segs); err != nil {
					return layout.Wrap(err)
				}
				for _, seg := range segs {
					if cum > skip {
						break
					}
					var sk string
					_ = dynamo.Unmarshal(seg["sk"], &sk)
					k, _ := strconv.ParseInt(sk[len(prefix):], 10, 64)
					var total int
					_ = dynamo.Unmarshal(seg[r.Attr], &total)
					cum += total
					for name, v := range seg {
						b, err := strconv.ParseInt(strings.TrimPrefix(name, r.Attr+"_"), 10, 64)
						if !strings.HasPrefix(name, r.Attr+"_") || err != nil {
							continue
						}
						var n int
						_ = dynamo.Unmarshal(v, &n)
						per[i][k*(layout.SegmentWidth/layout.BucketWidth)+b] += n
					}
				}
				if lek == nil {
					break
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, 0, err
	}
	merged := map[int64]int{}
	for _, m := range per {
		for b, n := range m {
			merged[b] += n
		}
	}
	buckets := make([]int64, 0, len(merged))
	for b := range merged {
		buckets = append(buckets, b)
	}
	sort.Slice(buckets, func(i, j int) bool { return buckets[i] < buckets[j] })
	cum := 0
	for _, b := range buckets {
		if cum+merged[b] > skip {
			return b * layout.BucketWidth, skip - cum, nil
		}
		cum += merged[b]
	}
	return 0, skip, nil // counters disagree with the totals: walk from the start
}

// budgetPart is a variable part of a write (round3 3.2): the items it adds to the transaction
// and how many changes of the request they stand for.
type budgetPart struct {
	field, noun    string
	items, changes int
}

// part runs write, which adds the items of changes changes of a request's field (noun names
// them in the answer), and records them as one variable part of the transaction budget.
func (b *txBuilder) part(field, noun string, changes int, write func()) {
	before := b.size()
	write()
	b.parts = append(b.parts, budgetPart{field: field, noun: noun, items: b.size() - before, changes: changes})
}

// overBudget refuses a transaction over DynamoDB's maxTx items before anything is sent: a 422
// naming its largest variable part and how many of it fit in this write. Nothing is written.
func (b *txBuilder) overBudget() error {
	over := b.size() - maxTx
	if over <= 0 {
		return nil
	}
	var big *budgetPart
	for i := range b.parts {
		if big == nil || b.parts[i].items > big.items {
			big = &b.parts[i]
		}
	}
	if big == nil || big.changes == 0 {
		return fmt.Errorf("store: a write of %d items has no variable part to refuse", b.size())
	}
	per := (big.items + big.changes - 1) / big.changes
	fit := max(0, (big.items-over)/per)
	return apperr.Invalid(big.field, fmt.Sprintf("This write would change %d %s; at most %d fit in one write.", big.changes, big.noun, fit))
}

// reserve counts items of a variable part that the write would need but need not build: a part
// already over the whole budget refuses the write before anything else is read.
func (b *txBuilder) reserve(field, noun string, changes int) {
	b.reserved += changes
	b.parts = append(b.parts, budgetPart{field: field, noun: noun, items: changes, changes: changes})
}

// needIf is need with a condition beyond existence (the privacy a write was placed by).
func (b *txBuilder) needIf(pk, sk string, gone error, cond string, args ...any) {
	if b.needs == nil {
		b.needs = map[int]error{}
	}
	b.needs[b.n] = gone
	b.check(b.s.table.Check("pk", pk).Range("sk", sk).If(cond, args...))
}
