package domain

import (
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// Entity is the record every calendar and location owns: the parent of entity events and notes,
// and the target of mentions and map points. It mirrors its child's name and privacy.
type Entity struct {
	ID         int64
	CampaignID int64
	Type       string // "location", "calendar"
	ChildID    int64
	Name       string
	IsPrivate  bool
	// LinksPrivate is the privacy what points at the entity from elsewhere (its events' calendar
	// links) is placed by: IsPrivate, or true while a change of it re-places them (the store's).
	LinksPrivate bool
	// What Kanka's entities endpoint shows of the record, mirrored from it on every write.
	Tags        []int64
	PrivateTags []int64 // as Owner.PrivateTags
	ImageURL    string
	ImagePath   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CreatedBy   int64
	UpdatedBy   int64
	// DeletedAt and DeletedBy are set on an entity in the trash (recovery).
	DeletedAt *time.Time
	DeletedBy int64
}

// SeeEntity returns apperr.ErrNotFound unless the entity exists and the caller may see it: events and
// notes of a hidden entity are hidden with it.
func (a Access) SeeEntity(e *Entity) error {
	if e == nil || !a.CanSee(e.IsPrivate) {
		return apperr.ErrNotFound
	}
	return nil
}

// MentionRow is one mention as Kanka's entities/{id}/mentions answers it: entity EntityID's
// entry (PostID 0) or its post PostID mentions entity TargetID.
type MentionRow struct {
	EntityID int64
	PostID   int64
	TargetID int64
}
