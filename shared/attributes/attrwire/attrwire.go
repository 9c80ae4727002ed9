// Package attrwire is the wire shape of entity attributes: what the attributes family answers
// and what a record embeds with ?related=1, rendered one way.
package attrwire

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Attribute is Kanka's AttributeResource, plus the 2022 `type` string so both eras read it.
type Attribute struct {
	ID           int64   `json:"id"`
	EntityID     int64   `json:"entity_id"`
	Name         string  `json:"name"`
	Value        *string `json:"value"`
	Parsed       *string `json:"parsed"`
	DefaultOrder int64   `json:"default_order"`
	IsStar       bool    `json:"is_star"`
	IsPinned     bool    `json:"is_pinned"`
	APIKey       *string `json:"api_key"`
	TypeID       int     `json:"type_id"`
	Type         *string `json:"type"`
	IsPrivate    bool    `json:"is_private"`
	httpapi.AuditJSON
}

// Render shapes attributes. `parsed` is the value as stored (sanitised HTML): Kanka maps the
// mentions of attribute values, Lorekeep answers the value itself.
func Render(as []domain.Attribute) []Attribute {
	out := make([]Attribute, len(as))
	for i, a := range as {
		out[i] = Attribute{ID: a.ID, EntityID: a.EntityID, Name: a.Name, Value: a.Value, Parsed: a.Value,
			DefaultOrder: a.DefaultOrder, IsStar: a.IsPinned, IsPinned: a.IsPinned, APIKey: a.APIKey, TypeID: a.TypeID,
			Type: domain.AttributeTypeName(a.TypeID), IsPrivate: a.IsPrivate, AuditJSON: httpapi.RenderAudit(a.Meta)}
	}
	return out
}

// Embedded is Render as the related=1 arrays hold it.
func Embedded(as []domain.Attribute) []any {
	out := make([]any, len(as))
	for i, a := range Render(as) {
		out[i] = a
	}
	return out
}
