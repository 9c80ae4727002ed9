package tags

import (
	"slices"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// entityTagJSON is one tag of an entity as Kanka answers it (EntityTagResource). The row id is
// the tag id: an entity's tags are its record's `tags` (their links), not rows of their own.
type entityTagJSON struct {
	ID       int64 `json:"id"`
	EntityID int64 `json:"entity_id"`
	TagID    int64 `json:"tag_id"`
}

// registerEntityTags mounts entities/{entity_id}/entity_tags: list and show read the entity
// (read ahead: 1 round trip); create, update (PUT and PATCH, as Kanka's resource route:
// the row moves to the body's tag_id) and delete change its record's tags (store.ChangeEntityTag).
func registerEntityTags(api *httpapi.API, st Store) {
	const collection, item = "/entities/{entity_id}/entity_tags", "/entities/{entity_id}/entity_tags/{id}"
	ahead := httpapi.ReadAhead(store.ReadEntity, "entity_id", "")
	h := handlers{st: st}
	api.Handle("GET", collection, h.entityTags, ahead)
	api.Handle("POST", collection, h.addEntityTag, ahead)
	api.Handle("GET", item, h.entityTag, ahead)
	api.Handle("PUT", item, h.replaceEntityTag, ahead)
	api.Handle("PATCH", item, h.replaceEntityTag, ahead)
	api.Handle("DELETE", item, h.removeEntityTag, ahead)
}

// entityTagRows are the rows of e's tags a reader sees (admin: all; others: the public tags').
func entityTagRows(e *domain.Entity, admin bool) []entityTagJSON {
	rows := make([]entityTagJSON, 0, len(e.Tags))
	for _, t := range domain.VisibleTags(e.Tags, e.PrivateTags, admin) {
		rows = append(rows, entityTagJSON{ID: t, EntityID: e.ID, TagID: t})
	}
	slices.SortFunc(rows, func(a, b entityTagJSON) int { return int(a.ID - b.ID) })
	return rows
}

func (h handlers) entityTags(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	rows := entityTagRows(e, r.Access.IsAdmin()) // at most domain.MaxTags: one page
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res := domain.PageOf(rows, page, func(j *entityTagJSON) int64 { return j.ID })
	return httpapi.Many(res.Items, res.Total, res.Next, res.Cursors, page), nil
}

// visibleRow reads the entity of the path and the row {id}: one of its tags the caller sees
// (a hidden or absent one is a 404).
func (h handlers) visibleRow(r *httpapi.Request) (*domain.Entity, int64, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return nil, 0, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, 0, err
	}
	if !slices.Contains(domain.VisibleTags(e.Tags, e.PrivateTags, r.Access.IsAdmin()), id) {
		return nil, 0, apperr.ErrNotFound
	}
	return e, id, nil
}

func (h handlers) entityTag(r *httpapi.Request) (httpapi.Reply, error) {
	e, id, err := h.visibleRow(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(entityTagJSON{ID: id, EntityID: e.ID, TagID: id}), nil
}

func (h handlers) addEntityTag(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return h.putEntityTag(r, e, store.TagChange{})
}

// replaceEntityTag is Kanka's update of an entity tag (`$entityTag->update($request->all())`
// with StoreEntityTag's rules: tag_id required, a tag of the campaign): the row named by the
// path (a tag the caller sees on the entity, else 404) becomes the body's tag_id, with the
// checks of a POST (422 tag_id); the answer is the row under its new id, the tag id.
func (h handlers) replaceEntityTag(r *httpapi.Request) (httpapi.Reply, error) {
	e, id, err := h.visibleRow(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return h.putEntityTag(r, e, store.TagChange{Drop: id, MustHave: true})
}

// putEntityTag reads the body's tag_id (required) and writes it on e's record with change (a
// POST's none dropped, a PUT's row dropped in its place); the answer is the row of the tag.
func (h handlers) putEntityTag(r *httpapi.Request, e *domain.Entity, change store.TagChange) (httpapi.Reply, error) {
	in, err := r.Input()
	if err != nil {
		return httpapi.Reply{}, err
	}
	rd := domain.NewReader(in)
	f := rd.ID("tag_id")
	rd.Required("tag_id", f.Present())
	if err := rd.Err(); err != nil {
		return httpapi.Reply{}, err
	}
	change.Put, change.ByAdmin = f.Value, r.Access.IsAdmin()
	return r.Commit(func() error {
		_, err := h.st.ChangeEntityTag(r.Context(), e.CampaignID, e.ID, change)
		return err
	}, func() (httpapi.Reply, error) {
		return httpapi.One(entityTagJSON{ID: f.Value, EntityID: e.ID, TagID: f.Value}), nil
	})
}

func (h handlers) removeEntityTag(r *httpapi.Request) (httpapi.Reply, error) {
	e, id, err := h.visibleRow(r)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return r.Commit(func() error {
		_, err := h.st.ChangeEntityTag(r.Context(), e.CampaignID, e.ID, store.TagChange{Drop: id, ByAdmin: r.Access.IsAdmin()})
		return err
	}, func() (httpapi.Reply, error) { return httpapi.Deleted(id), nil })
}
