package domain

import (
	"regexp"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// MapPoint is a marker on a location's map (deprecated by Kanka in favour of maps, kept for
// clients that still use it).
type MapPoint struct {
	Meta
	LocationID     int64
	TargetEntityID *int64
	Name           *string
	AxisX, AxisY   int64
	Colour         string
	Size           string
	Icon           string
	Shape          string
}

var (
	mapPointColours = []string{"none", "grey", "red", "blue", "green", "yellow", "black", "white"}
	mapPointShapes  = []string{"circle", "square"}
	mapPointSizes   = []string{"standard", "small", "large"}
	hexColour       = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
	iconName        = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,63}$`)
)

// Coordinates are pixels on the map image; bounded to MySQL's int like Kanka's columns.
const maxAxis = 1<<31 - 1

// Apply merges the sent fields into p and validates the result. The location comes from the
// path, never from the body. A target entity replaces the name (Kanka shows the entity's).
func (p *MapPoint) Apply(in Input) error {
	r := NewReader(in)
	if f := r.ID("target_entity_id"); f.Set && !r.Errs.Has("target_entity_id") {
		p.TargetEntityID = nil
		if f.Present() {
			id := f.Value
			p.TargetEntityID = &id
		}
	}
	if f := r.String("name", MaxNameLength); f.Set {
		p.Name = nil
		if s := strings.TrimSpace(f.Value); f.Present() && s != "" {
			p.Name = &s
		}
	}
	if f := r.Int("axis_x", -maxAxis, maxAxis); f.Present() {
		p.AxisX = f.Value
	}
	if f := r.Int("axis_y", -maxAxis, maxAxis); f.Present() {
		p.AxisY = f.Value
	}
	if f := r.OneOf("colour", mapPointColours, hexColour.MatchString); f.Present() {
		p.Colour = strings.ToLower(f.Value)
	}
	if f := r.OneOf("shape", mapPointShapes, nil); f.Present() {
		p.Shape = f.Value
	}
	if f := r.OneOf("size", mapPointSizes, nil); f.Present() {
		p.Size = f.Value
	}
	if f := r.OneOf("icon", []string{"pin", "entity"}, iconName.MatchString); f.Present() {
		p.Icon = f.Value
	}
	if p.TargetEntityID == nil && p.Name == nil && !r.Errs.Has("name") && !r.Errs.Has("target_entity_id") {
		r.Errs.Add("name", "The name field is required when target entity id is not present.")
	}
	if p.TargetEntityID != nil {
		p.Name = nil
	}
	// Required on create; on update they may be omitted but not cleared.
	for _, name := range []string{"axis_x", "axis_y", "colour", "shape", "size", "icon"} {
		v, sent := r.in[name]
		if (p.ID == 0 && !sent) || (sent && (v == nil || v == "")) {
			r.Required(name, false)
		}
	}
	return r.Err()
}

// Clone copies p deeply enough that changing the copy leaves p alone.
func (p *MapPoint) Clone() *MapPoint {
	c := *p
	if p.TargetEntityID != nil {
		t := *p.TargetEntityID
		c.TargetEntityID = &t
	}
	if p.Name != nil {
		n := *p.Name
		c.Name = &n
	}
	return &c
}

// NewTarget is the target entity to check: set, and not the one prev (nil for a new point) had.
func (p *MapPoint) NewTarget(prev *MapPoint) (int64, bool) {
	if p.TargetEntityID == nil || (prev != nil && prev.TargetEntityID != nil && *prev.TargetEntityID == *p.TargetEntityID) {
		return 0, false
	}
	return *p.TargetEntityID, true
}

// CheckTarget requires the target entity e (nil when missing) to be one the caller may see; a
// hidden one is refused like a missing one.
func CheckTarget(e *Entity, a Access) error {
	if a.SeeEntity(e) != nil {
		return apperr.Invalid("target_entity_id", "The selected target entity id is invalid.")
	}
	return nil
}
