package layout

import "github.com/lorekeep/lorekeep/shared/domain"

// Relations live in their owner entity's partition, placed like notes (ChildSlots: the
// admins' home, member and public copies, the creator's own ranges), with copies in the
// campaign partition for the campaign-wide list (REL#), one in the owner's related=1 bucket,
// and a pointer (RELIN#) in the target's partition, so that deleting an entity finds the
// relations pointing at it. A relation whose owner or target is private is placed for admins
// only, so no list ever shows a relation to an entity its reader may not see, and totals stay
// exact. All of one relation's items (and its mirror's) are written in one transaction.
type RelationItem struct {
	MetaAttrs
	EntityID      int64  `dynamo:"entity_id"` // the owner: the partition's entity
	OwnerID       int64  `dynamo:"owner_id"`
	TargetID      int64  `dynamo:"target_id"`
	Relation      string `dynamo:"relation"`
	NameLC        string `dynamo:"name_lc"` // the relation text, for ?name=
	Attitude      int64  `dynamo:"attitude"`
	Colour        string `dynamo:"colour,omitempty"`
	Visibility    string `dynamo:"visibility"`
	IsPinned      bool   `dynamo:"is_pinned"`
	MirrorID      *int64 `dynamo:"mirror_id,omitempty"`
	OwnerPrivate  bool   `dynamo:"owner_private"`
	TargetPrivate bool   `dynamo:"target_private"`
}

func (it RelationItem) AsRelation() domain.Relation {
	return domain.Relation{Meta: it.Meta(), OwnerID: it.OwnerID, TargetID: it.TargetID, Relation: it.Relation,
		Attitude: it.Attitude, Colour: it.Colour, Visibility: domain.Visibility(it.Visibility), IsPinned: it.IsPinned,
		MirrorID: it.MirrorID, OwnerPrivate: it.OwnerPrivate, TargetPrivate: it.TargetPrivate}
}

// RelationSlots are every item of relation r but its incoming pointer: its home and copies in
// the owner's partition, its copies in the campaign-wide list (no SELF# home there: the index
// is only read as lists) and its related=1 bucket copy.
func RelationSlots(r *domain.Relation) []Slot {
	out := ChildSlots(RelationPrefix, EntityPK(r.CampaignID, r.OwnerID), r.ID, r.CreatedBy, r.Visibility, r.Private())
	out = append(out, RelationIndexSlots(CampaignPK(r.CampaignID), r.ID, r.CreatedBy, r.Visibility, r.Private())...)
	return append(out, Slot{PK: RelatedPK(r.CampaignID, r.OwnerID), SK: RelatedSK(r.OwnerID, RelationPrefix, r.ID), Id: r.ID})
}

// RelationIndexSlots are a relation's copies in the campaign-wide list (pk: the campaign's).
func RelationIndexSlots(pk string, id, createdBy int64, vis domain.Visibility, private bool) []Slot {
	var out []Slot
	for _, sl := range ChildSlots(RelationIndexPrefix, pk, id, createdBy, vis, private) {
		if sl.Counter != "" {
			sl.Home = false
			out = append(out, sl)
		}
	}
	return out
}

// RelationRefs are a relation's two sync pointers: in its owner's list and in the campaign's.
func RelationRefs(r *domain.Relation) []*SyncRef {
	ptr := SyncPointer{ID: r.ID, IsPrivate: r.Private(), Visibility: string(r.Visibility), CreatedBy: r.CreatedBy}
	own, all := ptr, ptr
	own.PK, all.PK = EntityPK(r.CampaignID, r.OwnerID), CampaignPK(r.CampaignID)
	return []*SyncRef{{Kind: RelationPrefix, Ptr: own, Updated: r.UpdatedAt}, {Kind: RelationIndexPrefix, Ptr: all, Updated: r.UpdatedAt}}
}
