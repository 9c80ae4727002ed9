// Package relations is the relations family's HTTP surface: an entity's relations under
// /api/1.0/campaigns/{campaign_id}/entities/{entity_id}/relations (Kanka's CRUD, with targets[]
// and two_way mirrors) and the campaign-wide list /api/1.0/campaigns/{campaign_id}/relations.
// Rules live in domain (relation.go), storage in store (relations.go).
package relations

import (
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/relations/relwire"
)

// Register mounts the family's routes.
func Register(api *httpapi.API, st Store) {
	h := handlers{st: st}
	const collection = "/entities/{entity_id}/relations"
	api.Handle("GET", collection, h.list, httpapi.ReadAhead(domain.ReadRelationList, "", "entity_id"))
	api.Handle("GET", "/relations", h.campaignList, httpapi.ReadAhead(domain.ReadCampaignRelationList, "", ""))
	httpapi.Mount(api, collection, collection+"/{id}", httpapi.Kind[domain.Relation, *domain.Relation, *domain.Entity]{
		Parent: func(r *httpapi.Request) (*domain.Entity, error) { return r.VisibleEntity(st) },
		Item:   httpapi.ReadAhead(domain.ReadRelation, "id", "entity_id"), Collection: httpapi.ReadAhead(domain.ReadEntity, "entity_id", ""),
		Visible: h.visible,
		New: func(_ *httpapi.Request, e *domain.Entity) *domain.Relation {
			return &domain.Relation{OwnerID: e.ID, OwnerPrivate: e.LinksPrivate}
		},
		Apply:  h.apply,
		Create: st.CreateRelation, Update: st.UpdateRelation, Delete: st.DeleteRelation,
		Render: func(_ *httpapi.Request, rel *domain.Relation) (any, error) {
			if rel.ListAnswer { // targets[]: every relation created, as Kanka answers today
				return relwire.RenderAll(rel.Created), nil
			}
			return relwire.Render(*rel), nil
		},
	})
}

type handlers struct{ st Store }

// visible reads the relation of the path and its owner: both must be visible to the caller,
// the relation by its visibility and by its target (a relation to an entity the caller may
// not see is a 404, as Kanka's has('target')).
func (h handlers) visible(r *httpapi.Request) (*domain.Entity, *domain.Relation, error) {
	e, rel, err := httpapi.EntityRecord(r, h.st.GetRelationAndEntity, r.Access.CanSeeRelation)
	if err == nil && r.Method == "DELETE" {
		rel.DeleteMirrored = r.Param("delete_mirrored") == "1" || r.Param("delete_mirrored") == "true"
	}
	return e, rel, err
}

// apply merges the body and reads the targets' privacy: every target must be an entity the
// caller may see (422 naming the field otherwise), and places the relation.
func (h handlers) apply(r *httpapi.Request, in domain.Input, owner *domain.Entity, prev, next *domain.Relation) error {
	next.OwnerPrivate = owner.LinksPrivate
	if err := next.Apply(in, prev == nil); err != nil {
		return err
	}
	targets := next.AllTargets()
	if prev != nil {
		targets = []int64{next.TargetID} // re-read: its privacy places the relation
	}
	found, err := h.st.GetEntities(r.Context(), r.Access.CampaignID, targets)
	if err != nil {
		return err
	}
	next.TargetPrivacy = map[int64]bool{}
	for i, t := range targets {
		e := found[t]
		if e == nil || r.Access.SeeEntity(e) != nil {
			field := "target_id"
			if next.ListAnswer {
				field = "targets." + strconv.Itoa(i)
			}
			return apperr.Invalid(field, "The selected "+domain.Label(field)+" is invalid.")
		}
		next.TargetPrivacy[t] = e.LinksPrivate
	}
	next.TargetPrivate = next.TargetPrivacy[next.TargetID]
	return nil
}

func (h handlers) list(r *httpapi.Request) (httpapi.Reply, error) {
	e, f, page, err := r.EntityList(h.st)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if reply, ok, err := r.Deletions(h.st, domain.GoneRelations, e.ID); ok {
		return reply, err
	}
	res, err := h.st.ListRelations(r.Context(), r.Access.CampaignID, e.ID, r.Access, f, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Many(relwire.RenderAll(res.Items), res.Total, res.Next, res.Cursors, page), nil
}

func (h handlers) campaignList(r *httpapi.Request) (httpapi.Reply, error) {
	f, err := r.Filter(domain.FilterChildren)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if reply, ok, err := r.Deletions(h.st, domain.GoneCampaignRelations, 0); ok {
		return reply, err
	}
	page := r.Page()
	res, err := h.st.ListCampaignRelations(r.Context(), r.Access.CampaignID, r.Access, f, page)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Many(relwire.RenderAll(res.Items), res.Total, res.Next, res.Cursors, page), nil
}
