package store

import (
	"context"
	"strings"
)

// owner is a record that owns an entity (a location, a calendar). The entity mirrors its name
// and privacy, and the campaign counts it, and how many are private, in the kind's counter
// item; creating, updating and deleting the record keep all three in step in one transaction.
type owner struct {
	kind       string // key prefix: "LOCATION", "CALENDAR"
	entityType string // "location", "calendar"
	cid        int64
	id         int64
	entityID   int64
	name       string
	private    bool
	version    int64
	// mirrored on the entity for Kanka's entities list
	tags                 []int64
	imageURL             string
	createdAt, updatedAt string
	createdBy, updatedBy int64
}

func (o owner) counterSK() string { return "COUNT#" + o.kind }

func (o owner) entityItem() entityItem {
	tags := o.tags
	if tags == nil {
		tags = []int64{}
	}
	return entityItem{PK: campaignPK(o.cid), SK: recordSK(entityPrefix, o.entityID), ID: o.entityID,
		CampaignID: o.cid, Type: o.entityType, ChildID: o.id, Name: o.name, IsPrivate: o.private,
		NameLC: strings.ToLower(o.name), Tags: tags, ImageURL: o.imageURL, CreatedAt: o.createdAt,
		UpdatedAt: o.updatedAt, CreatedBy: o.createdBy, UpdatedBy: o.updatedBy}
}

// ownerIDs allocates a new record's id and its entity's id in one round trip.
func (s *Store) ownerIDs(ctx context.Context, cid int64, sequence string) (id, entityID int64, err error) {
	ids, err := s.nextIDs(ctx, campaignPK(cid), sequence, "entity")
	if err != nil {
		return 0, 0, err
	}
	return ids[0], ids[1], nil
}

// createOwner writes a new record (item), its entity and its count.
func (s *Store) createOwner(ctx context.Context, o owner, item any) error {
	err := s.db.WriteTx().
		Put(s.table.Put(item).If("attribute_not_exists(pk)")).
		Put(s.table.Put(o.entityItem()).If("attribute_not_exists(pk)")).
		Update(s.counterUpdate(campaignPK(o.cid), o.counterSK(), 1, b2i(o.private))).
		Run(ctx)
	return wrap(err)
}

// updateOwner writes item over the record read as prev, on condition that nobody wrote since
// (ErrConflict otherwise). The entity mirrors the record (its update time included), so it is
// rewritten in the same transaction; only a change of privacy touches the count.
func (s *Store) updateOwner(ctx context.Context, prev, next owner, item any) error {
	tx := s.db.WriteTx().Put(s.table.Put(item).If("'version' = ?", prev.version)).
		Put(s.table.Put(next.entityItem()))
	if d := b2i(next.private) - b2i(prev.private); d != 0 {
		tx = tx.Update(s.counterUpdate(campaignPK(next.cid), next.counterSK(), 0, d))
	}
	return wrap(tx.Run(ctx))
}

// deleteOwner deletes the record, its entity and its count, on condition of the version read.
// What hangs from the entity is the caller's cascade, run before.
func (s *Store) deleteOwner(ctx context.Context, o owner) error {
	err := s.db.WriteTx().
		Delete(s.table.Delete("pk", campaignPK(o.cid)).Range("sk", recordSK(o.kind, o.id)).If("'version' = ?", o.version)).
		Delete(s.table.Delete("pk", campaignPK(o.cid)).Range("sk", recordSK(entityPrefix, o.entityID))).
		Update(s.counterUpdate(campaignPK(o.cid), o.counterSK(), -1, -b2i(o.private))).
		Run(ctx)
	return wrap(err)
}
