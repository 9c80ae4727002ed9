package layout

import (
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// SyncPointer is a pointer (or, inside goneItem, a tombstone).
type SyncPointer struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	ID         int64  `dynamo:"id"`
	IsPrivate  bool   `dynamo:"is_private,omitempty"`
	Visibility string `dynamo:"visibility,omitempty"`
	CreatedBy  int64  `dynamo:"created_by,omitempty"`
}

// SyncRef is a record as its pointer sees it: kind, list partition, audience and update time.
type SyncRef struct {
	Kind     string
	Ptr      SyncPointer
	Updated  time.Time
	EntityID int64 // of a location or calendar, for its tombstone
}

func EntityRef(m *domain.Meta, o *domain.Owner) *SyncRef {
	return &SyncRef{Kind: EntityPrefix, Ptr: SyncPointer{PK: CampaignPK(m.CampaignID), ID: o.EntityID, IsPrivate: o.IsPrivate},
		Updated: m.UpdatedAt}
}

// PointerSlots are the items the record of a pointer (or tombstone) of kind has (or had): the
// placement its write gave it, from the audience the pointer carries.
func PointerSlots(kind string, p SyncPointer) []Slot {
	switch kind {
	case NotePrefix, EventPrefix, WeatherPrefix, MarkerPrefix:
		return ChildSlots(kind, p.PK, p.ID, p.CreatedBy, domain.Visibility(p.Visibility), p.IsPrivate)
	case MapPointPrefix:
		return []Slot{{PK: p.PK, SK: RecordSK(kind, p.ID), Home: true}}
	case RelationPrefix: // is_private: an end is private (relations.go)
		return ChildSlots(kind, p.PK, p.ID, p.CreatedBy, domain.Visibility(p.Visibility), p.IsPrivate)
	case RelationIndexPrefix:
		return RelationIndexSlots(p.PK, p.ID, p.CreatedBy, domain.Visibility(p.Visibility), p.IsPrivate)
	}
	out := []Slot{{PK: p.PK, SK: RecordSK(kind, p.ID), Home: true}}
	if !p.IsPrivate {
		out = append(out, Slot{PK: p.PK, SK: PublicCopy + RecordSK(kind, p.ID)})
	}
	return out
}

// ReaderKey is the item of the pointer's record in one of the reader's ranges; ok is false when
// none of them holds it (the reader may not see it).
func ReaderKey(ranges []ListRange, kind string, p SyncPointer) (ItemKey, bool) {
	for _, sl := range PointerSlots(kind, p) {
		for _, r := range ranges {
			if sl.PK == r.PK && sl.SK == r.SK(p.ID) {
				return ItemKey{sl.PK, sl.SK}, true
			}
		}
	}
	return ItemKey{}, false
}
