package maps

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Markers: Kanka's maps/{map}/map_markers. Every route reads the map of the path with the
// access (a map the caller may not see is a 404 for all of its markers); a marker is seen by
// its visibility (notes' rules) and, when it links a private entity, by admins only.

func registerMarkers(api *httpapi.API, st Store) {
	h := handlers{st: st}
	const collection = "/maps/{map_id}/map_markers"
	httpapi.MountList(api, collection, httpapi.List[domain.Marker, *domain.Map, markerJSON]{
		Parent: h.visibleMap, ParentID: func(m *domain.Map) int64 { return m.ID },
		Gone: domain.GoneMarkers, Tombstones: st, Filters: domain.FilterChildren,
		Read: func(r *httpapi.Request, m *domain.Map, f domain.Filter, page domain.PageRequest) (domain.Page[domain.Marker], error) {
			return st.ListMarkers(r.Context(), r.Access.CampaignID, m.ID, r.Access, f, page)
		},
		Rows: func(r *httpapi.Request, m *domain.Map, ms []domain.Marker) ([]markerJSON, error) {
			groups, err := h.visibleGroups(r, m.ID)
			if err != nil {
				return nil, err
			}
			return renderMarkers(r, st, groups, ms...)
		},
		Ahead: httpapi.ReadAhead(store.ReadMarkerList, "", "map_id"),
	})
	httpapi.Mount(api, collection, collection+"/{id}", httpapi.Resource[domain.Marker, *domain.Marker, *domain.Map]{
		Parent: h.visibleMap, Visible: h.visibleMarker,
		New:    func(_ *httpapi.Request, m *domain.Map) *domain.Marker { return &domain.Marker{MapID: m.ID} },
		Apply:  h.applyMarker,
		Create: st.CreateMarker, Update: st.UpdateMarker, Delete: st.DeleteMarker,
		Render: func(r *httpapi.Request, m *domain.Marker) (any, error) {
			groups, err := h.visibleGroups(r, m.MapID)
			if err != nil {
				return nil, err
			}
			out, err := renderMarkers(r, st, groups, *m)
			if err != nil {
				return nil, err
			}
			return out[0], nil
		},
		Item: httpapi.ReadAhead(store.ReadMarker, "id", "map_id"), Collection: httpapi.ReadAhead(store.ReadMarkerList, "", "map_id"),
	})
}

// visibleMap reads the map of the path; one the caller may not see is a 404.
func (h handlers) visibleMap(r *httpapi.Request) (*domain.Map, error) {
	mid, err := r.PathID("map_id")
	if err != nil {
		return nil, err
	}
	m, err := h.st.GetMap(r.Context(), r.Access.CampaignID, mid)
	if err == nil && !r.Access.CanSee(m.IsPrivate) {
		err = apperr.ErrNotFound
	}
	return m, err
}

// visibleMarker reads the map and the marker of the path in one round trip: both must be
// visible to the caller.
func (h handlers) visibleMarker(r *httpapi.Request) (*domain.Map, *domain.Marker, error) {
	mid, err := r.PathID("map_id")
	if err != nil {
		return nil, nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, nil, err
	}
	m, mk, err := h.st.GetMapAndMarker(r.Context(), r.Access.CampaignID, mid, id)
	if err == nil && (!r.Access.CanSee(m.IsPrivate) || !r.Access.CanSee(mk.EntityPrivate) || !r.Access.CanSeeVisibility(mk.Visibility, mk.CreatedBy)) {
		err = apperr.ErrNotFound
	}
	return m, mk, err
}

// applyMarker merges the body into next and checks its entity: an entity of the campaign the
// writer may see when it is new; a kept one is read again for the privacy that places the
// marker, and cleared when it is gone (Kanka deletes the markers of a deleted entity; Lorekeep
// keeps the marker, unlinked).
func (h handlers) applyMarker(r *httpapi.Request, in domain.Input, m *domain.Map, prev, next *domain.Marker) error {
	if err := next.Apply(in, m.IsReal); err != nil {
		return err
	}
	if g := next.GroupID; g != nil && (prev == nil || prev.GroupID == nil || *prev.GroupID != *g) {
		groups, err := h.visibleGroups(r, m.ID)
		if err != nil {
			return err
		}
		if !groups[*g] { // a group deleted after this check leaves an id answered null
			return apperr.Invalid("group_id", "The selected group id is invalid.")
		}
	}
	if next.EntityID == nil {
		next.EntityPrivate = false
		return nil
	}
	kept := prev != nil && prev.EntityID != nil && *prev.EntityID == *next.EntityID
	e, err := h.st.GetEntity(r.Context(), r.Access.CampaignID, *next.EntityID)
	switch {
	case errors.Is(err, apperr.ErrNotFound) && kept:
		next.EntityID, next.EntityPrivate = nil, false
		if next.Name == "" {
			return apperr.Invalid("name", "The name field is required when entity id is not present.")
		}
		return nil
	case errors.Is(err, apperr.ErrNotFound) || (err == nil && !kept && r.Access.SeeEntity(e) != nil):
		return apperr.Invalid("entity_id", "The selected entity id is invalid.")
	case err != nil:
		return err
	}
	next.EntityPrivate = e.IsPrivate
	return nil
}

// visibleGroups are the ids of the map's groups the caller may see (its pack is read ahead on
// marker routes): a marker's group_id is answered only when it names one.
func (h handlers) visibleGroups(r *httpapi.Request, mid int64) (map[int64]bool, error) {
	g, _, err := h.st.GetMapPacks(r.Context(), r.Access.CampaignID, mid)
	if err != nil {
		return nil, err
	}
	out := map[int64]bool{}
	for _, x := range g.Items {
		out[x.ID] = r.Access.CanSeeVisibility(x.Visibility, x.CreatedBy)
	}
	return out, nil
}

// markerJSON is a marker as Kanka clients read it (MapMarkerResource): coordinates as strings
// with 3 decimals and the icon as a string, as Kanka's columns answer them.
type markerJSON struct {
	ID           int64           `json:"id"`
	MapID        int64           `json:"map_id"`
	Name         string          `json:"name"`
	EntityID     *int64          `json:"entity_id"`
	GroupID      *int64          `json:"group_id"`
	Latitude     string          `json:"latitude"`
	Longitude    string          `json:"longitude"`
	ShapeID      int64           `json:"shape_id"`
	Icon         string          `json:"icon"`
	CustomShape  *string         `json:"custom_shape"`
	PolygonStyle json.RawMessage `json:"polygon_style"`
	Colour       *string         `json:"colour"`
	FontColour   *string         `json:"font_colour"`
	Opacity      int64           `json:"opacity"`
	SizeID       int64           `json:"size_id"`
	PinSize      *int64          `json:"pin_size"`
	CircleRadius *int64          `json:"circle_radius"`
	CustomIcon   *string         `json:"custom_icon"`
	IsDraggable  bool            `json:"is_draggable"`
	IsPopupless  bool            `json:"is_popupless"`
	Entry        *string         `json:"entry"`
	EntryParsed  *string         `json:"entry_parsed"`
	Visibility   string          `json:"visibility"`
	VisibilityID int             `json:"visibility_id"`
	IsPrivate    bool            `json:"is_private"`
	httpapi.AuditJSON
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// renderMarkers shapes markers for the caller, their entries' mentions read in one batch.
func renderMarkers(r *httpapi.Request, st httpapi.EntityBatchReader, groups map[int64]bool, ms ...domain.Marker) ([]markerJSON, error) {
	entries := make([]httpapi.Entry, len(ms))
	for i, m := range ms {
		entries[i] = httpapi.Entry{Kind: "map_marker", ID: m.ID, Text: m.Entry}
	}
	parsed, err := r.ParseEntries(st, entries)
	if err != nil {
		return nil, err
	}
	out := make([]markerJSON, len(ms))
	for i, m := range ms {
		j := markerJSON{ID: m.ID, MapID: m.MapID, Name: m.Name, EntityID: m.EntityID,
			Latitude: domain.DecimalText(m.Latitude, 3, true), Longitude: domain.DecimalText(m.Longitude, 3, true),
			ShapeID: m.ShapeID, Icon: strconv.FormatInt(m.Icon, 10), CustomShape: orNull(m.CustomShape),
			PolygonStyle: json.RawMessage("null"), Colour: orNull(m.Colour), FontColour: orNull(m.FontColour),
			Opacity: m.Opacity, SizeID: m.SizeID, PinSize: m.PinSize, CircleRadius: m.CircleRadius,
			CustomIcon: orNull(m.CustomIcon), IsDraggable: m.IsDraggable, IsPopupless: m.IsPopupless,
			Entry: orNull(m.Entry), Visibility: string(m.Visibility), VisibilityID: m.Visibility.ID(),
			AuditJSON: httpapi.RenderAudit(m.Meta)}
		if m.GroupID != nil && groups[*m.GroupID] {
			j.GroupID = m.GroupID
		}
		if m.PolygonStyle != "" {
			j.PolygonStyle = json.RawMessage(m.PolygonStyle)
		}
		if m.Entry != "" {
			j.EntryParsed = &parsed[i]
		}
		out[i] = j
	}
	return out, nil
}
