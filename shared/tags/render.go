package tags

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
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
	Entities       []int64 `json:"entities"`
	EntitiesCount  int     `json:"entities_count"`
	*embeds.Arrays         // ?related=1
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

// AppendJSON is tagJSON's hand encoder (httpapi.JSONAppender), field for field encoding/json's
// output (TestTagRowEncoderMatchesEncodingJSON); ?related=1 rows are left to encoding/json.
func (j tagJSON) AppendJSON(b []byte) ([]byte, bool) {
	if j.Arrays != nil {
		return b, false
	}
	b = append(b, '{')
	b = j.OwnerJSON.AppendOwnerFields(b)
	b = append(b, `,"tag_id":`...)
	b = httpapi.AppendOptInt(b, j.TagID)
	b = append(b, `,"colour":`...)
	b = httpapi.AppendString(b, j.Colour)
	b = append(b, `,"is_auto_applied":`...)
	b = httpapi.AppendBool(b, j.IsAutoApplied)
	b = append(b, `,"is_hidden":`...)
	b = httpapi.AppendBool(b, j.IsHidden)
	b = append(b, `,"entities":`...)
	b = httpapi.AppendInts(b, j.Entities)
	b = append(b, `,"entities_count":`...)
	b = httpapi.AppendInt(b, int64(j.EntitiesCount))
	return append(b, '}'), true
}
