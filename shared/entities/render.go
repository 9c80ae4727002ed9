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

// render shapes e for the reader of r.
func render(r *httpapi.Request, e *domain.Entity) entityJSON { return renderer(r)(e) }

// renderer is render for the rows of one page: the query (?image=1, ?related=1) is read once,
// not once per row.
func renderer(r *httpapi.Request) func(e *domain.Entity) entityJSON {
	q := r.URL.Query()
	child := truthy(q.Get("image")) || truthy(q.Get("related"))
	return func(e *domain.Entity) entityJSON { return renderWith(r, e, child) }
}

func renderWith(r *httpapi.Request, e *domain.Entity, child bool) entityJSON {
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
	if child {
		c := &childJSON{}
		c.Image, c.ImageFull, c.ImageThumb, c.HasCustomImage = r.ImageLinks(e.ImagePath, e.ImageURL)
		j.Child = c
	}
	return j
}

// truthy reads a flag of the query as Kanka does: present and not false.
func truthy(v string) bool { return v != "" && v != "0" && v != "false" }

// AppendJSON is entityJSON's hand encoder (httpapi.JSONAppender), field for field encoding/json's
// output (TestEntityRowEncoderMatchesEncodingJSON).
func (j entityJSON) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"id":`...)
	b = httpapi.AppendInt(b, j.ID)
	b = append(b, `,"name":`...)
	b = httpapi.AppendString(b, j.Name)
	b = append(b, `,"type":`...)
	b = httpapi.AppendString(b, j.Type)
	b = append(b, `,"entity_type":`...)
	b = httpapi.AppendString(b, j.EntityType)
	b = append(b, `,"type_field":`...)
	b = httpapi.AppendOptString(b, j.TypeField)
	b = append(b, `,"type_id":`...)
	b = httpapi.AppendInt(b, int64(j.TypeID))
	b = append(b, `,"module":{"id":`...)
	b = httpapi.AppendInt(b, int64(j.Module.ID))
	b = append(b, `,"code":`...)
	b = httpapi.AppendString(b, j.Module.Code)
	b = append(b, `,"singular":`...)
	b = httpapi.AppendString(b, j.Module.Singular)
	b = append(b, `,"plural":`...)
	b = httpapi.AppendString(b, j.Module.Plural)
	b = append(b, `},"child_id":`...)
	b = httpapi.AppendInt(b, j.ChildID)
	b = append(b, `,"tags":`...)
	b = httpapi.AppendInts(b, j.Tags)
	b = append(b, `,"is_private":`...)
	b = httpapi.AppendBool(b, j.IsPrivate)
	b = append(b, `,"is_template":`...)
	b = httpapi.AppendBool(b, j.IsTemplate)
	b = append(b, `,"is_attributes_private":`...)
	b = httpapi.AppendBool(b, j.IsAttributesPrivate)
	b = append(b, `,"campaign_id":`...)
	b = httpapi.AppendInt(b, j.CampaignID)
	b = append(b, `,"tooltip":`...)
	b = httpapi.AppendOptString(b, j.Tooltip)
	b = append(b, `,"header_image":`...)
	b = httpapi.AppendOptString(b, j.HeaderImage)
	b = append(b, `,"header_uuid":`...)
	b = httpapi.AppendOptString(b, j.HeaderUUID)
	b = append(b, `,"image_uuid":`...)
	b = httpapi.AppendOptString(b, j.ImageUUID)
	b = append(b, `,"archived_at":`...)
	b = httpapi.AppendOptString(b, j.ArchivedAt)
	b = append(b, `,"created_at":`...)
	b = httpapi.AppendTime(b, j.CreatedAt)
	b = append(b, `,"created_by":`...)
	b = httpapi.AppendInt(b, j.CreatedBy)
	b = append(b, `,"updated_at":`...)
	b = httpapi.AppendTime(b, j.UpdatedAt)
	b = append(b, `,"updated_by":`...)
	b = httpapi.AppendInt(b, j.UpdatedBy)
	b = append(b, `,"urls":{"view":`...)
	b = httpapi.AppendOptString(b, j.URLs.View)
	b = append(b, `,"api":`...)
	b = httpapi.AppendString(b, j.URLs.API)
	b = append(b, '}')
	if c := j.Child; c != nil {
		b = append(b, `,"child":{"image":`...)
		b = httpapi.AppendString(b, c.Image)
		b = append(b, `,"image_full":`...)
		b = httpapi.AppendString(b, c.ImageFull)
		b = append(b, `,"image_thumb":`...)
		b = httpapi.AppendString(b, c.ImageThumb)
		b = append(b, `,"has_custom_image":`...)
		b = httpapi.AppendBool(b, c.HasCustomImage)
		b = append(b, '}')
	}
	return append(b, '}'), true
}
