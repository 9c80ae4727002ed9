package domain

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// Map is Kanka's map module (id 17): an owner kind nested under a parent map (`map_id`) like
// locations, tied to a location (`location_id`). Zooms are kept in hundredths and the centre in
// thousandths (fixed point: what is stored is what was sent, rounded, never a float's error).
type Map struct {
	Meta
	Owner
	ParentID   *int64
	LocationID *int64
	// LocationPrivate: the location was private when this map was written, so non-admins are
	// shown none (the store's public copy has none). Set by the store's reads and writes.
	LocationPrivate bool
	Grid            int64
	IsReal          bool
	// MinZoom, MaxZoom, InitialZoom in hundredths; nil is unset (Kanka's defaults, ZoomAnswer).
	MinZoom, MaxZoom, InitialZoom *int64
	// CenterX (longitude), CenterY (latitude) in thousandths.
	CenterX, CenterY *int64
	// Config is a JSON object (canonical text, "" for none): display options such as
	// distance_measure.
	Config string
	// Centre is the marker the map centres on (center_marker_id), nil for none.
	Centre *MapCentre
	// Ancestry and ParentPrivate: as Location's.
	Ancestry      []AncestorLink
	ParentPrivate bool
}

// MapCentre is a map's centre marker with the placement it has (kept by every write of that
// marker), which decides who is answered its id: a reader who may not see the marker is
// answered null.
type MapCentre struct {
	ID         int64
	Visibility Visibility
	CreatedBy  int64
	// Private: the marker links a private entity (admins only).
	Private bool
	// Version is the marker's version when a map write names it anew (that write holds it);
	// 0 for a centre kept or not checked yet.
	Version int64
}

// CentreOf is marker mk as its map's centre.
func CentreOf(mk *Marker) *MapCentre {
	return &MapCentre{ID: mk.ID, Visibility: mk.Visibility, CreatedBy: mk.CreatedBy, Private: mk.EntityPrivate, Version: mk.Version}
}

// SeenBy reports whether reader a may see the centre marker.
func (c *MapCentre) SeenBy(a Access) bool {
	return a.CanSee(c.Private) && a.CanSeeVisibility(c.Visibility, c.CreatedBy)
}

// Map limits (DESIGN 2.10): Kanka's zoom bounds (max_zoom up to the real maps' 15), the
// markers' decimal(10, 3) coordinates, a small typed config.
const (
	MapZoomMin       = -1000 // -10.00
	MapZoomMax       = 1500  // 15.00
	MapMaxZoomMin    = 100   // 1.00
	MapMaxCoordinate = 9_999_999_999
	MapMaxGrid       = 100_000
	MapConfigBytes   = 2048
	MapConfigKeys    = 20
)

// Apply merges the fields sent in `in` into m and validates the result, as Location.Apply.
func (m *Map) Apply(in Input, a Access) error {
	r := NewReader(in)
	was := m.IsPrivate
	m.ApplyOwner(r, a)
	for _, ref := range []struct {
		name string
		to   **int64
	}{{"map_id", &m.ParentID}, {"location_id", &m.LocationID}} {
		if f := r.ID(ref.name); f.Set && !r.Errs.Has(ref.name) {
			*ref.to = nil
			if f.Present() {
				id := f.Value
				*ref.to = &id
			}
		}
	}
	if f := r.Int("grid", 0, MapMaxGrid); f.Set && !r.Errs.Has("grid") {
		m.Grid = f.Value
	}
	if f := r.Bool("is_real"); f.Present() {
		m.IsReal = f.Value
	}
	for _, z := range []struct {
		name     string
		min, max int64
		to       **int64
	}{{"min_zoom", MapZoomMin, MapZoomMax, &m.MinZoom}, {"max_zoom", MapMaxZoomMin, MapZoomMax, &m.MaxZoom},
		{"initial_zoom", MapZoomMin, MapZoomMax, &m.InitialZoom}} {
		if f := r.Decimal(z.name, 2, z.min, z.max); f.Set && !r.Errs.Has(z.name) {
			*z.to = optional(f)
		}
	}
	for _, c := range []struct {
		name string
		to   **int64
	}{{"center_x", &m.CenterX}, {"center_y", &m.CenterY}} {
		if f := r.Decimal(c.name, 3, -MapMaxCoordinate, MapMaxCoordinate); f.Set && !r.Errs.Has(c.name) {
			*c.to = optional(f)
		}
	}
	if f := readMapConfig(r); f.Set {
		m.Config = f.Value
	}
	// A new centre is only named here: the handler reads the marker (a marker of this map the
	// writer may see) and CentreOf replaces it.
	if f := r.ID("center_marker_id"); f.Set && !r.Errs.Has("center_marker_id") {
		switch {
		case !f.Present():
			m.Centre = nil
		case m.ID == 0:
			r.Errs.Add("center_marker_id", "The selected center marker id is invalid.")
		case m.Centre == nil || m.Centre.ID != f.Value:
			m.Centre = &MapCentre{ID: f.Value}
		}
	}
	if m.ParentID != nil && m.ID != 0 && *m.ParentID == m.ID {
		r.Errs.Add("map_id", "The map id cannot be the map itself.")
	}
	if m.MinZoom != nil && m.MaxZoom != nil && *m.MinZoom > *m.MaxZoom && !r.Errs.Has("min_zoom") {
		r.Errs.Add("min_zoom", "The min zoom must not be greater than the max zoom.")
	}
	if m.IsReal { // degrees on a real (OpenStreetMap) map
		if m.CenterY != nil && (*m.CenterY < -90_000 || *m.CenterY > 90_000) && !r.Errs.Has("center_y") {
			r.Errs.Add("center_y", "The center y must be between -90 and 90 on a real map.")
		}
		if m.CenterX != nil && (*m.CenterX < -180_000 || *m.CenterX > 180_000) && !r.Errs.Has("center_x") {
			r.Errs.Add("center_x", "The center x must be between -180 and 180 on a real map.")
		}
	}
	return Finish(r, a, was, m.IsPrivate)
}

func optional(f Field[int64]) *int64 {
	if !f.Present() {
		return nil
	}
	v := f.Value
	return &v
}

// readMapConfig reads `config`: null, or an object of at most MapConfigKeys keys (names of at
// most 64 characters) with scalar values (strings of at most MaxNameLength characters), at most
// MapConfigBytes encoded; distance_measure, when set, a positive number. Kanka stores any
// array there; Lorekeep keeps it small and flat, so a record's size stays bounded.
func readMapConfig(r *Reader) Field[string] {
	v, set, null := r.raw("config")
	if !set || null {
		return Field[string]{Set: set, Null: null}
	}
	obj, ok := v.(map[string]any)
	fail := func(msg string) Field[string] { r.Fail("config", msg); return Field[string]{Set: true, Null: true} }
	if !ok {
		return fail("The :attribute must be an object.")
	}
	if len(obj) > MapConfigKeys {
		return fail("The :attribute must not have more than " + strconv.Itoa(MapConfigKeys) + " keys.")
	}
	for k, val := range obj {
		if k == "" || len([]rune(k)) > 64 {
			return fail("The :attribute keys must be 1 to 64 characters.")
		}
		switch x := val.(type) {
		case nil, bool:
		case json.Number:
			f, err := x.Float64()
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return fail("The :attribute." + k + " must be a finite number.")
			}
			if k == "distance_measure" && f <= 0 {
				return fail("The :attribute.distance_measure must be a positive number.")
			}
		case string:
			if len([]rune(x)) > MaxNameLength {
				return fail("The :attribute." + k + " must not be greater than " + strconv.Itoa(MaxNameLength) + " characters.")
			}
			if k == "distance_measure" {
				return fail("The :attribute.distance_measure must be a positive number.")
			}
		default:
			return fail("The :attribute." + k + " must be a string, a number, a boolean or null.")
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return fail("The :attribute must be an object.")
	}
	text := strings.TrimSpace(buf.String())
	if len(text) > MapConfigBytes {
		return fail("The :attribute must not be greater than " + strconv.Itoa(MapConfigBytes) + " bytes encoded.")
	}
	return Field[string]{Set: true, Value: text}
}

// CheckMapParent validates the parent map of map id (0 for a new map), as CheckParent does
// for locations: visible, not a descendant, not nested deeper than MaxLocationDepth.
func CheckMapParent(id int64, chain []AncestorLink, a Access) error {
	if len(chain) == 0 || !a.CanSee(chain[0].IsPrivate) {
		return apperr.Invalid("map_id", "The selected map id is invalid.")
	}
	for _, anc := range chain {
		if anc.ID == id {
			return apperr.Invalid("map_id", "The map id cannot be one of the map's descendants.")
		}
	}
	if len(chain) >= MaxLocationDepth {
		return apperr.Invalid("map_id", "The map id is nested too deeply.")
	}
	return nil
}

// Zooms are Kanka's answers for the stored zooms (Map::minZoom, maxZoom, initialZoom): defaults
// when unset, bounded by the map's kind (real or image). Min and initial are integers, max a
// number (2.75 unset on an image map, as Kanka answers).
func (m *Map) Zooms() (minZoom int64, maxZoom json.Number, initial int64) {
	realMin, realMax := int64(-1000), int64(1000)
	if m.IsReal {
		realMin, realMax = 200, 1500
	}
	switch {
	case m.MinZoom == nil && m.IsReal:
		minZoom = 2
	case m.MinZoom == nil:
		minZoom = -2
	case m.InitialZoom != nil && *m.MinZoom > *m.InitialZoom && *m.InitialZoom > -1000:
		minZoom = *m.InitialZoom / 100
	default:
		minZoom = max(*m.MinZoom, realMin) / 100
	}
	switch {
	case m.MaxZoom == nil && m.IsReal:
		maxZoom = "15"
	case m.MaxZoom == nil:
		maxZoom = "2.75"
	default:
		maxZoom = DecimalNumber(min(*m.MaxZoom, realMax), 2)
	}
	switch {
	case m.InitialZoom == nil && m.IsReal:
		initial = 12
	case m.InitialZoom == nil:
		initial = 0
	default:
		initial = min(max(*m.InitialZoom, -1000), 1000) / 100
	}
	return minZoom, maxZoom, initial
}

// Clone copies m deeply enough that changing the copy leaves m alone.
func (m *Map) Clone() *Map {
	c := *m
	c.Owner = m.Owner.Clone()
	for _, p := range []**int64{&c.ParentID, &c.LocationID, &c.MinZoom, &c.MaxZoom, &c.InitialZoom, &c.CenterX, &c.CenterY} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	return &c
}
