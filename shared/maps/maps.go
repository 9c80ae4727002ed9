// Package maps is the maps family's HTTP surface: Kanka's map module under
// /api/1.0/campaigns/{campaign_id}/maps. Maps own an entity, nest under a parent map (`map_id`)
// like locations and name a location (`location_id`); rules live in domain (map.go), storage
// in mapstore.
package maps

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/maps/mapstore"
	"github.com/lorekeep/lorekeep/shared/module"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Store is the storage the maps family uses (mapstore serves it).
type Store interface {
	httpapi.GoneReader
	embeds.Store
	httpapi.EntityReader
	GetMap(ctx context.Context, cid, id int64) (*domain.Map, error)
	ListMaps(ctx context.Context, cid int64, f domain.Filter, hidePrivate bool, p domain.PageRequest) (domain.Page[domain.Map], error)
	CreateMap(ctx context.Context, m *domain.Map) error
	UpdateMap(ctx context.Context, prev, next *domain.Map) error
	DeleteMap(ctx context.Context, m *domain.Map) error
	ResumeMapDelete(ctx context.Context, cid, id int64) (bool, error)
	MapAncestry(ctx context.Context, cid, id int64, max int) ([]domain.AncestorLink, error)
	GetLocation(ctx context.Context, cid, id int64) (*domain.Location, error)
	GetMapAndMarker(ctx context.Context, cid, mid, id int64) (*domain.Map, *domain.Marker, error)
	ListMarkers(ctx context.Context, cid, mid int64, a domain.Access, f domain.Filter, p domain.PageRequest) (domain.Page[domain.Marker], error)
	CreateMarker(ctx context.Context, m *domain.Marker) error
	UpdateMarker(ctx context.Context, prev, next *domain.Marker) error
	DeleteMarker(ctx context.Context, m *domain.Marker) error
	GetMapPacks(ctx context.Context, cid, mid int64) (*domain.MapPack[domain.MapGroup], *domain.MapPack[domain.MapLayer], error)
	GetPacksOf(ctx context.Context, cid int64, mids []int64) (map[int64]domain.MapPacks, error)
	WriteMapGroups(ctx context.Context, cid, mid int64, change func(*domain.MapPack[domain.MapGroup], time.Time) error) error
	WriteMapLayers(ctx context.Context, cid, mid int64, change func(*domain.MapPack[domain.MapLayer], time.Time) error) error
}

// Register mounts the family's routes.
func Register(api *httpapi.API, kernel *store.Store) {
	st := mapstore.New(kernel)
	h := handlers{st: st}
	module.Mount(api, st, module.Routes[domain.Map, *domain.Map, mapJSON]{
		Type: "map", Collection: "/maps", Gone: domain.GoneMaps,
		List: st.ListMaps, ListAhead: httpapi.ReadAhead(store.ReadMapList, "", ""),
		Subjects: embeds.Maps,
		// Every answer embeds the map's groups and layers the reader may see: a show's were read
		// ahead with the access, a page's are one batch.
		Row: func(r *httpapi.Request, ms []domain.Map) (func(*domain.Map) mapJSON, error) {
			packs, err := h.packsOf(r, ms)
			if err != nil {
				return nil, err
			}
			rows := make(map[int64]mapJSON, len(ms))
			for i := range ms {
				j := render(r, &ms[i])
				if err := embedPacks(r, st, &j, packs[ms[i].ID]); err != nil {
					return nil, err
				}
				rows[ms[i].ID] = j
			}
			return func(m *domain.Map) mapJSON { return rows[m.ID] }, nil
		},
		Arrays: func(j *mapJSON) **embeds.Arrays { return &j.Arrays }, Owner: ownerOf,
		CRUD: httpapi.Resource[domain.Map, *domain.Map, httpapi.None]{
			Visible: h.visible, Apply: h.apply,
			Create: st.CreateMap, Update: st.UpdateMap, Delete: st.DeleteMap,
			Item: httpapi.ReadAhead(store.ReadMap, "id", ""), Resume: st.ResumeMapDelete,
		},
	})
	registerMarkers(api, st)
	registerPacks(api, st)
}

type handlers struct{ st Store }

// packsOf reads the groups and layers of maps: one map's (a show, read ahead with the access),
// or a page's in one batch.
func (h handlers) packsOf(r *httpapi.Request, ms []domain.Map) (map[int64]domain.MapPacks, error) {
	if len(ms) == 1 {
		g, l, err := h.st.GetMapPacks(r.Context(), r.Access.CampaignID, ms[0].ID)
		return map[int64]domain.MapPacks{ms[0].ID: {Groups: g, Layers: l}}, err
	}
	mids := make([]int64, len(ms))
	for i := range ms {
		mids[i] = ms[i].ID
	}
	return h.st.GetPacksOf(r.Context(), r.Access.CampaignID, mids)
}

// visible reads a map the caller may see; a hidden one is a 404 like a missing one.
func (h handlers) visible(r *httpapi.Request) (httpapi.None, *domain.Map, error) {
	id, err := r.PathID("id")
	if err != nil {
		return httpapi.None{}, nil, err
	}
	m, err := h.st.GetMap(r.Context(), r.Access.CampaignID, id)
	if err == nil && !r.Access.CanSee(m.IsPrivate) {
		err = apperr.ErrNotFound
	}
	return httpapi.None{}, m, err
}

// apply merges the body into next and checks the parent map (visible, no cycle, not too deep)
// and the location (a location of the campaign the writer may see).
func (h handlers) apply(r *httpapi.Request, in domain.Input, _ httpapi.None, prev, next *domain.Map) error {
	in, err := h.parentByEntity(r, in)
	if err != nil {
		return err
	}
	if err := next.Apply(in, r.Access); err != nil {
		return err
	}
	if err := httpapi.ApplyImage(r, in, &next.Owner); err != nil {
		return err
	}
	hidden := !r.Access.CanSee(true)
	if prev != nil && prev.ParentID != nil && next.ParentID == nil && prev.ParentPrivate && hidden {
		next.ParentID = prev.ParentID // a hidden parent sent back as none stays (as locations)
	}
	if prev != nil && prev.LocationID != nil && next.LocationID == nil && prev.LocationPrivate && hidden {
		next.LocationID = prev.LocationID // likewise a hidden location
	}
	if err := h.location(r, prev, next); err != nil {
		return err
	}
	if err := h.centre(r, prev, next); err != nil {
		return err
	}
	if next.ParentID == nil || (prev != nil && prev.ParentID != nil && *prev.ParentID == *next.ParentID) {
		return nil
	}
	depth := domain.MaxLocationDepth
	if prev == nil {
		depth = 1
	}
	chain, err := h.st.MapAncestry(r.Context(), next.CampaignID, *next.ParentID, depth)
	if err == nil && len(chain) == 0 && in["parent_id"] != nil && in["map_id"] == nil {
		return apperr.Invalid("parent_id", "The selected parent id is invalid.")
	}
	if err != nil {
		return err
	}
	next.Ancestry = chain
	return domain.CheckMapParent(next.ID, chain, r.Access)
}

// parentByEntity reads Kanka's current parent_id (the parent map's entity id) when map_id is
// not sent: the body then carries the map id it names (a map entity the caller may see, else a
// 422 naming parent_id; null detaches).
func (h handlers) parentByEntity(r *httpapi.Request, in domain.Input) (domain.Input, error) {
	if _, ok := in["map_id"]; ok {
		return in, nil
	}
	if _, ok := in["parent_id"]; !ok {
		return in, nil
	}
	rd := domain.NewReader(in)
	f := rd.ID("parent_id")
	if err := rd.Err(); err != nil {
		return nil, err
	}
	out := make(domain.Input, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	out["map_id"] = nil
	if f.Present() {
		e, err := h.st.GetEntity(r.Context(), r.Access.CampaignID, f.Value)
		if errors.Is(err, apperr.ErrNotFound) || (err == nil && (e.Type != "map" || r.Access.SeeEntity(e) != nil)) {
			return nil, apperr.Invalid("parent_id", "The selected parent id is invalid.")
		}
		if err != nil {
			return nil, err
		}
		out["map_id"] = json.Number(strconv.FormatInt(e.ChildID, 10))
	}
	return out, nil
}

// location reads the map's location (one GetItem) for its privacy, which places the public
// copy and is held in the write's transaction. A new location must be one the writer may see;
// a kept one that is gone is cleared, as Kanka's foreign key sets it null.
func (h handlers) location(r *httpapi.Request, prev, next *domain.Map) error {
	if next.LocationID == nil {
		return nil
	}
	kept := prev != nil && prev.LocationID != nil && *prev.LocationID == *next.LocationID
	l, err := h.st.GetLocation(r.Context(), next.CampaignID, *next.LocationID)
	switch {
	case errors.Is(err, apperr.ErrNotFound) && kept:
		next.LocationID, next.LocationPrivate = nil, false
		return nil
	case errors.Is(err, apperr.ErrNotFound) || (err == nil && !kept && !r.Access.CanSee(l.IsPrivate)):
		return apperr.Invalid("location_id", "The selected location id is invalid.")
	case err != nil:
		return err
	}
	next.LocationPrivate = l.IsPrivate
	return nil
}

// centre reads a centre marker named anew (one round trip): a marker of this map the writer
// may see, else a 422 naming center_marker_id; its placement is copied onto the map and the
// write holds the marker's version.
func (h handlers) centre(r *httpapi.Request, prev, next *domain.Map) error {
	c := next.Centre
	if c == nil || (prev != nil && prev.Centre != nil && prev.Centre.ID == c.ID) {
		return nil
	}
	_, mk, err := h.st.GetMapAndMarker(r.Context(), next.CampaignID, next.ID, c.ID)
	if errors.Is(err, apperr.ErrNotFound) || (err == nil && !domain.CentreOf(mk).SeenBy(r.Access)) {
		return apperr.Invalid("center_marker_id", "The selected center marker id is invalid.")
	}
	if err != nil {
		return err
	}
	next.Centre = domain.CentreOf(mk)
	return nil
}
