package store

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/domain"
)

// entityItem is the entity every calendar and location owns: the parent of entity events and
// notes, and the target of mentions and map points. It mirrors its child's name and privacy.
type entityItem struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	ID         int64  `dynamo:"id"`
	CampaignID int64  `dynamo:"campaign_id"`
	Type       string `dynamo:"type"`
	ChildID    int64  `dynamo:"child_id"`
	Name       string `dynamo:"name"`
	IsPrivate  bool   `dynamo:"is_private"`
	// LinksPrivate places the links to the entity (calendarlinks.go): is_private but while a
	// privacy change re-places them.
	LinksPrivate bool `dynamo:"links_private"`
	// What Kanka's entities list shows and filters on, mirrored from the record on every write.
	NameLC      string  `dynamo:"name_lc"`
	Tags        []int64 `dynamo:"tags"`
	PrivateTags []int64 `dynamo:"private_tags,omitempty"` // the home's only (copyItem projects)
	ImageURL    string  `dynamo:"image_url,omitempty"`
	ImagePath   string  `dynamo:"image_path,omitempty"`
	CreatedAt   string  `dynamo:"created_at"`
	UpdatedAt   string  `dynamo:"updated_at"`
	CreatedBy   int64   `dynamo:"created_by"`
	UpdatedBy   int64   `dynamo:"updated_by"`
}

func (it entityItem) entity() *domain.Entity {
	return &domain.Entity{ID: it.ID, CampaignID: it.CampaignID, Type: it.Type, ChildID: it.ChildID, Name: it.Name,
		IsPrivate: it.IsPrivate, LinksPrivate: it.LinksPrivate, Tags: it.Tags, PrivateTags: it.PrivateTags, ImageURL: it.ImageURL, ImagePath: it.ImagePath, CreatedAt: parseTime(it.CreatedAt),
		UpdatedAt: parseTime(it.UpdatedAt), CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy}
}

// GetEntity reads one entity of the campaign; ErrNotFound when there is none.
func (s *Store) GetEntity(ctx context.Context, cid, eid int64) (*domain.Entity, error) {
	e, err := getRecord(ctx, s, campaignPK(cid), recordSK(entityPrefix, eid), entityItem.entity)
	if err != nil {
		return nil, err
	}
	return *e, nil
}

// GetEntities reads the campaign's entities with the given ids in batches (one round trip for
// up to 100); missing ones are absent from the map.
func (s *Store) GetEntities(ctx context.Context, cid int64, ids []int64) (map[int64]*domain.Entity, error) {
	return getRecords(ctx, s, cid, entityPrefix, ids, false, func(it entityItem) (int64, *domain.Entity) { return it.ID, it.entity() })
}
