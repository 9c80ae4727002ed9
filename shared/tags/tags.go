// Package tags is the tags family's HTTP surface: Kanka's tag module under
// /api/1.0/campaigns/{campaign_id}/tags. Tags own an entity and nest under a parent tag
// (`tag_id`) like locations; rules live in domain (tag.go), storage in tagstore (the
// member packs and tag links are the kernel's).
package tags

import (
	"context"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/module"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/tags/tagstore"
)

// Store is the storage the tags family uses (tagstore serves it).
type Store interface {
	httpapi.GoneReader
	embeds.Store
	httpapi.EntityReader
	GetTag(ctx context.Context, cid, id int64) (*domain.Tag, error)
	ListTags(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Tag], error)
	CreateTag(ctx context.Context, t *domain.Tag) error
	UpdateTag(ctx context.Context, prev, next *domain.Tag) error
	DeleteTag(ctx context.Context, t *domain.Tag) error
	ResumeTagDelete(ctx context.Context, cid, id int64) (bool, error)
	TagAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error)
	TagMembers(ctx context.Context, cid int64, tags []int64, admin bool) (map[int64]domain.TagMembers, error)
	ChangeEntityTag(ctx context.Context, cid, eid int64, c store.TagChange) (bool, error)
}

// Register mounts the family's routes.
func Register(api *httpapi.API, kernel *store.Store) {
	st := tagstore.New(kernel)
	h := handlers{st: st}
	module.Mount(api, st, module.Routes[domain.Tag, *domain.Tag, tagJSON]{
		Type: "tag", Collection: "/tags", Gone: domain.GoneTags,
		List: st.ListTags, ListAhead: httpapi.ReadAhead(tagstore.ReadTagList, "", ""),
		Subjects: embeds.Tags,
		// Every row (a list page's, a show's, a write's reply) answers its members: the page's
		// tags' packs in one read (DESIGN 3.3).
		Row: func(r *httpapi.Request, page []domain.Tag) (func(*domain.Tag) tagJSON, error) {
			ids := make([]int64, len(page))
			for i := range page {
				ids[i] = page[i].ID
			}
			members, err := st.TagMembers(r.Context(), r.Access.CampaignID, ids, r.Access.IsAdmin())
			if err != nil {
				return nil, err
			}
			return func(t *domain.Tag) tagJSON {
				j := render(r, t, r.Access)
				m := members[t.ID]
				if m.Entities == nil {
					m.Entities = []int64{}
				}
				j.Entities, j.EntitiesCount = m.Entities, m.Count
				return j
			}, nil
		},
		Arrays: func(j *tagJSON) **embeds.Arrays { return &j.Arrays }, Owner: ownerOf,
		CRUD: httpapi.Resource[domain.Tag, *domain.Tag, httpapi.None]{
			Visible: h.visible, Apply: h.apply,
			Create: st.CreateTag, Update: st.UpdateTag, Delete: st.DeleteTag,
			Item: httpapi.ReadAhead(tagstore.ReadTag, "id", ""), Resume: st.ResumeTagDelete,
		},
	})
	registerEntityTags(api, st)
}

type handlers struct{ st Store }

// visible reads a tag the caller may see; a hidden one is a 404 like a missing one.
func (h handlers) visible(r *httpapi.Request) (httpapi.None, *domain.Tag, error) {
	id, err := r.PathID("id")
	if err != nil {
		return httpapi.None{}, nil, err
	}
	t, err := h.st.GetTag(r.Context(), r.Access.CampaignID, id)
	if err == nil && !r.Access.CanSee(t.IsPrivate) {
		err = apperr.ErrNotFound
	}
	return httpapi.None{}, t, err
}

// apply merges the body into next and checks the parent tag: visible, no cycle, not too deep.
func (h handlers) apply(r *httpapi.Request, in domain.Input, _ httpapi.None, prev, next *domain.Tag) error {
	if err := next.Apply(in, r.Access); err != nil {
		return err
	}
	if prev != nil && prev.ParentID != nil && next.ParentID == nil && prev.ParentPrivate && !r.Access.CanSee(true) {
		next.ParentID = prev.ParentID // a hidden parent sent back as none stays (as locations)
	}
	if next.ParentID == nil || (prev != nil && prev.ParentID != nil && *prev.ParentID == *next.ParentID) {
		return nil
	}
	depth := domain.MaxLocationDepth
	if prev == nil {
		depth = 1
	}
	chain, err := h.st.TagAncestry(r.Context(), next.CampaignID, *next.ParentID, depth)
	if err != nil {
		return err
	}
	next.Ancestry = chain
	return domain.CheckTagParent(next.ID, chain, r.Access)
}
