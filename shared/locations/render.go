package locations

import (
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/related"
	"github.com/lorekeep/lorekeep/shared/store"
)

// locationJSON is a location as Kanka clients read it.
type locationJSON struct {
	ID               int64       `json:"id"`
	Name             string      `json:"name"`
	Entry            string      `json:"entry"`
	Image            string      `json:"image"`
	ImageFull        string      `json:"image_full"`
	ImageThumb       string      `json:"image_thumb"`
	HasCustomImage   bool        `json:"has_custom_image"`
	IsPrivate        bool        `json:"is_private"`
	LocationID       *int64      `json:"location_id"`
	ParentLocationID *int64      `json:"parent_location_id"`
	EntityID         int64       `json:"entity_id"`
	Tags             []int64     `json:"tags"`
	Map              string      `json:"map"`
	IsMapPrivate     int         `json:"is_map_private"`
	Type             string      `json:"type"`
	EntityImageUUID  *string     `json:"entity_image_uuid"`
	EntityHeaderUUID *string     `json:"entity_header_uuid"`
	CreatedAt        domain.Time `json:"created_at"`
	CreatedBy        int64       `json:"created_by"`
	UpdatedAt        domain.Time `json:"updated_at"`
	UpdatedBy        int64       `json:"updated_by"`
	*related.Arrays              // ?related=1
}

// render shapes a location for the caller: a private map's URL is for admins only.
func render(l *domain.Location, a domain.Access) locationJSON {
	j := locationJSON{
		ID: l.ID, Name: l.Name, Entry: l.Entry, Image: l.ImageURL, ImageFull: l.ImageURL, ImageThumb: l.ImageURL,
		HasCustomImage: l.ImageURL != "", IsPrivate: l.IsPrivate, LocationID: l.ParentID, ParentLocationID: l.ParentID,
		EntityID: l.EntityID, Tags: l.Tags, Map: l.MapURL, Type: l.Type,
		EntityImageUUID: optional(l.EntityImageUUID), EntityHeaderUUID: optional(l.EntityHeaderUUID),
		CreatedAt: domain.Time(l.CreatedAt), CreatedBy: l.CreatedBy, UpdatedAt: domain.Time(l.UpdatedAt), UpdatedBy: l.UpdatedBy,
	}
	if j.Tags == nil {
		j.Tags = []int64{}
	}
	if l.IsMapPrivate {
		j.IsMapPrivate = 1
		if !a.IsAdmin() {
			j.Map = ""
		}
	}
	return j
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// mapPointJSON is a map point with its id and location besides the spec's fields.
type mapPointJSON struct {
	ID             int64       `json:"id"`
	LocationID     int64       `json:"location_id"`
	TargetEntityID *int64      `json:"target_entity_id"`
	Name           *string     `json:"name"`
	AxisX          int64       `json:"axis_x"`
	AxisY          int64       `json:"axis_y"`
	Colour         string      `json:"colour"`
	Size           string      `json:"size"`
	Icon           string      `json:"icon"`
	Shape          string      `json:"shape"`
	CreatedAt      domain.Time `json:"created_at"`
	CreatedBy      int64       `json:"created_by"`
	UpdatedAt      domain.Time `json:"updated_at"`
	UpdatedBy      int64       `json:"updated_by"`
}

func renderMapPoint(p *domain.MapPoint) mapPointJSON {
	return mapPointJSON{ID: p.ID, LocationID: p.LocationID, TargetEntityID: p.TargetEntityID, Name: p.Name,
		AxisX: p.AxisX, AxisY: p.AxisY, Colour: p.Colour, Size: p.Size, Icon: p.Icon, Shape: p.Shape,
		CreatedAt: domain.Time(p.CreatedAt), CreatedBy: p.CreatedBy, UpdatedAt: domain.Time(p.UpdatedAt), UpdatedBy: p.UpdatedBy}
}

// withRelated adds the related arrays to rendered locations when the client asked for them.
func withRelated(r *httpapi.Request, st *store.Store, ls []domain.Location, out []locationJSON) error {
	on, err := r.Related()
	if err != nil || !on {
		return err
	}
	subjects := make([]related.Subject, len(ls))
	for i := range ls {
		subjects[i] = related.Subject{EntityID: ls[i].EntityID, Location: &ls[i]}
	}
	arrays, err := related.Load(r, st, subjects)
	for i := range arrays {
		out[i].Arrays = arrays[i]
	}
	return err
}
