// Package entities is Kanka's entities endpoint (DESIGN.md 9), read only:
// /api/1.0/campaigns/{campaign_id}/entities and entities/{entity_id}. Every calendar and
// location owns an entity; its item mirrors what this endpoint shows (store/entities.go).
package entities

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// Register mounts the routes.
func Register(api *httpapi.API, st Store) {
	h := handlers{st: st}
	api.Handle("GET", "/entities", h.list, httpapi.ReadAhead(domain.ReadEntityList, "", ""))
	api.Handle("GET", "/entities/{entity_id}", h.show, httpapi.ReadAhead(domain.ReadEntity, "entity_id", ""))
	api.Handle("GET", "/entities/{entity_id}/mentions", h.mentions, httpapi.ReadAhead(domain.ReadEntity, "entity_id", ""))
	api.Handle("GET", "/search/{term}", h.search)
}

type handlers struct{ st Store }

// list is one page of the entities the caller may see: its range counter read ahead with the
// campaign access, then one Query.
func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	f, err := domain.ReadEntityFilter(r.Query())
	if err != nil {
		return httpapi.Reply{}, err
	}
	page := r.Page()
	res, err := h.st.ListEntities(r.Context(), r.Access.CampaignID, f, !r.Access.IsAdmin(), page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Page(res, page, func(e *domain.Entity) entityJSON { return render(r, e) }), nil
}

// show is one entity; a hidden one is a 404 like a missing one.
func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(render(r, e)), nil
}
