package store

import (
	"context"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// ownerKind is a kind of record that owns an entity (a location, a calendar). The entity mirrors
// its name and privacy, and the campaign counts it, and how many are private, in the kind's
// counter item; creating, updating and deleting the record keep all three in step in one
// transaction.
type ownerKind struct {
	prefix     string // key prefix: "LOCATION", "CALENDAR"
	entityType string // "location", "calendar"; also the name of its id sequence
}

func (k ownerKind) counterSK() string { return "COUNT#" + k.prefix }

// entityItemOf is the entity of a record: it mirrors what Kanka's entities endpoint shows of the
// record (name, privacy, tags, image, write history), so that its list reads entity items only.
func entityItemOf(k ownerKind, m *domain.Meta, o *domain.Owner) entityItem {
	tags := o.Tags
	if tags == nil {
		tags = []int64{}
	}
	return entityItem{PK: campaignPK(m.CampaignID), SK: recordSK(entityPrefix, o.EntityID), ID: o.EntityID,
		CampaignID: m.CampaignID, Type: k.entityType, ChildID: m.ID, Name: o.Name, IsPrivate: o.IsPrivate,
		NameLC: strings.ToLower(o.Name), Tags: tags, ImageURL: o.ImageURL, CreatedAt: formatTime(m.CreatedAt),
		UpdatedAt: formatTime(m.UpdatedAt), CreatedBy: m.CreatedBy, UpdatedBy: m.UpdatedBy}
}

// createOwner stores a new record and its entity in one transaction, with ids from the
// campaign's sequences (one round trip): item builds the record's item once they are set.
func (s *Store) createOwner(ctx context.Context, k ownerKind, m *domain.Meta, o *domain.Owner, item func() any) error {
	ids, err := s.nextIDs(ctx, campaignPK(m.CampaignID), k.entityType, "entity")
	if err != nil {
		return err
	}
	s.stampNew(m, ids[0])
	o.EntityID = ids[1]
	err = s.db.WriteTx().
		Put(s.table.Put(item()).If("attribute_not_exists(pk)")).
		Put(s.table.Put(entityItemOf(k, m, o)).If("attribute_not_exists(pk)")).
		Update(s.counterUpdate(campaignPK(m.CampaignID), k.counterSK(), 1, b2i(o.IsPrivate))).
		Run(ctx)
	return wrap(err)
}

// updateOwner writes next's item over the record read as prev, on condition that nobody wrote
// since (ErrConflict otherwise). The entity mirrors the record, its update time included, so it
// is rewritten in the same transaction; only a change of privacy touches the count.
func (s *Store) updateOwner(ctx context.Context, k ownerKind, prevM, nextM *domain.Meta, prev, next *domain.Owner, item func() any) error {
	s.stampUpdate(prevM, nextM)
	tx := s.db.WriteTx().Put(s.table.Put(item()).If(ifVersion, prevM.Version)).Put(s.table.Put(entityItemOf(k, nextM, next)))
	if d := b2i(next.IsPrivate) - b2i(prev.IsPrivate); d != 0 {
		tx = tx.Update(s.counterUpdate(campaignPK(nextM.CampaignID), k.counterSK(), 0, d))
	}
	return wrap(tx.Run(ctx))
}

// deleteOwner deletes the record, its entity and its count, on condition of the version read.
// What hangs from the record first goes in cascades, run at once: they are idempotent, so a
// delete that fails half-way is finished by retrying it.
func (s *Store) deleteOwner(ctx context.Context, k ownerKind, m *domain.Meta, o *domain.Owner, cascades ...func() error) error {
	var g errgroup.Group
	for _, c := range cascades {
		g.Go(c)
	}
	if err := g.Wait(); err != nil {
		return err
	}
	pk := campaignPK(m.CampaignID)
	err := s.db.WriteTx().
		Delete(s.table.Delete("pk", pk).Range("sk", recordSK(k.prefix, m.ID)).If(ifVersion, m.Version)).
		Delete(s.table.Delete("pk", pk).Range("sk", recordSK(entityPrefix, o.EntityID))).
		Update(s.counterUpdate(pk, k.counterSK(), -1, -b2i(o.IsPrivate))).
		Run(ctx)
	return wrap(err)
}
