package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store/internal/layout"
)

// The one path of every record kind: the attributes all items share, and the reads and writes
// that differ only by item type. Each wraps its SDK error once, so an outage is logged once.

func toOwnerAttrs(o domain.Owner) layout.OwnerAttrs {
	if o.Tags == nil {
		o.Tags = []int64{}
	}
	return layout.OwnerAttrs{EntityID: o.EntityID, Name: o.Name, NameLC: strings.ToLower(o.Name), Entry: o.Entry, Type: o.Type,
		TypeLC: strings.ToLower(o.Type), ImageURL: o.ImageURL, ImagePath: o.ImagePath, IsPrivate: o.IsPrivate, Tags: o.Tags, PrivateTags: layout.PrivateTagsOf(o.Tags, o.PrivateTags),
		EntityImageUUID: o.EntityImageUUID, EntityHeaderUUID: o.EntityHeaderUUID, Refs: layout.RefAttrs(o.Refs),
		RefKeys: layout.RefKeysOf(layout.RefAttrs(o.Refs))}
}

// getItem reads the item (pk, sk) into out, strongly consistent (or read ahead with the
// campaign access); ErrNotFound when there is none.
func (s *Store) getItem(ctx context.Context, pk, sk string, out any, project ...string) error {
	if len(project) == 0 {
		return s.getOne(ctx, layout.ItemKey{PK: pk, SK: sk}, out)
	}
	// BatchGetItem of one key, as every read of a function's (its policy needs no GetItem).
	items, err := s.batchGetItems(ctx, true, []map[string]types.AttributeValue{sdkKey(pk, sk)}, project...)
	if err != nil {
		return err
	}
	if len(items) != 1 {
		return apperr.ErrNotFound
	}
	return dynamo.UnmarshalItem(items[0], out)
}

// getRecord reads one record through its item type I.
func getRecord[I any, T any](ctx context.Context, s *Store, pk, sk string, record func(I) T) (*T, error) {
	var it I
	if err := s.getItem(ctx, pk, sk, &it); err != nil {
		return nil, err
	}
	t := record(it)
	return &t, nil
}

// batchGet reads items by key in one BatchGetItem per 100 keys; missing ones are absent.
func (s *Store) batchGet(ctx context.Context, consistent bool, keys ...layout.ItemKey) ([]dynamo.Item, error) {
	return s.batchGetItems(ctx, consistent, sdkKeys(keys))
}

// sdkKeys are keys as the SDK takes them.
func sdkKeys(keys []layout.ItemKey) []map[string]types.AttributeValue {
	out := make([]map[string]types.AttributeValue, len(keys))
	for i, k := range keys {
		out[i] = sdkKey(k.PK, k.SK)
	}
	return out
}

// unmarshalAll decodes items into values of T (by hand for the types unmarshalItem knows).
func unmarshalAll[T any](items []dynamo.Item) ([]T, error) {
	out := make([]T, len(items))
	for i, it := range items {
		if err := unmarshalItem(it, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func sdkKey(pk, sk string) map[string]types.AttributeValue {
	v := &[2]types.AttributeValueMemberS{{Value: pk}, {Value: sk}} // one allocation for both
	return map[string]types.AttributeValue{"pk": &v[0], "sk": &v[1]}
}

// batchGetItems reads keys with BatchGetItem inputs built here, 100 keys a call, only the
// attributes project names if any: every read by key of the functions. guregu/dynamo's
// building of the same input by reflection was a visible part of a read's own CPU, and with
// no read left on it its batch reading is linked by no function. Keys DynamoDB leaves unprocessed are asked again after a growing pause, until the
// request's deadline, as guregu/dynamo does (its pause starts at 500 ms; this one at 20 ms,
// doubling to 500 ms, within a request deadline of 1.8 s).
func (s *Store) batchGetItems(ctx context.Context, consistent bool, keys []map[string]types.AttributeValue, project ...string) ([]dynamo.Item, error) {
	var items []dynamo.Item
	table := s.table.Name()
	var projection *string
	var names map[string]string
	if len(project) > 0 {
		names = make(map[string]string, len(project))
		refs := make([]string, len(project))
		for i, a := range project {
			refs[i] = "#p" + strconv.Itoa(i)
			names[refs[i]] = a
		}
		projection = aws.String(strings.Join(refs, ", "))
	}
	for start := 0; start < len(keys); start += 100 {
		in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			table: {Keys: keys[start:min(start+100, len(keys))], ConsistentRead: aws.Bool(consistent),
				ProjectionExpression: projection, ExpressionAttributeNames: names}}}
		pause := 20 * time.Millisecond
		for {
			out, err := s.db.Client().BatchGetItem(ctx, in)
			if err != nil {
				return nil, layout.Wrap(err)
			}
			items = append(items, out.Responses[table]...)
			left, ok := out.UnprocessedKeys[table]
			if !ok || len(left.Keys) == 0 {
				break
			}
			in = &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: left}}
			select {
			case <-ctx.Done():
				return nil, layout.Wrap(ctx.Err())
			case <-time.After(pause):
			}
			pause = min(2*pause, 500*time.Millisecond)
		}
	}
	return items, nil
}

// getRecords reads the campaign records of kind prefix with the given ids (each read once),
// keyed by id; missing ones are absent from the map.
func getRecords[I any, T any](ctx context.Context, s *Store, cid int64, prefix string, ids []int64, consistent bool, record func(I) (int64, *T)) (map[int64]*T, error) {
	seen := map[int64]bool{}
	var keys []map[string]types.AttributeValue
	pk := layout.CampaignPK(cid)
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			keys = append(keys, sdkKey(pk, layout.RecordSK(prefix, id)))
		}
	}
	items, err := s.batchGetItems(ctx, consistent, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*T, len(items))
	for _, raw := range items {
		var it I
		if err := unmarshalItem(raw, &it); err != nil {
			return nil, err
		}
		id, t := record(it)
		out[id] = t
	}
	return out, nil
}

// getPair reads a parent item and a record of its partition, at any of the record's home keys,
// in one BatchGetItem (or from what was read ahead); ErrNotFound unless both exist.
func (s *Store) getPair(ctx context.Context, parent layout.ItemKey, homes []layout.ItemKey, parentOut, recOut any) error {
	items, err := s.getItems(ctx, append([]layout.ItemKey{parent}, homes...)...)
	if err != nil {
		return err
	}
	p, ok := items[parent]
	if !ok {
		return apperr.ErrNotFound
	}
	for _, h := range homes {
		if it, ok := items[h]; ok {
			if err := dynamo.UnmarshalItem(p, parentOut); err != nil {
				return err
			}
			return dynamo.UnmarshalItem(it, recOut)
		}
	}
	return apperr.ErrNotFound
}

// deleteKeys deletes items by key: plain, idempotent deletes, 25 a BatchWriteItem, at most
// writeConcurrency at once.
func (s *Store) deleteKeys(ctx context.Context, keys []dynamo.Keyed) error {
	return s.batchDelete(ctx, keys)
}

// stamp sets the write history of a new record (id given) or of next, written over prev.
func (s *Store) stampNew(m *domain.Meta, id int64) { m.StampNew(id, s.now()) }

func (s *Store) stampUpdate(prev, next *domain.Meta) { next.StampUpdate(prev, s.now()) }

// ifVersion makes a write conditional on the version read.
const ifVersion = "'version' = ?"

// createChild stores a new record of a parent's partition, its id from the campaign's sequence,
// at its slots (home, copies, counts) in one transaction with checks (that its parents still
// exist): a failed check means a parent is gone, ErrNotFound.
func (s *Store) createChild(ctx context.Context, m *domain.Meta, sequence string, item func() any, slots func() []layout.Slot, checks ...func(*txBuilder)) error {
	ids, err := s.nextIDs(ctx, layout.CampaignPK(m.CampaignID), sequence)
	if err != nil {
		return err
	}
	s.stampNew(m, ids[0])
	b := s.newTx()
	for _, c := range checks {
		if c != nil {
			c(b)
		}
	}
	b.place(layout.Marshal(item()), nil, slots(), 0)
	return conflictIsNotFound(b.run(ctx))
}

// updateChild writes next's item over the record read as prev (slots moved as its visibility
// says), on condition of the version read and of checks.
func (s *Store) updateChild(ctx context.Context, prevM, nextM *domain.Meta, item func() any, prev, next func() []layout.Slot, checks ...func(*txBuilder)) error {
	s.stampUpdate(prevM, nextM)
	b := s.newTx()
	for _, c := range checks {
		if c != nil {
			c(b)
		}
	}
	b.place(layout.Marshal(item()), prev(), next(), prevM.Version)
	return b.run(ctx)
}

// deleteChild deletes a record at all its slots, on condition of the version read.
func (s *Store) deleteChild(ctx context.Context, m *domain.Meta, slots []layout.Slot, also ...func(*txBuilder)) error {
	b := s.newTx()
	b.remove(slots, m.Version)
	for _, f := range also {
		if f != nil {
			f(b)
		}
	}
	return b.run(ctx)
}

// conflictIsNotFound wraps err, a write whose failed condition means a record is gone.
func conflictIsNotFound(err error) error {
	if err = layout.Wrap(err); errors.Is(err, apperr.ErrConflict) {
		return apperr.ErrNotFound
	}
	return err
}

// exists is a transaction's check that the record (pk, sk) still exists (a record being deleted
// is gone from the first step of its delete); when it fails the write answers gone (ErrNotFound
// for the parent in the path, a field's 422 for a record the body names), never a conflict.
func (s *Store) exists(pk, sk string, gone error) func(*txBuilder) {
	return func(b *txBuilder) { b.need(pk, sk, gone) }
}
