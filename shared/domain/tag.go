package domain

import "github.com/lorekeep/lorekeep/shared/apperr"

// Tag is Kanka's tag module (id 12): an entity kind like locations, nested under a parent tag
// (`tag_id`) with the same ancestry checks (CheckParent).
type Tag struct {
	Meta
	Owner
	ParentID      *int64
	Colour        string
	IsAutoApplied bool
	IsHidden      bool
	// Ancestry and ParentPrivate: as Location's.
	Ancestry      []AncestorLink
	ParentPrivate bool
}

// MaxTagEntities bounds a tag's `entities` (the entities it links), answered by entity id.
const MaxTagEntities = 1000

// TagMembers is a tag's `entities` for one reader (the first MaxTagEntities entity ids of the
// records it links that the reader may see) and `entities_count` (how many there are).
type TagMembers struct {
	Entities []int64
	Count    int
}

// TagColours are the colour keys Kanka accepts for a tag ("" is none).
var TagColours = []string{"", "aqua", "black", "blue", "brown", "green", "grey", "light-blue", "maroon", "navy",
	"orange", "pink", "purple", "red", "teal", "yellow"}

// Apply merges the fields sent in `in` into t and validates the result, as Location.Apply.
func (t *Tag) Apply(in Input, a Access) error {
	r := NewReader(in)
	was := t.IsPrivate
	t.ApplyOwner(r, a)
	if f := r.ID("tag_id"); f.Set && !r.Errs.Has("tag_id") {
		t.ParentID = nil
		if f.Present() {
			id := f.Value
			t.ParentID = &id
		}
	}
	if f := r.OneOf("colour", TagColours, nil); f.Set {
		t.Colour = f.Value
	}
	if f := r.Bool("is_auto_applied"); f.Present() {
		t.IsAutoApplied = f.Value
	}
	if f := r.Bool("is_hidden"); f.Present() {
		t.IsHidden = f.Value
	}
	if t.ParentID != nil && t.ID != 0 && *t.ParentID == t.ID {
		r.Errs.Add("tag_id", "The tag id cannot be the tag itself.")
	}
	return Finish(r, a, was, t.IsPrivate)
}

// CheckTagParent validates the parent tag of tag id (0 for a new tag), as CheckParent does
// for locations: visible, not a descendant, not nested deeper than MaxLocationDepth.
func CheckTagParent(id int64, chain []AncestorLink, a Access) error {
	if len(chain) == 0 || !a.CanSee(chain[0].IsPrivate) {
		return apperr.Invalid("tag_id", "The selected tag id is invalid.")
	}
	for _, anc := range chain {
		if anc.ID == id {
			return apperr.Invalid("tag_id", "The tag id cannot be one of the tag's descendants.")
		}
	}
	if len(chain) >= MaxLocationDepth {
		return apperr.Invalid("tag_id", "The tag id is nested too deeply.")
	}
	return nil
}

// Clone copies t deeply enough that changing the copy leaves t alone.
func (t *Tag) Clone() *Tag {
	c := *t
	c.Owner = t.Owner.Clone()
	if t.ParentID != nil {
		p := *t.ParentID
		c.ParentID = &p
	}
	return &c
}
