package layout

import "github.com/lorekeep/lorekeep/shared/domain"

// EntityItem is the entity every calendar and location owns: the parent of entity events and
// notes, and the target of mentions and map points. It mirrors its child's name and privacy.
type EntityItem struct {
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
	PrivateTags []int64 `dynamo:"private_tags,omitempty"` // the home's only (CopyItem projects)
	ImageURL    string  `dynamo:"image_url,omitempty"`
	ImagePath   string  `dynamo:"image_path,omitempty"`
	CreatedAt   string  `dynamo:"created_at"`
	UpdatedAt   string  `dynamo:"updated_at"`
	CreatedBy   int64   `dynamo:"created_by"`
	UpdatedBy   int64   `dynamo:"updated_by"`
}

func (it EntityItem) Entity() *domain.Entity {
	return &domain.Entity{ID: it.ID, CampaignID: it.CampaignID, Type: it.Type, ChildID: it.ChildID, Name: it.Name,
		IsPrivate: it.IsPrivate, LinksPrivate: it.LinksPrivate, Tags: it.Tags, PrivateTags: it.PrivateTags, ImageURL: it.ImageURL, ImagePath: it.ImagePath, CreatedAt: ParseTime(it.CreatedAt),
		UpdatedAt: ParseTime(it.UpdatedAt), CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy}
}
