package entities

import (
	"strings"
	"unicode/utf8"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// SearchPageSize is a search page's default size: Kanka answers at most 10 hits (DESIGN 9).
const SearchPageSize = 10

// MaxSearchTerm is the longest search term, in characters: no name is longer.
const MaxSearchTerm = 191

// hitJSON is one search hit as Kanka's search answers it (Resources\Entity), `type` the module
// code as in 2022 and the entities list, `type_field` the free-text type Lorekeep does not keep.
type hitJSON struct {
	ID                  int64       `json:"id"`
	EntityID            int64       `json:"entity_id"`
	Name                string      `json:"name"`
	Image               string      `json:"image"`
	ImageThumb          string      `json:"image_thumb"`
	HasCustomImage      bool        `json:"has_custom_image"`
	Type                string      `json:"type"`
	TypeField           *string     `json:"type_field"`
	TypeID              int         `json:"type_id"`
	EntityType          string      `json:"entity_type"`
	Tooltip             *string     `json:"tooltip"`
	URL                 *string     `json:"url"`
	IsAttributesPrivate bool        `json:"is_attributes_private"`
	IsPrivate           bool        `json:"is_private"`
	CreatedAt           domain.Time `json:"created_at"`
	CreatedBy           int64       `json:"created_by"`
	UpdatedAt           domain.Time `json:"updated_at"`
	UpdatedBy           int64       `json:"updated_by"`
	URLs                urlsJSON    `json:"urls"`
}

// search is Kanka's search: the entities of every kind the caller may see whose name contains
// the term (case-insensitive; `%` and `_` are plain characters), paged by entity id, 10 a page
// by default. Its cost is the campaign's name shards (store/names.go), never its records.
func (h handlers) search(r *httpapi.Request) (httpapi.Reply, error) {
	term := strings.TrimSpace(r.PathValue("term"))
	if !utf8.ValidString(term) || strings.ContainsRune(term, 0) {
		return httpapi.Reply{}, apperr.Invalid("term", "The term must be valid UTF-8 text.")
	}
	if utf8.RuneCountInString(term) > MaxSearchTerm {
		return httpapi.Reply{}, apperr.Invalid("term", "The term must not be greater than 191 characters.")
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	if r.Param("limit") == "" && r.Param("per_page") == "" {
		page.Limit = SearchPageSize
	}
	res, err := h.st.Search(r.Context(), r.Access.CampaignID, term, r.Access.IsAdmin(), page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Page(res, page, func(e *domain.Entity) hitJSON {
		m, _ := domain.ModuleOf(e.Type)
		image, _, thumb, custom := r.ImageLinks(e.ImagePath, e.ImageURL)
		return hitJSON{ID: e.ChildID, EntityID: e.ID, Name: e.Name, Image: image, ImageThumb: thumb,
			HasCustomImage: custom, Type: e.Type, TypeID: m.ID, EntityType: e.Type, IsPrivate: e.IsPrivate,
			CreatedAt: domain.Time(e.CreatedAt), CreatedBy: e.CreatedBy, UpdatedAt: domain.Time(e.UpdatedAt),
			UpdatedBy: e.UpdatedBy, URLs: urlsJSON{API: r.AbsoluteURL(e.APIPath())}}
	}), nil
}
