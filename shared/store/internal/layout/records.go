package layout

import "github.com/lorekeep/lorekeep/shared/domain"

// MetaAttrs are the key and the domain.Meta of every record item.
type MetaAttrs struct {
	PK         string `dynamo:"pk"`
	SK         string `dynamo:"sk"`
	ID         int64  `dynamo:"id"`
	CampaignID int64  `dynamo:"campaign_id"`
	CreatedAt  string `dynamo:"created_at"`
	UpdatedAt  string `dynamo:"updated_at"`
	CreatedBy  int64  `dynamo:"created_by"`
	UpdatedBy  int64  `dynamo:"updated_by"`
	Version    int64  `dynamo:"version"`
}

func ToMetaAttrs(pk, sk string, m domain.Meta) MetaAttrs {
	return MetaAttrs{PK: pk, SK: sk, ID: m.ID, CampaignID: m.CampaignID, CreatedAt: FormatTime(m.CreatedAt),
		UpdatedAt: FormatTime(m.UpdatedAt), CreatedBy: m.CreatedBy, UpdatedBy: m.UpdatedBy, Version: m.Version}
}

func (a MetaAttrs) Meta() domain.Meta {
	return domain.Meta{ID: a.ID, CampaignID: a.CampaignID, CreatedAt: ParseTime(a.CreatedAt),
		UpdatedAt: ParseTime(a.UpdatedAt), CreatedBy: a.CreatedBy, UpdatedBy: a.UpdatedBy, Version: a.Version}
}

// OwnerAttrs are the domain.Owner of a calendar or location item.
type OwnerAttrs struct {
	EntityID         int64   `dynamo:"entity_id"`
	Name             string  `dynamo:"name"`
	NameLC           string  `dynamo:"name_lc"`
	Entry            string  `dynamo:"entry,omitempty"`
	Type             string  `dynamo:"type,omitempty"`
	TypeLC           string  `dynamo:"type_lc,omitempty"` // filters ignore case
	ImageURL         string  `dynamo:"image_url,omitempty"`
	ImagePath        string  `dynamo:"image_path,omitempty"`
	IsPrivate        bool    `dynamo:"is_private"`
	Tags             []int64 `dynamo:"tags"`
	PrivateTags      []int64 `dynamo:"private_tags,omitempty"` // homes only: CopyItem projects
	EntityImageUUID  string  `dynamo:"entity_image_uuid,omitempty"`
	EntityHeaderUUID string  `dynamo:"entity_header_uuid,omitempty"`
	// Refs: the record's references (refs.go); a public copy's without the private ones.
	Refs    []RefAttr `dynamo:"refs,omitempty"`
	RefKeys []string  `dynamo:"ref_keys,set,omitempty"` // RefKeysOf(Refs)
}

func (a OwnerAttrs) Owner() domain.Owner {
	return domain.Owner{EntityID: a.EntityID, Name: a.Name, Entry: a.Entry, Type: a.Type, ImageURL: a.ImageURL, ImagePath: a.ImagePath,
		IsPrivate: a.IsPrivate, Tags: a.Tags, PrivateTags: a.PrivateTags, EntityImageUUID: a.EntityImageUUID, EntityHeaderUUID: a.EntityHeaderUUID,
		Refs: DomainRefs(a.Refs)}
}
