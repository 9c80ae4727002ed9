package maps

import (
	"encoding/json"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
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
	// CenterMarkerID: null for a reader who may not see that marker.
	CenterMarkerID *int64 `json:"center_marker_id"`
	// Layers and Groups: Kanka embeds them in every map (Map::$apiWith); empty until they are
	// served (DESIGN 2.10).
	Layers         []any `json:"layers"`
	Groups         []any `json:"groups"`
	*embeds.Arrays       // ?related=1
}

// render shapes a map for the caller: a private parent or location shows as none to
// non-admins; zooms as Kanka answers them (domain.Map.Zooms).
func render(r *httpapi.Request, m *domain.Map) mapJSON {
	parent, loc := m.ParentID, m.LocationID
	if !r.Access.CanSee(true) {
		if m.ParentPrivate {
			parent = nil
		}
		if m.LocationPrivate {
			loc = nil
		}
	}
	j := mapJSON{OwnerJSON: httpapi.RenderOwner(r, m.Meta, m.Owner), MapID: parent, LocationID: loc, Grid: m.Grid,
		IsReal: m.IsReal, Config: json.RawMessage("null"), Layers: []any{}, Groups: []any{}}
	if m.Config != "" {
		j.Config = json.RawMessage(m.Config)
	}
	if m.Centre != nil && m.Centre.SeenBy(r.Access) {
		id := m.Centre.ID
		j.CenterMarkerID = &id
	}
	j.Width, j.Height = imageSize(m.ImagePath)
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

// imageSize is the stored picture's pixel size (Kanka's width and height), null without one.
func imageSize(path string) (w, h *int64) {
	if x, y, ok := domain.ImageSize(path); ok {
		return &x, &y
	}
	return nil, nil
}

func ownerOf(j *mapJSON) *httpapi.OwnerJSON { return &j.OwnerJSON }

// groupJSON is a group as Kanka clients read it (MapGroupResource), with its parent (which
// Kanka takes but does not answer).
type groupJSON struct {
	ID           int64  `json:"id"`
	MapID        int64  `json:"map_id"`
	ParentID     *int64 `json:"parent_id"`
	Name         string `json:"name"`
	Position     int64  `json:"position"`
	IsShown      bool   `json:"is_shown"`
	Visibility   string `json:"visibility"`
	VisibilityID int    `json:"visibility_id"`
	IsPrivate    bool   `json:"is_private"`
	httpapi.AuditJSON
}

func entryAudit(e domain.PackEntry) httpapi.AuditJSON {
	return httpapi.RenderAudit(domain.Meta{CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, CreatedBy: e.CreatedBy, UpdatedBy: e.UpdatedBy})
}

// renderGroups shapes groups; a parent the caller may not see is answered null.
func renderGroups(r *httpapi.Request, mid int64, gs []domain.MapGroup, all ...domain.MapGroup) []any {
	seen := map[int64]bool{}
	for _, g := range all {
		seen[g.ID] = r.Access.CanSeeVisibility(g.Visibility, g.CreatedBy)
	}
	out := make([]any, len(gs))
	for i, g := range gs {
		parent := g.ParentID
		if parent != nil && len(all) > 0 && !seen[*parent] {
			parent = nil
		}
		out[i] = groupJSON{ID: g.ID, MapID: mid, ParentID: parent, Name: g.Name, Position: g.Position, IsShown: g.IsShown,
			Visibility: string(g.Visibility), VisibilityID: g.Visibility.ID(), AuditJSON: entryAudit(g.PackEntry)}
	}
	return out
}

// layerJSON is a layer as Kanka clients read it (MapLayerResource): type_id as the integer
// stored (Kanka casts it to a bool), its picture in the image fields as a record's.
type layerJSON struct {
	ID             int64   `json:"id"`
	MapID          int64   `json:"map_id"`
	Name           string  `json:"name"`
	Position       int64   `json:"position"`
	TypeID         int64   `json:"type_id"`
	Type           string  `json:"type"`
	Width          *int64  `json:"width"`
	Height         *int64  `json:"height"`
	Entry          *string `json:"entry"`
	EntryParsed    *string `json:"entry_parsed"`
	Image          string  `json:"image"`
	ImageFull      string  `json:"image_full"`
	ImageThumb     string  `json:"image_thumb"`
	HasCustomImage bool    `json:"has_custom_image"`
	Visibility     string  `json:"visibility"`
	VisibilityID   int     `json:"visibility_id"`
	IsPrivate      bool    `json:"is_private"`
	httpapi.AuditJSON
}

// renderLayers shapes layers, their captions' mentions read in one batch.
func renderLayers(r *httpapi.Request, st httpapi.EntityBatchReader, mid int64, ls []domain.MapLayer) ([]any, error) {
	entries := make([]httpapi.Entry, len(ls))
	for i, l := range ls {
		entries[i] = httpapi.Entry{Kind: "map_layer", ID: l.ID, Text: l.Entry}
	}
	parsed, err := r.ParseEntries(st, entries)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(ls))
	for i, l := range ls {
		j := layerJSON{ID: l.ID, MapID: mid, Name: l.Name, Position: l.Position, TypeID: l.TypeID, Type: domain.LayerTypes[l.TypeID],
			Entry: orNull(l.Entry), Visibility: string(l.Visibility), VisibilityID: l.Visibility.ID(), AuditJSON: entryAudit(l.PackEntry)}
		j.Image, j.ImageFull, j.ImageThumb, j.HasCustomImage = r.ImageLinks(l.ImagePath, l.ImageURL)
		j.Width, j.Height = imageSize(l.ImagePath)
		if l.Entry != "" {
			j.EntryParsed = &parsed[i]
		}
		out[i] = j
	}
	return out, nil
}

// embedPacks fills a map answer's layers and groups: what the caller may see.
func embedPacks(r *httpapi.Request, st httpapi.EntityBatchReader, j *mapJSON, p domain.MapPacks) error {
	gs := visibleEntries(r, p.Groups.Items, func(g *domain.MapGroup) *domain.PackEntry { return &g.PackEntry })
	j.Groups = renderGroups(r, j.ID, gs, p.Groups.Items...)
	ls, err := renderLayers(r, st, j.ID, visibleEntries(r, p.Layers.Items, func(l *domain.MapLayer) *domain.PackEntry { return &l.PackEntry }))
	j.Layers = ls
	return err
}
