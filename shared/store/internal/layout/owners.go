package layout

import (
	"strings"

	"github.com/lorekeep/lorekeep/shared/domain"
)

func (k KindSpec) Slots(m *domain.Meta, o *domain.Owner) []Slot {
	return OwnerSlots(k.Prefix, m.CampaignID, m.ID, o.IsPrivate)
}

// EntityItemOf is the entity of a record: it mirrors what Kanka's entities endpoint shows of the
// record (name, privacy, tags, image, write history), so that its list reads entity items only.
func EntityItemOf(k KindSpec, m *domain.Meta, o *domain.Owner) EntityItem {
	tags := o.Tags
	if tags == nil {
		tags = []int64{}
	}
	return EntityItem{PK: CampaignPK(m.CampaignID), SK: RecordSK(EntityPrefix, o.EntityID), ID: o.EntityID,
		CampaignID: m.CampaignID, Type: k.EntityType, ChildID: m.ID, Name: o.Name, IsPrivate: o.IsPrivate, LinksPrivate: o.IsPrivate,
		NameLC: strings.ToLower(o.Name), Tags: tags, PrivateTags: PrivateTagsOf(tags, o.PrivateTags), ImageURL: o.ImageURL, ImagePath: o.ImagePath, CreatedAt: FormatTime(m.CreatedAt),
		UpdatedAt: FormatTime(m.UpdatedAt), CreatedBy: m.CreatedBy, UpdatedBy: m.UpdatedBy}
}

// EntitySlots place the entity of a record like the record itself: its home (the admins' list
// range) and, when not private, a public copy, counted by id in COUNT#ENTITY.
func EntitySlots(m *domain.Meta, o *domain.Owner) []Slot {
	return OwnerSlots(EntityPrefix, m.CampaignID, o.EntityID, o.IsPrivate)
}

// tombstone stands for an owner whose purge has begun (DELETING#KIND#id): its trash is gone,
// what hung from it is being removed. The purge that wrote it, the sweeper (found by its
// marker, see sweep.go) or `lorekeep migrate` finishes it. Layout 2's deletes wrote it too.
type Tombstone struct {
	PK       string `dynamo:"pk"`
	SK       string `dynamo:"sk"`
	Kind     string `dynamo:"kind"`
	ID       int64  `dynamo:"id"`
	CID      int64  `dynamo:"campaign_id"`
	EntityID int64  `dynamo:"entity_id"`
	Marker   string `dynamo:"marker,omitempty"` // sk of its marker in PendingPK(CID); "" before markers
	// Mentions are the targets whose reverse items of the record's entry the cascade removes
	// (kept out of the first step: they would not fit beside 20 tags' links and packs).
	Mentions []int64 `dynamo:"mentions,omitempty"`
	// Refs are the links of the record's references (in their targets' partitions) the
	// cascade removes.
	Refs []RefTarget `dynamo:"refs,omitempty"`
}
