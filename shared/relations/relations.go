// Package relations is the relations family's HTTP surface: an entity's relations under
// /api/1.0/campaigns/{campaign_id}/entities/{entity_id}/relations (Kanka's CRUD, with targets[]
// and two_way mirrors) and the campaign-wide list /api/1.0/campaigns/{campaign_id}/relations.
// Rules live in domain (relation.go), storage in relstore (over the kernel's relation items).
package relations

import (
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/relations/relstore"
	"github.com/lorekeep/lorekeep/shared/relations/relwire"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts the family's routes.
func Register(api *httpapi.API, kernel *store.Store) {
	st := relstore.New(kernel)
	h := handlers{st: st}
	const collection = "/entities/{entity_id}/relations"
	httpapi.MountList(api, collection, httpapi.List[domain.Relation, *domain.Entity, relwire.Relation]{
		Parent:   func(r *httpapi.Request) (*domain.Entity, error) { return r.VisibleEntity(st) },
		ParentID: func(e *domain.Entity) int64 { return e.ID }, Gone: domain.GoneRelations, Tombstones: st,
		Filters: domain.FilterChildren,
		Read: func(r *httpapi.Request, e *domain.Entity, f domain.Filter, page domain.PageRequest) (domain.Page[domain.Relation], error) {
			return st.ListRelations(r.Context(), r.Access.CampaignID, e.ID, r.Access, f, page)
		},
		Render: renderRelation,
		Ahead:  httpapi.ReadAhead(store.ReadRelationList, "", "entity_id"),
	})
	httpapi.MountList(api, "/relations", httpapi.List[domain.Relation, httpapi.None, relwire.Relation]{
		Parent: httpapi.NoParent, ParentID: func(httpapi.None) int64 { return 0 },
		Gone: domain.GoneCampaignRelations, Tombstones: st, Filters: domain.FilterChildren,
		Read: func(r *httpapi.Request, _ httpapi.None, f domain.Filter, page domain.PageRequest) (domain.Page[domain.Relation], error) {
			return st.ListCampaignRelations(r.Context(), r.Access.CampaignID, r.Access, f, page)
		},
		Render: renderRelation,
		Ahead:  httpapi.ReadAhead(store.ReadCampaignRelationList, "", ""),
	})
	httpapi.Mount(api, collection, collection+"/{id}", httpapi.Resource[domain.Relation, *domain.Relation, *domain.Entity]{
		Parent: func(r *httpapi.Request) (*domain.Entity, error) { return r.VisibleEntity(st) },
		Item:   httpapi.ReadAhead(store.ReadRelation, "id", "entity_id"), Collection: httpapi.ReadAhead(store.ReadEntity, "entity_id", ""),
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

func renderRelation(rel *domain.Relation) relwire.Relation { return relwire.Render(*rel) }
