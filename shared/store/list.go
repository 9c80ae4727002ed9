package store

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// listSpec is one list: the items of partition pk whose sort key begins with prefix, narrowed by
// filter conditions (AND-ed, guregu expression syntax).
type listSpec struct {
	pk, prefix string
	conds      []string
	args       []any
	// counters name the counter items (pk, sk) that hold exact totals ("n") and the numbers of
	// private items ("private"). Their sum answers the total when no condition filters beyond
	// privacy, or when counted says the conditions select exactly what they count (the entity
	// kinds of Kanka's entities list); otherwise the total is counted by a query.
	counters    []string
	counted     bool
	hidePrivate bool
	// none: the filter matches nothing, so nothing is read.
	none bool
}

func (l *listSpec) where(cond string, args ...any) {
	l.conds = append(l.conds, cond)
	l.args = append(l.args, args...)
}

func (l listSpec) query(s *Store) *dynamo.Query {
	return l.filtered(s.table.Get("pk", l.pk).Range("sk", dynamo.BeginsWith, l.prefix).Consistent(true))
}

// filtered adds l's conditions to q.
func (l listSpec) filtered(q *dynamo.Query) *dynamo.Query {
	conds, args := l.conds, l.args
	if l.hidePrivate {
		conds = append(append([]string{}, conds...), "'is_private' = ?")
		args = append(append([]any{}, args...), false)
	}
	if len(conds) > 0 {
		q = q.Filter(strings.Join(conds, " AND "), args...)
	}
	return q
}

// listPage reads one page of l, each item made a record by record. Following a cursor costs one
// Query; the total costs one more read, made concurrently. A page number without a cursor first
// walks the keys before it.
func listPage[I keyed, T any](ctx context.Context, s *Store, l listSpec, p domain.PageRequest, record func(I) T) (domain.Page[T], error) {
	out := domain.Page[T]{Items: []T{}}
	if l.none {
		return out, nil
	}
	var g errgroup.Group
	g.Go(func() (err error) { out.Total, err = l.total(ctx, s); return err })
	g.Go(func() error {
		startSK, ok := decodeCursor(p.Cursor, l.prefix)
		if !ok && p.Page > 1 {
			var err error
			if startSK, ok, err = l.skip(ctx, s, (p.Page-1)*p.Limit); err != nil || !ok { // !ok: past the end
				return err
			}
		}
		q := l.query(s).Limit(p.Limit + 1)
		if startSK != "" {
			q = q.StartFrom(dynamo.PagingKey{"pk": &types.AttributeValueMemberS{Value: l.pk}, "sk": &types.AttributeValueMemberS{Value: startSK}})
		}
		var rows []I
		if err := q.All(ctx, &rows); err != nil {
			return wrap(err)
		}
		if len(rows) > p.Limit {
			rows = rows[:p.Limit]
			out.Next = encodeCursor(l.prefix, rows[len(rows)-1])
		}
		out.Items = make([]T, len(rows))
		for i, r := range rows {
			out.Items[i] = record(r)
		}
		return nil
	})
	return out, g.Wait()
}

func (l listSpec) total(ctx context.Context, s *Store) (int, error) {
	if len(l.counters) > 0 && (len(l.conds) == 0 || l.counted) {
		keys := make([]dynamo.Keyed, len(l.counters))
		for i, sk := range l.counters {
			keys[i] = dynamo.Keys{l.pk, sk}
		}
		items, err := s.batchGet(ctx, true, keys...)
		if err != nil {
			return 0, err
		}
		n := 0
		for _, it := range items {
			var c struct {
				N       int `dynamo:"n"`
				Private int `dynamo:"private"`
			}
			if err := dynamo.UnmarshalItem(it, &c); err != nil {
				return 0, err
			}
			n += c.N
			if l.hidePrivate {
				n -= c.Private
			}
		}
		return n, nil
	}
	n, err := l.query(s).Count(ctx)
	return n, wrap(err)
}

// skip walks n matching keys and returns the last one.
func (l listSpec) skip(ctx context.Context, s *Store, n int) (string, bool, error) {
	it := l.query(s).Project("sk").Limit(n).Iter()
	var row struct {
		SK string `dynamo:"sk"`
	}
	seen := 0
	for it.Next(ctx, &row) {
		seen++
	}
	if err := it.Err(); err != nil {
		return "", false, wrap(err)
	}
	return row.SK, seen == n, nil
}

// The cursor is the id of the last item of the previous page; it means nothing outside its list.
func encodeCursor(prefix string, last keyed) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strings.TrimPrefix(last.sortKey(), prefix)))
}

// keyed is an item of a list: its sort key makes the cursor.
type keyed interface{ sortKey() string }

func (a metaAttrs) sortKey() string { return a.SK }

func decodeCursor(c, prefix string) (string, bool) {
	if c == "" {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", false
	}
	id, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || id < 1 || id > domain.MaxID {
		return "", false
	}
	return prefix + pad(id), true
}

// filter narrows the list by a client's filter (Kanka's language): the one translation of
// domain.Filter into DynamoDB conditions. Text is compared on the lower-case copies every item
// keeps (name_lc, type_lc); a missing attribute is empty.
func (l *listSpec) filter(f domain.Filter) {
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
		l.where("'updated_at' > ?", formatTime(*f.UpdatedAfter))
	}
	if f.ParentLocationID != nil {
		l.where("'parent_location_id' = ?", *f.ParentLocationID)
	}
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

// visibleTo narrows a list of an entity's events or notes to the records the caller's
// visibility scope allows (see domain.Access.VisibilityScope): any of `anyone`, or one of `own`
// created by the caller.
func (l *listSpec) visibleTo(a domain.Access) {
	in := func(vs []domain.Visibility) (string, []any) {
		marks := make([]string, len(vs))
		args := make([]any, len(vs))
		for i, v := range vs {
			marks[i], args[i] = "?", string(v)
		}
		return "'visibility' IN (" + strings.Join(marks, ", ") + ")", args
	}
	anyone, own := a.VisibilityScope()
	anyExpr, anyArgs := in(anyone)
	ownExpr, ownArgs := in(own)
	l.where("("+anyExpr+" OR ('created_by' = ? AND "+ownExpr+"))", append(append(anyArgs, a.UserID), ownArgs...)...)
}
