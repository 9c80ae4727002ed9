package tags

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/related"
)

// tagJSON is a tag as Kanka clients read it (TagResource).
type tagJSON struct {
	httpapi.OwnerJSON
	TagID         *int64 `json:"tag_id"`
	Colour        string `json:"colour"`
	IsAutoApplied bool   `json:"is_auto_applied"`
	IsHidden      bool   `json:"is_hidden"`
	// Entities are the entities tagged that the caller may see (Kanka's `entities`, the first
	// domain.MaxTagEntities by id), EntitiesCount their number: from the tag's member pack.
	Entities        []int64 `json:"entities"`
	EntitiesCount   int     `json:"entities_count"`
	*related.Arrays         // ?related=1
}

// render shapes a tag for the caller: a private parent shows as none to non-admins.
func render(r *httpapi.Request, t *domain.Tag, a domain.Access) tagJSON {
	parent := t.ParentID
	if parent != nil && t.ParentPrivate && !a.CanSee(true) {
		parent = nil
	}
	return tagJSON{OwnerJSON: httpapi.RenderOwner(r, t.Meta, t.Owner), TagID: parent, Colour: t.Colour,
		IsAutoApplied: t.IsAutoApplied, IsHidden: t.IsHidden}
}

func ownerOf(j *tagJSON) *httpapi.OwnerJSON { return &j.OwnerJSON }
