package domain

import (
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/sanitize"
)

// A map's layers and groups are few, small and always wanted whole (every map answer embeds
// them, every group check needs the whole tree), so each kind is one pack: a versioned list
// written at once (the store's pack item), its ids from the pack's own sequence.

// PackEntry is what layers and groups share.
type PackEntry struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Position   int64      `json:"position"`
	Visibility Visibility `json:"visibility"`
	CreatedBy  int64      `json:"created_by"`
	UpdatedBy  int64      `json:"updated_by"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

// MapGroup is a map's marker group, nested under a group of the same map.
type MapGroup struct {
	PackEntry
	ParentID *int64 `json:"parent_id,omitempty"`
	IsShown  bool   `json:"is_shown"`
}

// MapLayer is a map's layer: a picture over (or instead of) the map's own.
type MapLayer struct {
	PackEntry
	Entry  string `json:"entry,omitempty"`
	TypeID int64  `json:"type_id"`
	// ImagePath is the stored picture (the images path, as a record's); ImageURL an address
	// kept as given before layers' pictures were stored, answered as such.
	ImagePath string `json:"image_path,omitempty"`
	ImageURL  string `json:"image_url,omitempty"`
}

// PackGone is a deleted entry, for ?deleted=1.
type PackGone struct {
	ID         int64      `json:"id"`
	Visibility Visibility `json:"visibility"`
	CreatedBy  int64      `json:"created_by"`
	DeletedAt  time.Time  `json:"deleted_at"`
}

// MapPack is one map's layers or groups as stored: Version guards every write, Seq the last id.
type MapPack[T any] struct {
	Version int64
	Seq     int64
	Items   []T
	Gone    []PackGone
}

// MapPacks are one map's groups and layers.
type MapPacks struct {
	Groups *MapPack[MapGroup]
	Layers *MapPack[MapLayer]
}

// Pack limits (DESIGN 2.10): Kanka caps layers and groups by subscription; Lorekeep by what one
// item holds.
const (
	MaxMapLayers    = 20
	MaxMapGroups    = 100
	MaxGroupDepth   = 10
	MaxLayerEntry   = 1000
	MaxPackGone     = 200
	MaxPackPosition = 999
)

// LayerTypes are Kanka's layer types by type_id.
var LayerTypes = []string{"standard", "overlay", "overlay_shown"}

// applyEntry reads the shared fields; name is required.
func (p *PackEntry) applyEntry(r *Reader) {
	if f := r.String("name", MaxNameLength); f.Set {
		p.Name = strings.TrimSpace(f.Value)
	}
	if f := r.Int("position", 0, MaxPackPosition); f.Set && !r.Errs.Has("position") {
		p.Position = f.Value
	}
	if v, ok := ReadVisibility(r); ok {
		p.Visibility = v
	}
	if p.Visibility == "" {
		p.Visibility = VisibilityAll
	}
	r.Required("name", p.Name != "")
}

// Apply merges the sent fields into g and checks its parent against the pack's groups: a
// group of this map the writer sees (visible), not g itself nor one of its descendants, at
// most MaxGroupDepth levels.
func (g *MapGroup) Apply(in Input, groups []MapGroup, visible func(*PackEntry) bool) error {
	r := NewReader(in)
	g.applyEntry(r)
	if f := r.Bool("is_shown"); f.Present() {
		g.IsShown = f.Value
	}
	if f := r.ID("parent_id"); f.Set && !r.Errs.Has("parent_id") {
		g.ParentID = optional(f)
	}
	if err := r.Err(); err != nil {
		return err
	}
	if g.ParentID == nil {
		return nil
	}
	byID := map[int64]*MapGroup{}
	for i := range groups {
		byID[groups[i].ID] = &groups[i]
	}
	p := byID[*g.ParentID]
	if p == nil || !visible(&p.PackEntry) {
		r.Fail("parent_id", "The selected :attribute is invalid.")
		return r.Err()
	}
	depth := 1
	for at := p; at != nil; depth++ {
		if at.ID == g.ID {
			r.Fail("parent_id", "The :attribute cannot be the group itself or one of its descendants.")
			return r.Err()
		}
		if at.ParentID == nil {
			break
		}
		at = byID[*at.ParentID]
	}
	// depth is the parent's level (a root's is 1); g hangs one below, its subtree below it.
	if depth+1+subtreeDepth(g.ID, groups, 0) > MaxGroupDepth {
		r.Fail("parent_id", "The :attribute is nested too deeply.")
	}
	return r.Err()
}

// subtreeDepth is how many levels hang below group id (0 for a leaf or a new group).
func subtreeDepth(id int64, groups []MapGroup, level int) int {
	if id == 0 || level > MaxGroupDepth { // a pack holds no cycle; the bound guards the walk anyway
		return 0
	}
	most := 0
	for i := range groups {
		if p := groups[i].ParentID; p != nil && *p == id && groups[i].ID != id {
			most = max(most, 1+subtreeDepth(groups[i].ID, groups, level+1))
		}
	}
	return most
}

// Apply merges the sent fields into l: type as type_id (0..2) or its name, a caption entry of
// at most MaxLayerEntry characters. The picture (`image` or `image_url`, required) is the
// images path's: the caller reads it once these rules passed (SetImage).
func (l *MapLayer) Apply(in Input) error {
	r := NewReader(in)
	l.applyEntry(r)
	if f := r.Int("type_id", 0, 2); f.Set && !r.Errs.Has("type_id") {
		l.TypeID = 0
		if f.Present() {
			l.TypeID = f.Value
		}
	}
	if f := r.OneOf("type", LayerTypes, nil); f.Present() {
		for i, t := range LayerTypes {
			if t == f.Value {
				l.TypeID = int64(i)
			}
		}
	}
	if f := r.String("entry", MaxLayerEntry); f.Set && !r.Errs.Has("entry") {
		l.Entry = sanitize.HTML(f.Value)
	}
	return r.Err()
}

// SetImage applies the write's picture (set: a new stored path, or "" to clear it): a layer
// always has one, so clearing it, or a new layer without one, is a 422 naming image_url.
func (l *MapLayer) SetImage(set bool, path string) error {
	if set {
		l.ImagePath, l.ImageURL = path, ""
	}
	r := NewReader(Input{})
	r.Required("image_url", l.ImagePath != "" || l.ImageURL != "")
	return r.Err()
}
