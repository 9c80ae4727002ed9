package store

import (
	"context"
	"encoding/base64"
	"sort"
	"strconv"
	"strings"

	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// listSpec is one list as a reader sees it: the disjoint key ranges of its audience, narrowed
// by filter conditions (AND-ed, guregu expression syntax) that no key can answer.
type listSpec struct {
	ranges []layout.ListRange
	conds  []string
	args   []any
	// none: the filter matches nothing, so nothing is read.
	none bool
	// f is the client's filter (set by filter); with a lastSync the list reads the sync
	// pointers (sync.go), and keep, when set, is the in-memory form of conditions added besides it.
	f    *domain.Filter
	keep func(dynamo.Item) bool
	// byTags: the filter is tags[] (all or any) alone, which the tags' member items answer.
	byTags bool
}

func (l *listSpec) where(cond string, args ...any) {
	l.conds = append(l.conds, cond)
	l.args = append(l.args, args...)
}

// counters holds counter items read, by key.
type counters map[layout.CounterKey]dynamo.Item

func (c counters) get(pk, sk, attr string) int {
	var n int
	if v, ok := c[layout.CounterKey{PK: pk, SK: sk}][attr]; ok {
		_ = dynamo.Unmarshal(v, &n)
	}
	return n
}

// counterKeys are the counter items the ranges need.
func (l listSpec) counterKeys() []layout.CounterKey {
	var out []layout.CounterKey
	for _, r := range l.ranges {
		k := layout.CounterKey{PK: r.PK, SK: r.Counter}
		if !containsKey(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func containsKey(ks []layout.CounterKey, k layout.CounterKey) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// readCounters reads counter items (read ahead, or in one consistent BatchGetItem).
func (s *Store) readCounters(ctx context.Context, keys []layout.CounterKey) (counters, error) {
	ks := make([]layout.ItemKey, len(keys))
	for i, k := range keys {
		ks[i] = layout.ItemKey{PK: k.PK, SK: k.SK}
	}
	got, err := s.peekItems(ctx, ks...)
	if err != nil {
		return nil, err
	}
	out := counters{}
	for k, it := range got {
		out[layout.CounterKey{PK: k.PK, SK: k.SK}] = it
	}
	return out, nil
}

// listPage reads one page of l, each item made a record by record. Without filters the total
// comes from the range counters' total items (read ahead with the campaign access, or here in
// one BatchGetItem) and each non-empty range is one Query of at most limit+1 items, made
// concurrently; ?page=N without a cursor first finds its bucket in the counter segments (seek)
// and evaluates at most layout.BucketWidth+limit+1 items. With filters each range is read once, counted
// and windowed in the same pass.
func listPage[I any, T any](ctx context.Context, s *Store, l listSpec, p domain.PageRequest, record func(I) T) (domain.Page[T], error) {
	out := domain.Page[T]{Items: []T{}}
	if l.none {
		return out, nil
	}
	rows, total, next, err := s.list(ctx, l, p)
	if err != nil {
		return out, err
	}
	out.Total, out.Next = total, next
	// Each item is decoded into one store item, reused (the decoders assign whole structs), and
	// made its record at once: the page's records are its one slice of rows.
	out.Items = make([]T, len(rows))
	var it I
	for i, r := range rows {
		var zero I
		it = zero
		if err := unmarshalItem(r.item, &it); err != nil {
			return out, err
		}
		out.Items[i] = record(it)
	}
	out.Cursors = rowCursors(rows)
	return out, nil
}

// rowCursors are the cursors continuing right after each row, for a page cut short by its size
// in bytes: spelled as domain.EncodeCursor does, all in one string (one allocation for the
// page), each a substring of it.
func rowCursors(rows []row) []string {
	if len(rows) == 0 {
		return []string{}
	}
	var b []byte
	ends := make([]int, len(rows))
	for i, r := range rows {
		var digits [20]byte
		d := strconv.AppendInt(digits[:0], r.id, 10)
		if b == nil {
			b = make([]byte, 0, len(rows)*base64.RawURLEncoding.EncodedLen(len(d)+1))
		}
		b = base64.RawURLEncoding.AppendEncode(b, d)
		ends[i] = len(b)
	}
	all := string(b)
	out := make([]string, len(rows))
	start := 0
	for i, end := range ends {
		out[i] = all[start:end]
		start = end
	}
	return out
}

type row struct {
	id   int64
	item dynamo.Item
}

func (s *Store) list(ctx context.Context, l listSpec, p domain.PageRequest) ([]row, int, string, error) {
	if l.f != nil && l.f.UpdatedAfter != nil && len(l.ranges) > 0 && isSynced(rangeKind(l.ranges[0].Prefix)) {
		if rows, total, next, ok, err := s.listSync(ctx, l, p); ok || err != nil {
			return rows, total, next, err
		}
	}
	if l.byTags && tagListByMembers && len(l.ranges) == 1 {
		if rows, total, next, ok, err := s.listByTags(ctx, l, p); ok || err != nil {
			return rows, total, next, err
		}
	}
	filtered := len(l.conds) > 0
	cs := counters{}
	if !filtered {
		var err error
		if cs, err = s.readCounters(ctx, l.counterKeys()); err != nil {
			return nil, 0, "", err
		}
	}
	after, hasCursor := domain.DecodeCursor(p.Cursor)
	var startID int64 // first id that may be on the page
	offset := 0       // matching items to skip from startID
	if hasCursor {
		startID = after + 1
	} else {
		offset = (p.Page - 1) * p.Limit
	}
	total := 0
	if !filtered {
		for _, r := range l.ranges {
			total += cs.get(r.PK, r.Counter, r.Attr)
		}
		if offset >= total && offset > 0 {
			return nil, total, "", nil
		}
		if offset > 0 {
			var counted []layout.ListRange
			for _, r := range l.ranges {
				if cs.get(r.PK, r.Counter, r.Attr) > 0 {
					counted = append(counted, r)
				}
			}
			var err error
			if startID, offset, err = s.seek(ctx, counted, offset); err != nil {
				return nil, 0, "", err
			}
		}
	}

	results := make([][]row, len(l.ranges))
	counts := make([]int, len(l.ranges))
	g, gctx := errgroup.WithContext(ctx)
	for i, r := range l.ranges {
		if !filtered && cs.get(r.PK, r.Counter, r.Attr) == 0 {
			continue
		}
		g.Go(func() error {
			var err error
			results[i], counts[i], err = s.scanRange(gctx, l, r, startID, offset+p.Limit+1, filtered)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, "", err
	}
	var merged []row
	for i := range results {
		merged = append(merged, results[i]...)
		if filtered {
			total += counts[i]
		}
	}
	sort.Slice(merged, func(a, b int) bool { return merged[a].id < merged[b].id })
	if offset >= len(merged) {
		return nil, total, "", nil
	}
	merged = merged[offset:]
	next := ""
	if len(merged) > p.Limit {
		merged = merged[:p.Limit]
		next = domain.EncodeCursor(merged[len(merged)-1].id)
	}
	return merged, total, next, nil
}

// scanRange reads range r from startID. Unfiltered, it returns at most keep items (one Query
// with that Limit). Filtered, it reads the whole range once, returning the first keep matches
// after the cursor and counting every match.
func (s *Store) scanRange(ctx context.Context, l listSpec, r layout.ListRange, startID int64, keep int, filtered bool) ([]row, int, error) {
	q := s.table.Get("pk", r.PK).Range("sk", dynamo.Between, r.SK(startID), r.Prefix+"~").Consistent(true)
	if !filtered {
		q = q.Limit(keep)
	} else {
		q = s.table.Get("pk", r.PK).Range("sk", dynamo.BeginsWith, r.Prefix).Consistent(true).
			Filter(strings.Join(l.conds, " AND "), l.args...)
	}
	it := q.Iter()
	var out []row
	n := 0
	var item dynamo.Item
	for it.Next(ctx, &item) {
		var sk string
		_ = dynamo.Unmarshal(item["sk"], &sk)
		id, _ := strconv.ParseInt(sk[len(r.Prefix):], 10, 64)
		n++
		if id >= startID && len(out) < keep {
			out = append(out, row{id, item})
		}
		item = nil
	}
	if err := it.Err(); err != nil {
		return nil, 0, layout.Wrap(err)
	}
	return out, n, nil
}

// filter narrows the list by a client's filter (Kanka's language): the one translation of
// domain.Filter into DynamoDB conditions. Text is compared on the lower-case copies every item
// keeps (name_lc, type_lc); a missing attribute is empty.
func (l *listSpec) filter(f domain.Filter) {
	l.f = &f
	l.none = l.none || f.None
	l.terms("name_lc", f.Name)
	l.terms("type_lc", f.Type)
	switch {
	case f.IsPrivate == nil:
	case *f.IsPrivate:
		l.where("'is_private' = ?", true)
	default: // records without the flag (notes) are never private
		l.where("(attribute_not_exists('is_private') OR 'is_private' = ?)", false)
	}
	l.tags(f.Tags, f.TagsMatch)
	if f.CreatedBy != nil {
		l.where("'created_by' = ?", *f.CreatedBy)
	}
	if f.UpdatedBy != nil {
		l.where("'updated_by' = ?", *f.UpdatedBy)
	}
	if f.UpdatedAfter != nil {
		l.where("'updated_at' > ?", layout.FormatTime(*f.UpdatedAfter))
	}
	if f.ParentLocationID != nil {
		l.where("'parent_location_id' = ?", *f.ParentLocationID)
	}
	for _, ft := range f.Fields {
		l.fieldTerms(ft.Field, ft.Terms)
	}
	for _, e := range f.Equal {
		l.where("$ = ?", e.Attr, e.Value)
	}
	for _, d := range f.Differ {
		l.where("(attribute_not_exists($) OR $ <> ?)", d.Attr, d.Attr, d.Value)
	}
	for _, rf := range f.Refs {
		l.refs(rf)
	}
	l.byTags = len(f.Tags) > 0 && (f.TagsMatch == domain.TagsAll || f.TagsMatch == domain.TagsAny) && len(l.conds) == 1
}

// refs holds records referencing one of rf's ids by its field, matched on the index of the
// references the item shows (layout.RefKeysOf).
func (l *listSpec) refs(rf domain.RefFilter) {
	if len(rf.IDs) == 0 {
		l.none = true
		return
	}
	conds := make([]string, len(rf.IDs))
	args := make([]any, 0, 2*len(rf.IDs))
	for i, id := range rf.IDs {
		conds[i] = "contains($, ?)"
		key := layout.RefKey(rf.Field, rf.Type, id)
		if rf.ByEntity {
			key = layout.RefEntityKey(rf.Field, id)
		}
		args = append(args, layout.RefKeysAttr, key)
	}
	l.where("("+strings.Join(conds, " OR ")+")", args...)
}

func (l *listSpec) terms(attr string, terms []domain.Term) {
	for _, t := range terms {
		switch t.Op {
		case domain.Contains:
			l.where("contains($, ?)", attr, t.Value)
		case domain.NotContains:
			l.where("NOT contains($, ?)", attr, t.Value) // a missing attribute contains nothing
		case domain.Equals:
			l.where("$ = ?", attr, t.Value)
		case domain.IsEmpty:
			l.where("(attribute_not_exists($) OR $ = ?)", attr, attr, "")
		}
	}
}

// fieldTerms are terms on a record's own text field, matched on its item's lower-case copy
// (FieldsLC, a map attribute).
func (l *listSpec) fieldTerms(field string, terms []domain.Term) {
	for _, t := range terms {
		switch t.Op {
		case domain.Contains:
			l.where("contains($.$, ?)", FieldsLC, field, t.Value)
		case domain.NotContains:
			l.where("NOT contains($.$, ?)", FieldsLC, field, t.Value)
		case domain.Equals:
			l.where("$.$ = ?", FieldsLC, field, t.Value)
		case domain.IsEmpty:
			l.where("attribute_not_exists($.$)", FieldsLC, field)
		}
	}
}

// FieldsLC is the map attribute of an item that keeps its own text fields lower-cased, for the
// list filters on them (a module record's).
const FieldsLC = "text_lc"

func (l *listSpec) tags(tags []int64, match domain.TagsMatch) {
	if match == domain.TagsNone {
		l.where("(attribute_not_exists('tags') OR size('tags') = ?)", 0)
		return
	}
	if len(tags) == 0 {
		return
	}
	marks := make([]string, len(tags))
	args := make([]any, len(tags))
	for i, t := range tags {
		marks[i], args[i] = "contains('tags', ?)", t
	}
	switch match {
	case domain.TagsAny:
		l.where("("+strings.Join(marks, " OR ")+")", args...)
	case domain.TagsExclude:
		l.where("NOT ("+strings.Join(marks, " OR ")+")", args...)
	default:
		l.where(strings.Join(marks, " AND "), args...)
	}
}
