// Package entities is Kanka's entities endpoint (DESIGN.md 9), read only:
// /api/1.0/campaigns/{campaign_id}/entities and entities/{entity_id}. Every calendar and
// location owns an entity; its item mirrors what this endpoint shows (store/entities.go).
package entities

import (
	"net/http"

	"github.com/lorekeep/lorekeep/shared/calendars/calstore"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/locations/locstore"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the routes.
func Register(api *httpapi.API, st Store) {
	h := handlers{st: st}
	api.Handle("GET", "/entities", h.list, listAhead)
	api.Handle("GET", "/entities/{entity_id}", h.show, httpapi.ReadAhead(store.ReadEntity, "entity_id", ""))
	api.Handle("GET", "/entities/{entity_id}/mentions", h.mentions, httpapi.ReadAhead(store.ReadEntity, "entity_id", ""))
	api.Handle("GET", "/search/{term}", h.search)
	api.Handle("GET", "/recovery", h.recovery)
	api.Handle("POST", "/recover", h.recover)
}

type handlers struct{ st Store }

// list is one page of the entities the caller may see: its range counter read ahead with the
// campaign access, then one Query.
func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	if reply, ok, err := r.Deletions(h.st, domain.GoneEntities, 0); ok {
		return reply, err
	}
	f, err := domain.ReadEntityFilter(r.Query())
	if err != nil {
		return httpapi.Reply{}, err
	}
	page, err := r.Page()
	if err != nil {
		return httpapi.Reply{}, err
	}
	res, err := h.st.ListEntities(r.Context(), r.Access.CampaignID, f, !r.Access.IsAdmin(), page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Page(res, page, renderer(r)), nil
}

// listAhead reads the counter of the range the list reads: a list of one kind reads that
// kind's records (store.ListEntities), any other the entities; one of no served kind nothing.
func listAhead(r *http.Request) []domain.Ref {
	f, err := domain.ReadEntityFilter(httpapi.QueryOf(r))
	if err != nil {
		return nil // the handler answers the 422 without reading
	}
	switch served := f.ServedTypes(); {
	case len(served) == 0:
		return nil
	case len(served) > 1:
		return []domain.Ref{{Read: store.ReadEntityList}}
	case served[0] == "calendar":
		return []domain.Ref{{Read: calstore.ReadCalendarList}}
	}
	return []domain.Ref{{Read: locstore.ReadLocationList}}
}

// show is one entity; a hidden one is a 404 like a missing one.
func (h handlers) show(r *httpapi.Request) (httpapi.Reply, error) {
	e, err := r.VisibleEntity(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.One(render(r, e)), nil
}
