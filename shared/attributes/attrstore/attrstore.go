// Package attrstore is the attributes family's storage: an entity's attributes as one pack
// item in the entity's partition, on the kernel (package store).
package attrstore

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store"
)

// packSK names the pack in its entity's partition.
const packSK = "ATTRS"

func packKey(cid, eid int64) store.Key { return store.EntityPartition(cid, eid).Item(packSK) }

// Attributes is the family's storage over the kernel.
type Attributes struct{ *store.Store }

// New wraps the kernel.
func New(st *store.Store) *Attributes { return &Attributes{st} }

// The pack's deletions answer the attributes' `?deleted=1`, and a related=1 page reads the
// packs of its entities.
func init() {
	store.DeclareGoneList(domain.GoneAttributes, func(ctx context.Context, st *store.Store, cid, eid int64, since time.Time, a domain.Access) ([]domain.Gone, error) {
		return New(st).goneList(ctx, cid, eid, since, a)
	})
	store.DeclareAttributes(func(ctx context.Context, st *store.Store, cid int64, eids []int64) (map[int64][]domain.Attribute, error) {
		return New(st).AttributesOf(ctx, cid, eids)
	})
	// The stream announces each attribute a pack's write changes (attribute.created...), a
	// private one as an admins' record.
	store.DeclareEntityPack(packSK, "attribute", func(item dynamo.Item) map[int64]domain.PackEntry {
		var p attributePack
		if dynamo.UnmarshalItem(item, &p) != nil {
			return nil
		}
		out := make(map[int64]domain.PackEntry, len(p.Items))
		for _, it := range p.Items {
			v := domain.VisibilityAll
			if it.IsPrivate {
				v = domain.VisibilityAdmin
			}
			out[it.ID] = domain.PackEntry{ID: it.ID, Name: it.Name, Visibility: v, CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy,
				CreatedAt: store.ParseTime(it.CreatedAt), UpdatedAt: store.ParseTime(it.UpdatedAt)}
		}
		return out
	})
}

// ReadAttributes reads ahead an entity (Ref.Parent) and its attribute pack.
var ReadAttributes = store.EntityItemRead(packSK)

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
	// Gone are the deleted attributes (`?deleted=1`): the most recent domain.MaxAttributeGone
	// of the last domain.GoneHistory, kept by every write.
	Gone []attributeGone `dynamo:"gone,omitempty"`
}

type attributeGone struct {
	ID        int64  `dynamo:"id"`
	IsPrivate bool   `dynamo:"is_private,omitempty"`
	DeletedAt string `dynamo:"deleted_at"`
}

func (p attributePack) set() domain.AttributeSet {
	out := domain.AttributeSet{Items: p.attributes(), Version: p.V}
	for _, g := range p.Gone {
		out.Gone = append(out.Gone, domain.AttributeGone{ID: g.ID, IsPrivate: g.IsPrivate, DeletedAt: store.ParseTime(g.DeletedAt)})
	}
	return out
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
		out[i] = domain.Attribute{Meta: domain.Meta{ID: it.ID, CampaignID: p.CampaignID, CreatedAt: store.ParseTime(it.CreatedAt),
			UpdatedAt: store.ParseTime(it.UpdatedAt), CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy, Version: p.V},
			EntityID: p.EntityID, Name: it.Name, Value: it.Value, TypeID: it.TypeID, IsPrivate: it.IsPrivate,
			IsPinned: it.IsPinned, DefaultOrder: it.DefaultOrder, APIKey: it.APIKey}
	}
	return out
}

// GetAttributes reads entity eid and all its attributes (in id order) in one round trip (read
// ahead with the campaign access); the set's version is the pack's, 0 when there is none yet.
func (s *Attributes) GetAttributes(ctx context.Context, cid, eid int64) (*domain.Entity, domain.AttributeSet, error) {
	e, p, err := s.attributePackOf(ctx, cid, eid)
	if err != nil {
		return nil, domain.AttributeSet{}, err
	}
	return e, p.set(), nil
}

func (s *Attributes) attributePackOf(ctx context.Context, cid, eid int64) (*domain.Entity, attributePack, error) {
	var p attributePack
	e, _, err := s.EntityWith(ctx, cid, eid, []store.Key{packKey(cid, eid)}, &p)
	return e, p, err
}

// NewAttributeIDs reserves n attribute ids of the campaign; the first is returned.
func (s *Attributes) NewAttributeIDs(ctx context.Context, cid int64, n int) (int64, error) {
	return s.NextIDs(ctx, cid, "attribute", n)
}

// SaveAttributes replaces entity eid's attributes prev (as read) with all (id order), on
// condition that the pack is still at prev's version (0: there was none) and the entity
// exists: one transaction. The attributes whose times are unset (written now) get the time of
// the write; those of prev that all lacks are kept as deletions (attributeGone).
func (s *Attributes) SaveAttributes(ctx context.Context, cid, eid int64, prev domain.AttributeSet, all []domain.Attribute) error {
	k := packKey(cid, eid)
	version := prev.Version
	entity := store.Step(func(t store.Tx) { t.Need(store.EntityKey(cid, eid), apperr.ErrNotFound) })
	now := s.Now()
	gone := attributesGone(prev, all, now)
	if len(all) == 0 && len(gone) == 0 {
		if version == 0 {
			return nil
		}
		return s.Write(ctx, entity, store.Step(func(t store.Tx) { t.DeleteIf(k, "'v' = ?", version) }))
	}
	for i := range all { // the attributes written now (their times unset by the caller)
		if all[i].UpdatedAt.IsZero() {
			all[i].UpdatedAt = now
		}
		if all[i].CreatedAt.IsZero() {
			all[i].CreatedAt = now
		}
		all[i].Version = version + 1
	}
	p := attributePack{PK: k.PK, SK: k.SK, CampaignID: cid, EntityID: eid, V: version + 1, Items: make([]attributeItem, len(all)), Gone: gone}
	for i, a := range all {
		p.Items[i] = attributeItem{ID: a.ID, Name: a.Name, Value: a.Value, TypeID: a.TypeID, IsPrivate: a.IsPrivate,
			IsPinned: a.IsPinned, DefaultOrder: a.DefaultOrder, APIKey: a.APIKey, CreatedAt: store.FormatTime(a.CreatedAt),
			UpdatedAt: store.FormatTime(a.UpdatedAt), CreatedBy: a.CreatedBy, UpdatedBy: a.UpdatedBy}
	}
	return s.Write(ctx, entity, store.Step(func(t store.Tx) {
		if version == 0 {
			t.PutIf(p, "attribute_not_exists(pk)")
		} else {
			t.PutIf(p, "'v' = ?", version)
		}
	}))
}

// AttributesOf reads the attributes of the entities eids (a related=1 page): their packs, in
// one BatchGetItem per 100 entities, run together.
func (s *Attributes) AttributesOf(ctx context.Context, cid int64, eids []int64) (map[int64][]domain.Attribute, error) {
	keys := make([]store.Key, len(eids))
	for i, e := range eids {
		keys[i] = packKey(cid, e)
	}
	items, err := s.GetItems(ctx, keys...)
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

// attributesGone are the deletions a save of all over prev keeps: prev's still within
// GoneHistory, and prev's attributes that all lacks (deleted at now), the most recent
// domain.MaxAttributeGone.
func attributesGone(prev domain.AttributeSet, all []domain.Attribute, now time.Time) []attributeGone {
	var out []attributeGone
	for _, g := range prev.Gone {
		if now.Sub(g.DeletedAt) < domain.GoneHistory {
			out = append(out, attributeGone{ID: g.ID, IsPrivate: g.IsPrivate, DeletedAt: store.FormatTime(g.DeletedAt)})
		}
	}
	for _, a := range prev.Items {
		if !slices.ContainsFunc(all, func(b domain.Attribute) bool { return b.ID == a.ID }) {
			out = append(out, attributeGone{ID: a.ID, IsPrivate: a.IsPrivate, DeletedAt: store.FormatTime(now)})
		}
	}
	return out[max(0, len(out)-domain.MaxAttributeGone):] // oldest first
}

// goneList answers `?deleted=1` on an entity's attributes: the pack's deletions after
// since that the reader a sees (private ones for admins only; a hidden entity is a 404), by
// id. One read (ahead with the access on the attributes routes).
func (s *Attributes) goneList(ctx context.Context, cid, eid int64, since time.Time, a domain.Access) ([]domain.Gone, error) {
	e, p, err := s.attributePackOf(ctx, cid, eid)
	if err == nil {
		err = a.SeeEntity(e)
	}
	if err != nil {
		return nil, err
	}
	admin := a.IsAdmin()
	var rows []domain.Gone
	seen := map[int64]bool{}
	for _, g := range p.set().Gone {
		if g.DeletedAt.After(since) && (admin || !g.IsPrivate) && !seen[g.ID] {
			seen[g.ID] = true
			rows = append(rows, domain.Gone{ID: g.ID, DeletedAt: g.DeletedAt})
		}
	}
	slices.SortFunc(rows, func(a, b domain.Gone) int { return cmp.Compare(a.ID, b.ID) })
	return rows, nil
}
