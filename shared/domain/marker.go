package domain

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Marker is Kanka's map marker: a pin, label, circle or polygon on a map (the path's), with its
// own visibility (notes' rules) and an optional linked entity. Coordinates are thousandths
// (Kanka's decimal(10, 3) columns), so what is answered is what was stored.
type Marker struct {
	Meta
	MapID int64
	Name  string
	// EntityID is the linked entity, EntityPrivate its privacy when the marker was written: a
	// marker linked to a private entity is placed for admins only (its is_private item flag).
	EntityID      *int64
	EntityPrivate bool
	// GroupID is a group of the map's pack (answered null once gone or when hidden).
	GroupID             *int64
	Latitude, Longitude int64
	ShapeID, Icon       int64
	CustomShape         string // normalised "lat,lng lat,lng ..." (polygons)
	PolygonStyle        string // canonical JSON object, "" for none
	Colour, FontColour  string // #rrggbb or ""
	Opacity, SizeID     int64
	CircleRadius        *int64
	PinSize             *int64
	CustomIcon          string
	Entry               string
	IsDraggable         bool
	IsPopupless         bool
	Visibility          Visibility
	// OnMap is its map as read with it (the store's GetMapAndMarker), never stored: a write of
	// the map's centre marker keeps the map's copy of its placement.
	OnMap MarkerMap
}

// MarkerMap is what a marker write needs of its map: its version and privacy, and whether it
// centres on this marker.
type MarkerMap struct {
	Version         int64
	Private, Centre bool
}

// Marker shapes (Kanka's MapMarker constants; its docs' polygon 4 is stored as 5) and bounds.
const (
	ShapeMarker      = 1
	ShapeLabel       = 2
	ShapeCircle      = 3
	ShapePolygon     = 5
	MaxPolygonPoints = 1000
	MaxCustomShape   = 32 * 1024
	MaxCustomIcon    = 1000
	maxCoordinate    = MapMaxCoordinate
)

var (
	colourRE    = regexp.MustCompile(`^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$`)
	iconClasses = regexp.MustCompile(`^[A-Za-z0-9 _-]{1,200}$`)
	iconElement = regexp.MustCompile(`^<i\s+class\s*=\s*"([A-Za-z0-9 _-]{1,200})"[^<>]*>\s*</i>$`)
)

// customIcon is Kanka's custom_icon reduced to what it renders safely: icon classes, or an
// <i> element keeping only its classes (Kanka writes the raw markup into its page; Lorekeep
// stores none a client could inject). "" clears it.
func customIcon(s string) (string, bool) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", true
	case iconClasses.MatchString(s):
		return s, true
	}
	if m := iconElement.FindStringSubmatch(s); m != nil {
		return `<i class="` + strings.Join(strings.Fields(m[1]), " ") + `"></i>`, true
	}
	return "", false
}

// Clone copies m; Apply replaces its pointers rather than writing through them.
func (m *Marker) Clone() *Marker { c := *m; return &c }

// Apply merges the sent fields into m and validates the result. The map comes from the path;
// realMap bounds coordinates to degrees.
func (m *Marker) Apply(in Input, realMap bool) error {
	r := NewReader(in)
	if f := r.String("name", MaxNameLength); f.Set {
		m.Name = strings.TrimSpace(f.Value)
	}
	if f := r.ID("entity_id"); f.Set && !r.Errs.Has("entity_id") {
		m.EntityID = optional(f)
	}
	if f := r.ID("group_id"); f.Set && !r.Errs.Has("group_id") {
		m.GroupID = optional(f)
	}
	for _, c := range []struct {
		name string
		to   *int64
	}{{"latitude", &m.Latitude}, {"longitude", &m.Longitude}} {
		f := r.Decimal(c.name, 3, -maxCoordinate, maxCoordinate)
		switch {
		case f.Present():
			*c.to = f.Value
		case (m.ID == 0 && !f.Set) || (f.Set && f.Null):
			r.Required(c.name, false)
		}
	}
	if f := r.Int("shape_id", 1, 5); f.Present() {
		m.ShapeID = f.Value
		if m.ShapeID == 4 { // the docs' polygon
			m.ShapeID = ShapePolygon
		}
	} else if (m.ID == 0 && !f.Set) || (f.Set && f.Null && !r.Errs.Has("shape_id")) {
		r.Required("shape_id", false)
	}
	if f := r.Int("icon", 1, 5); f.Present() {
		m.Icon = f.Value
	} else if (m.ID == 0 && !f.Set) || (f.Set && f.Null && !r.Errs.Has("icon")) {
		r.Required("icon", false)
	}
	if f := r.String("custom_shape", MaxCustomShape); f.Set && !r.Errs.Has("custom_shape") {
		m.CustomShape = ""
		if f.Present() && strings.TrimSpace(f.Value) != "" {
			if shape, msg := parsePolygon(f.Value, realMap); msg != "" {
				r.Fail("custom_shape", msg)
			} else {
				m.CustomShape = shape
			}
		}
	}
	if f := readPolygonStyle(r); f.Set {
		m.PolygonStyle = f.Value
	}
	for _, c := range []struct {
		name string
		to   *string
	}{{"colour", &m.Colour}, {"font_colour", &m.FontColour}} {
		if f := r.String(c.name, 7); f.Set && !r.Errs.Has(c.name) {
			v, ok := normColour(f.Value)
			if !ok {
				r.Fail(c.name, "The :attribute must be a colour such as #aa00ff.")
			} else {
				*c.to = v
			}
		}
	}
	if f := r.Int("opacity", 0, 100); f.Present() {
		m.Opacity = f.Value
	}
	if f := r.Int("size_id", 1, 6); f.Present() {
		m.SizeID = f.Value
	}
	if f := r.Int("circle_radius", 1, 1_000_000); f.Set && !r.Errs.Has("circle_radius") {
		m.CircleRadius = optional(f)
	}
	if f := r.Int("pin_size", 10, 400); f.Set && !r.Errs.Has("pin_size") {
		m.PinSize = optional(f)
	}
	if f := r.String("custom_icon", MaxCustomIcon); f.Set && !r.Errs.Has("custom_icon") {
		if icon, ok := customIcon(f.Value); ok {
			m.CustomIcon = icon
		} else {
			r.Fail("custom_icon", "The :attribute must be icon classes (fa-..., ra ...) or <i class=\"...\"></i>.")
		}
	}
	if f := readEntry(r); f.Set {
		m.Entry = f.Value
	}
	for _, b := range []struct {
		name string
		to   *bool
	}{{"is_draggable", &m.IsDraggable}, {"is_popupless", &m.IsPopupless}} {
		if f := r.Bool(b.name); f.Present() {
			*b.to = f.Value
		}
	}
	if v, ok := ReadVisibility(r); ok {
		m.Visibility = v
	}
	if m.Visibility == "" {
		m.Visibility = VisibilityAll
	}
	if m.Opacity == 0 && m.ID == 0 && !r.Has("opacity") {
		m.Opacity = 100
	}
	if m.SizeID == 0 {
		m.SizeID = 1
	}
	if m.Name == "" && m.EntityID == nil && !r.Errs.Has("name") && !r.Errs.Has("entity_id") {
		r.Errs.Add("name", "The name field is required when entity id is not present.")
	}
	if m.ShapeID == ShapePolygon && m.CustomShape == "" && !r.Errs.Has("custom_shape") && !r.Errs.Has("shape_id") {
		r.Errs.Add("custom_shape", "A polygon needs a custom shape of at least 3 points.")
	}
	if realMap {
		if (m.Latitude < -90_000 || m.Latitude > 90_000) && !r.Errs.Has("latitude") {
			r.Errs.Add("latitude", "The latitude must be between -90 and 90 on a real map.")
		}
		if (m.Longitude < -180_000 || m.Longitude > 180_000) && !r.Errs.Has("longitude") {
			r.Errs.Add("longitude", "The longitude must be between -180 and 180 on a real map.")
		}
	}
	return r.Err()
}

// normColour is a colour as #rrggbb in lower case ("" for none).
func normColour(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", true
	}
	if !colourRE.MatchString(s) {
		return "", false
	}
	s = strings.ToLower(strings.TrimPrefix(s, "#"))
	if len(s) == 3 {
		s = string([]byte{s[0], s[0], s[1], s[1], s[2], s[2]})
	}
	return "#" + s, true
}

// parsePolygon parses Kanka's custom_shape (points separated by whitespace, each "lat,lng",
// a trailing comma tolerated) into its normalised text; msg says what is wrong.
func parsePolygon(s string, realMap bool) (string, string) {
	points := strings.Fields(s)
	if len(points) > MaxPolygonPoints {
		return "", "The custom shape must not have more than " + strconv.Itoa(MaxPolygonPoints) + " points."
	}
	out := make([]string, 0, len(points))
	for i, p := range points {
		p = strings.TrimSuffix(p, ",")
		lat, lng, ok := strings.Cut(p, ",")
		a, okA := parseDecimal(lat, 3)
		b, okB := parseDecimal(lng, 3)
		if !ok || !okA || !okB || a < -maxCoordinate || a > maxCoordinate || b < -maxCoordinate || b > maxCoordinate ||
			(realMap && (a < -90_000 || a > 90_000 || b < -180_000 || b > 180_000)) {
			return "", "The custom shape's point " + strconv.Itoa(i+1) + " must be two numbers, lat,lng, within the map."
		}
		out = append(out, DecimalText(a, 3, false)+","+DecimalText(b, 3, false))
	}
	if len(out) < 3 {
		return "", "A polygon needs a custom shape of at least 3 points."
	}
	return strings.Join(out, " "), ""
}

// readPolygonStyle reads polygon_style: null or an object of stroke (a colour), stroke-width
// (1..100) and stroke-opacity (0..100), stored as canonical JSON.
func readPolygonStyle(r *Reader) Field[string] {
	v, set, null := r.raw("polygon_style")
	if !set || null {
		return Field[string]{Set: set, Null: null}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		r.Fail("polygon_style", "The :attribute must be an object.")
		return Field[string]{}
	}
	sub := NewReader(Input(obj))
	out := map[string]any{}
	for k := range obj {
		switch k {
		case "stroke":
			if f := sub.String(k, 7); f.Present() {
				c, ok := normColour(f.Value)
				if !ok {
					sub.Fail(k, "bad")
				} else if c != "" {
					out[k] = c
				}
			}
		case "stroke-width", "stroke-opacity":
			lo := int64(1)
			if k == "stroke-opacity" {
				lo = 0
			}
			if f := sub.Int(k, lo, 100); f.Present() {
				out[k] = f.Value
			}
		default:
			sub.Fail(k, "unknown")
		}
	}
	if sub.Err() != nil {
		r.Fail("polygon_style", "The :attribute takes only stroke (a colour), stroke-width (1 to 100) and stroke-opacity (0 to 100).")
		return Field[string]{}
	}
	if len(out) == 0 {
		return Field[string]{Set: true, Null: true}
	}
	b, _ := json.Marshal(out)
	return Field[string]{Set: true, Value: string(b)}
}
