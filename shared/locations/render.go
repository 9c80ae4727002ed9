package locations

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
)

// locationJSON is a location as Kanka clients read it.
type locationJSON struct {
	httpapi.OwnerJSON
	LocationID       *int64 `json:"location_id"`
	ParentLocationID *int64 `json:"parent_location_id"`
	Map              string `json:"map"`
	IsMapPrivate     int    `json:"is_map_private"`
	*embeds.Arrays          // ?related=1
}

// render shapes a location for the caller: a private map's URL is for admins only, and a
// parent in hiddenParents (see handlers.hiddenParents) shows as none.
func render(r *httpapi.Request, l *domain.Location, a domain.Access, hiddenParents map[int64]bool) locationJSON {
	parent := l.ParentID
	if parent != nil && hiddenParents[*parent] {
		parent = nil
	}
	j := locationJSON{OwnerJSON: httpapi.RenderOwner(r, l.Meta, l.Owner), LocationID: parent, ParentLocationID: parent, Map: l.MapURL}
	if l.IsMapPrivate {
		j.IsMapPrivate = 1
		if !a.IsAdmin() {
			j.Map = ""
		}
	}
	return j
}

// AppendJSON is locationJSON's hand encoder (httpapi.JSONAppender); ?related=1 rows are left
// to encoding/json.
func (j locationJSON) AppendJSON(b []byte) ([]byte, bool) {
	if j.Arrays != nil {
		return b, false
	}
	b = append(b, '{')
	b = j.OwnerJSON.AppendOwnerFields(b)
	b = append(b, `,"location_id":`...)
	b = httpapi.AppendOptInt(b, j.LocationID)
	b = append(b, `,"parent_location_id":`...)
	b = httpapi.AppendOptInt(b, j.ParentLocationID)
	b = append(b, `,"map":`...)
	b = httpapi.AppendString(b, j.Map)
	b = append(b, `,"is_map_private":`...)
	b = httpapi.AppendInt(b, int64(j.IsMapPrivate))
	return append(b, '}'), true
}

func ownerOf(j *locationJSON) *httpapi.OwnerJSON { return &j.OwnerJSON }

// mapPointJSON is a map point with its id and location besides the spec's fields.
type mapPointJSON struct {
	ID             int64   `json:"id"`
	LocationID     int64   `json:"location_id"`
	TargetEntityID *int64  `json:"target_entity_id"`
	Name           *string `json:"name"`
	AxisX          int64   `json:"axis_x"`
	AxisY          int64   `json:"axis_y"`
	Colour         string  `json:"colour"`
	Size           string  `json:"size"`
	Icon           string  `json:"icon"`
	Shape          string  `json:"shape"`
	httpapi.AuditJSON
}

func renderMapPoint(p *domain.MapPoint) mapPointJSON {
	return mapPointJSON{ID: p.ID, LocationID: p.LocationID, TargetEntityID: p.TargetEntityID, Name: p.Name,
		AxisX: p.AxisX, AxisY: p.AxisY, Colour: p.Colour, Size: p.Size, Icon: p.Icon, Shape: p.Shape,
		AuditJSON: httpapi.RenderAudit(p.Meta)}
}
