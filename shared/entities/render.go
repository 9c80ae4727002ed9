package entities

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// entityJSON is an entity as Kanka's entities endpoint answers it today (EntityResource), with
// the 2022 fields it kept: `type` is the module code as both eras answer it, `entity_type` the
// code as the 2024 docs spell it. What Lorekeep does not store (templates, tooltips, header
// images, a free-text type, attribute privacy, a web page, archiving) has Kanka's unset values.
type entityJSON struct {
	ID                  int64       `json:"id"`
	Name                string      `json:"name"`
	Type                string      `json:"type"`
	EntityType          string      `json:"entity_type"`
	TypeField           *string     `json:"type_field"`
	TypeID              int         `json:"type_id"`
	Module              moduleJSON  `json:"module"`
	ChildID             int64       `json:"child_id"`
	Tags                []int64     `json:"tags"`
	IsPrivate           bool        `json:"is_private"`
	IsTemplate          bool        `json:"is_template"`
	IsAttributesPrivate bool        `json:"is_attributes_private"`
	CampaignID          int64       `json:"campaign_id"`
	Tooltip             *string     `json:"tooltip"`
	HeaderImage         *string     `json:"header_image"`
	HeaderUUID          *string     `json:"header_uuid"`
	ImageUUID           *string     `json:"image_uuid"`
	ArchivedAt          *string     `json:"archived_at"`
	CreatedAt           domain.Time `json:"created_at"`
	CreatedBy           int64       `json:"created_by"`
	UpdatedAt           domain.Time `json:"updated_at"`
	UpdatedBy           int64       `json:"updated_by"`
	URLs                urlsJSON    `json:"urls"`
	// Child is the record's image, as Kanka adds it with ?image=1 or ?related=1.
	Child *childJSON `json:"child,omitempty"`
}

// moduleJSON is Kanka's `module` of an entity: what the Foundry importer reads `code` from.
type moduleJSON struct {
	ID       int    `json:"id"`
	Code     string `json:"code"`
	Singular string `json:"singular"`
	Plural   string `json:"plural"`
}

type urlsJSON struct {
	View *string `json:"view"`
	API  string  `json:"api"`
}

type childJSON struct {
	Image          string `json:"image"`
	ImageFull      string `json:"image_full"`
	ImageThumb     string `json:"image_thumb"`
	HasCustomImage bool   `json:"has_custom_image"`
}

func render(r *httpapi.Request, e *domain.Entity) entityJSON {
	j := entityJSON{ID: e.ID, Name: e.Name, Type: e.Type, ChildID: e.ChildID, Tags: domain.VisibleTags(e.Tags, e.PrivateTags, r.Access.IsAdmin()), IsPrivate: e.IsPrivate,
		CampaignID: e.CampaignID, CreatedAt: domain.Time(e.CreatedAt), CreatedBy: e.CreatedBy,
		UpdatedAt: domain.Time(e.UpdatedAt), UpdatedBy: e.UpdatedBy, URLs: urlsJSON{API: r.AbsoluteURL(e.APIPath())}}
	// Every stored entity is of a served module; an unknown one keeps its code and id 0.
	m, _ := domain.ModuleOf(e.Type)
	j.EntityType, j.TypeID = e.Type, m.ID
	j.Module = moduleJSON{ID: m.ID, Code: e.Type, Singular: m.Singular, Plural: m.Plural}
	if j.Tags == nil {
		j.Tags = []int64{}
	}
	if q := r.URL.Query(); truthy(q.Get("image")) || truthy(q.Get("related")) {
		c := &childJSON{}
		c.Image, c.ImageFull, c.ImageThumb, c.HasCustomImage = r.ImageLinks(e.ImagePath, e.ImageURL)
		j.Child = c
	}
	return j
}

// truthy reads a flag of the query as Kanka does: present and not false.
func truthy(v string) bool { return v != "" && v != "0" && v != "false" }
