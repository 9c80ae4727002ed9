package httpapi

import "github.com/lorekeep/lorekeep/shared/domain"

// AuditJSON is the write history every record shows; families embed it in their JSON shapes.
type AuditJSON struct {
	CreatedAt domain.Time `json:"created_at"`
	CreatedBy int64       `json:"created_by"`
	UpdatedAt domain.Time `json:"updated_at"`
	UpdatedBy int64       `json:"updated_by"`
}

// RenderAudit shapes m's write history.
func RenderAudit(m domain.Meta) AuditJSON {
	return AuditJSON{CreatedAt: domain.Time(m.CreatedAt), CreatedBy: m.CreatedBy, UpdatedAt: domain.Time(m.UpdatedAt), UpdatedBy: m.UpdatedBy}
}

// OwnerJSON is what the records that own an entity (calendars, locations) show alike.
type OwnerJSON struct {
	ID               int64   `json:"id"`
	Name             string  `json:"name"`
	Entry            string  `json:"entry"`
	EntryParsed      *string `json:"entry_parsed"` // filled by ParseOwners: it needs a read
	Type             string  `json:"type"`
	Image            string  `json:"image"`
	ImageFull        string  `json:"image_full"`
	ImageThumb       string  `json:"image_thumb"`
	HasCustomImage   bool    `json:"has_custom_image"`
	IsPrivate        bool    `json:"is_private"`
	EntityID         int64   `json:"entity_id"`
	Tags             []int64 `json:"tags"`
	EntityImageUUID  *string `json:"entity_image_uuid"`
	EntityHeaderUUID *string `json:"entity_header_uuid"`
	AuditJSON
}

// RenderOwner shapes the shared part of a calendar, location or tag for the reader of r: the
// ids of private tags are shown to admins only.
func RenderOwner(r *Request, m domain.Meta, o domain.Owner) OwnerJSON {
	j := OwnerJSON{ID: m.ID, Name: o.Name, Entry: o.Entry, Type: o.Type, IsPrivate: o.IsPrivate, EntityID: o.EntityID,
		Tags: o.Tags, EntityImageUUID: optional(o.EntityImageUUID), EntityHeaderUUID: optional(o.EntityHeaderUUID),
		AuditJSON: RenderAudit(m)}
	if len(o.PrivateTags) > 0 && !r.Access.IsAdmin() { // else every tag shows: no copy per row
		j.Tags = domain.VisibleTags(o.Tags, o.PrivateTags, false)
	}
	j.Image, j.ImageFull, j.ImageThumb, j.HasCustomImage = r.ImageLinks(o.ImagePath, o.ImageURL)
	if j.Tags == nil {
		j.Tags = []int64{}
	}
	return j
}

// optional is s, or nil for "". The copy is made in its branch: &s would move s to the heap on
// every call, two allocations per row for the two image ids most records do not have.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	p := new(string)
	*p = s
	return p
}
