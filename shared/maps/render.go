package maps

import (
	"encoding/json"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/related"
)

// mapJSON is a map as Kanka clients read it (MapResource).
type mapJSON struct {
	httpapi.OwnerJSON
	MapID      *int64          `json:"map_id"`
	LocationID *int64          `json:"location_id"`
	Width      *int64          `json:"width"`
	Height     *int64          `json:"height"`
	Grid       int64           `json:"grid"`
	IsReal     bool            `json:"is_real"`
	Config     json.RawMessage `json:"config"`
	MinZoom    int64           `json:"min_zoom"`
	MaxZoom    json.Number     `json:"max_zoom"`
	Initial    int64           `json:"initial_zoom"`
	CenterX    *json.Number    `json:"center_x"`
	CenterY    *json.Number    `json:"center_y"`
	// CenterMarkerID: null until markers are served (DESIGN 2.10).
	CenterMarkerID *int64 `json:"center_marker_id"`
	// Layers and Groups: Kanka embeds them in every map (Map::$apiWith); empty until they are
	// served (DESIGN 2.10).
	Layers          []any `json:"layers"`
	Groups          []any `json:"groups"`
	*related.Arrays       // ?related=1
}

// render shapes a map for the caller: a private parent or location shows as none to
// non-admins; zooms as Kanka answers them (domain.Map.Zooms).
func render(m *domain.Map, a domain.Access) mapJSON {
	parent, loc := m.ParentID, m.LocationID
	if !a.CanSee(true) {
		if m.ParentPrivate {
			parent = nil
		}
		if m.LocationPrivate {
			loc = nil
		}
	}
	j := mapJSON{OwnerJSON: httpapi.RenderOwner(m.Meta, m.Owner), MapID: parent, LocationID: loc, Grid: m.Grid,
		IsReal: m.IsReal, Config: json.RawMessage("null"), Layers: []any{}, Groups: []any{}}
	if m.Config != "" {
		j.Config = json.RawMessage(m.Config)
	}
	j.MinZoom, j.MaxZoom, j.Initial = m.Zooms()
	for _, c := range []struct {
		v  *int64
		to **json.Number
	}{{m.CenterX, &j.CenterX}, {m.CenterY, &j.CenterY}} {
		if c.v != nil {
			n := domain.DecimalNumber(*c.v, 3)
			*c.to = &n
		}
	}
	return j
}

func ownerOf(j *mapJSON) *httpapi.OwnerJSON { return &j.OwnerJSON }
