package store

import (
	"context"
	"errors"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
)

// An entity's attributes are one item, its pack (ATTRS in the entity's partition): a show, a
// list and every write (a bulk replace of 250 included) read or write that one item, and a
// related=1 page reads its owners' packs in one batch. domain.CheckAttributes bounds it (250
// attributes, 300 KiB) well inside DynamoDB's 400 KB item. Its version `v` makes every write
// conditional on the pack read; it goes with the entity's partition.
type attributePack struct {
	PK         string          `dynamo:"pk"`
	SK         string          `dynamo:"sk"`
	CampaignID int64           `dynamo:"campaign_id"`
	EntityID   int64           `dynamo:"entity_id"`
	V          int64           `dynamo:"v"`
	Items      []attributeItem `dynamo:"items"`
}

type attributeItem struct {
	ID           int64   `dynamo:"id"`
	Name         string  `dynamo:"name"`
	Value        *string `dynamo:"value,omitempty"`
	TypeID       int     `dynamo:"type_id"`
	IsPrivate    bool    `dynamo:"is_private"`
	IsPinned     bool    `dynamo:"is_pinned"`
	DefaultOrder int64   `dynamo:"default_order"`
	APIKey       *string `dynamo:"api_key,omitempty"`
	CreatedAt    string  `dynamo:"created_at"`
	UpdatedAt    string  `dynamo:"updated_at"`
	CreatedBy    int64   `dynamo:"created_by"`
	UpdatedBy    int64   `dynamo:"updated_by"`
}

func (p attributePack) attributes() []domain.Attribute {
	out := make([]domain.Attribute, len(p.Items))
	for i, it := range p.Items {
		out[i] = domain.Attribute{Meta: domain.Meta{ID: it.ID, CampaignID: p.CampaignID, CreatedAt: parseTime(it.CreatedAt),
			UpdatedAt: parseTime(it.UpdatedAt), CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy, Version: p.V},
			EntityID: p.EntityID, Name: it.Name, Value: it.Value, TypeID: it.TypeID, IsPrivate: it.IsPrivate,
			IsPinned: it.IsPinned, DefaultOrder: it.DefaultOrder, APIKey: it.APIKey}
	}
	return out
}

func packKey(cid, eid int64) itemKey { return itemKey{entityPK(cid, eid), attributesSK} }

// GetAttributes reads entity eid and all its attributes (in id order) in one round trip (read
// ahead with the campaign access); version is the pack's, 0 when the entity has none yet.
func (s *Store) GetAttributes(ctx context.Context, cid, eid int64) (*domain.Entity, []domain.Attribute, int64, error) {
	ek, pk := itemKey{campaignPK(cid), recordSK(entityPrefix, eid)}, packKey(cid, eid)
	items, err := s.getItems(ctx, ek, pk)
	if err != nil {
		return nil, nil, 0, err
	}
	raw, ok := items[ek]
	if !ok {
		return nil, nil, 0, apperr.ErrNotFound
	}
	var ei entityItem
	if err := dynamo.UnmarshalItem(raw, &ei); err != nil {
		return nil, nil, 0, err
	}
	var p attributePack
	if raw, ok := items[pk]; ok {
		if err := dynamo.UnmarshalItem(raw, &p); err != nil {
			return nil, nil, 0, err
		}
	}
	return ei.entity(), p.attributes(), p.V, nil
}

// NewAttributeIDs reserves n attribute ids of the campaign; the first is returned.
func (s *Store) NewAttributeIDs(ctx context.Context, cid int64, n int) (int64, error) {
	return s.reserveIDs(ctx, campaignPK(cid), "attribute", n)
}

// SaveAttributes replaces entity eid's attributes with all (id order), on condition that the
// pack is still at version (0: there was none) and the entity exists: one transaction. The
// attributes whose times are unset (written now) get the time of the write.
func (s *Store) SaveAttributes(ctx context.Context, cid, eid, version int64, all []domain.Attribute) error {
	k := packKey(cid, eid)
	b := s.newTx()
	b.need(campaignPK(cid), recordSK(entityPrefix, eid), apperr.ErrNotFound)
	if len(all) == 0 {
		if version == 0 {
			return nil
		}
		b.del(s.table.Delete("pk", k.pk).Range("sk", k.sk).If("'v' = ?", version))
		return b.run(ctx)
	}
	now := s.now()
	for i := range all { // the attributes written now (their times unset by the caller)
		if all[i].UpdatedAt.IsZero() {
			all[i].UpdatedAt = now
		}
		if all[i].CreatedAt.IsZero() {
			all[i].CreatedAt = now
		}
		all[i].Version = version + 1
	}
	p := attributePack{PK: k.pk, SK: k.sk, CampaignID: cid, EntityID: eid, V: version + 1, Items: make([]attributeItem, len(all))}
	for i, a := range all {
		p.Items[i] = attributeItem{ID: a.ID, Name: a.Name, Value: a.Value, TypeID: a.TypeID, IsPrivate: a.IsPrivate,
			IsPinned: a.IsPinned, DefaultOrder: a.DefaultOrder, APIKey: a.APIKey, CreatedAt: formatTime(a.CreatedAt),
			UpdatedAt: formatTime(a.UpdatedAt), CreatedBy: a.CreatedBy, UpdatedBy: a.UpdatedBy}
	}
	put := s.table.Put(p)
	if version == 0 {
		put = put.If("attribute_not_exists(pk)")
	} else {
		put = put.If("'v' = ?", version)
	}
	b.put(put)
	return b.run(ctx)
}

// AttributesOf reads the attributes of the entities eids (a related=1 page): their packs, in
// one BatchGetItem per 100 entities, run together.
func (s *Store) AttributesOf(ctx context.Context, cid int64, eids []int64) (map[int64][]domain.Attribute, error) {
	keys := make([]itemKey, len(eids))
	for i, e := range eids {
		keys[i] = packKey(cid, e)
	}
	items, err := s.peekItems(ctx, keys...)
	if err != nil && !errors.Is(err, apperr.ErrNotFound) {
		return nil, err
	}
	out := map[int64][]domain.Attribute{}
	for _, raw := range items {
		var p attributePack
		if err := dynamo.UnmarshalItem(raw, &p); err != nil {
			return nil, err
		}
		out[p.EntityID] = p.attributes()
	}
	return out, nil
}
