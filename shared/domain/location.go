package domain

import (
	"encoding/json"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
)

// Location is a place in a campaign, possibly nested under a parent location.
type Location struct {
	Meta
	Owner
	ParentID     *int64
	MapURL       string
	IsMapPrivate bool
	// Ancestry is the parent chain as read for the parent checks (parent first): the store makes
	// the write conditional on it still holding, so concurrent moves cannot make a cycle.
	Ancestry []AncestorLink
	// ParentPrivate says that the parent is private, so a reader who is not an admin is shown
	// no parent (the store's public copy has none). Set by the store's reads and writes.
	ParentPrivate bool
}

// Apply merges the fields sent in `in` into l and validates the result: absent fields keep their
// value, so create, PUT and PATCH share one path. `parent_location_id` may be spelled
// `location_id`. Gallery image UUIDs need a superboosted campaign.
func (l *Location) Apply(in Input, a Access) error {
	r := NewReader(in)
	was := l.IsPrivate
	l.ApplyOwner(r, a)
	parentName := ParentField(in)
	if f := r.ID(parentName); f.Set && !r.Errs.Has(parentName) {
		l.ParentID = nil
		if f.Present() {
			id := f.Value
			l.ParentID = &id
		}
	}
	if f := readURL(r, "map_url"); f.Set {
		l.MapURL = f.Value
	}
	if f := r.Bool("is_map_private"); f.Present() {
		l.IsMapPrivate = f.Value
	}
	if l.ParentID != nil && l.ID != 0 && *l.ParentID == l.ID {
		r.Errs.Add(parentName, "The "+Label(parentName)+" cannot be the location itself.")
	}
	return Finish(r, a, was, l.IsPrivate)
}

// MaxLocationDepth bounds the ancestor walk of the cycle check: deeper trees are refused.
const MaxLocationDepth = 64

// AncestorLink is one step up a location tree.
type AncestorLink struct {
	ID        int64
	IsPrivate bool
	ParentID  *int64
}

// CheckParent validates the parent of location id (0 for a new location) given the chain from
// the parent upwards as stored: the parent must exist and be visible to the caller, and the
// location cannot be its own ancestor.
func CheckParent(field string, id int64, chain []AncestorLink, a Access) error {
	if len(chain) == 0 || !a.CanSee(chain[0].IsPrivate) {
		return apperr.Invalid(field, "The selected "+Label(field)+" is invalid.")
	}
	for _, anc := range chain {
		if anc.ID == id {
			return apperr.Invalid(field, "The "+Label(field)+" cannot be one of the location's descendants.")
		}
	}
	if len(chain) >= MaxLocationDepth {
		return apperr.Invalid(field, "The "+Label(field)+" is nested too deeply.")
	}
	return nil
}

// ParentField names the field a body (or a list's query) used for the parent: the spec's
// parent_location_id, Kanka's older location_id, or Kanka's current parent_id, which names the
// parent by its entity (see ParentByEntity). The first one sent counts, in that order.
func ParentField(in Input) string {
	for _, name := range []string{"parent_location_id", "location_id", "parent_id"} {
		if _, ok := in[name]; ok {
			return name
		}
	}
	return "parent_location_id"
}

// ParentEntityID reads parent_id when it is the parent field of in: the entity the caller must
// resolve with ParentByEntity before Apply. Absent or null: nothing to resolve.
func ParentEntityID(in Input) (*int64, error) {
	if ParentField(in) != "parent_id" {
		return nil, nil
	}
	rd := NewReader(in)
	f := rd.ID("parent_id")
	if !f.Present() {
		return nil, rd.Err()
	}
	return &f.Value, nil
}

// ParentByEntity answers a copy of in whose parent_id holds the location id of e, the entity
// parent_id named (nil when there is none): Apply then reads it like the other spellings, and
// every message names parent_id. The parent must be a location the caller may see, as with
// parent_location_id.
func ParentByEntity(in Input, e *Entity, a Access) (Input, error) {
	if e == nil || e.Type != "location" || !a.CanSee(e.IsPrivate) {
		return nil, apperr.Invalid("parent_id", "The selected parent id is invalid.")
	}
	out := make(Input, len(in))
	for k, v := range in {
		out[k] = v
	}
	out["parent_id"] = json.Number(strconv.FormatInt(e.ChildID, 10))
	return out, nil
}

// Clone copies l deeply enough that changing the copy leaves l alone.
func (l *Location) Clone() *Location {
	c := *l
	c.Owner = l.Owner.Clone()
	if l.ParentID != nil {
		p := *l.ParentID
		c.ParentID = &p
	}
	return &c
}

// Ancestors walks up from parent through links (locations by id; a zero link is one known to be
// missing): the ancestor ids, nearest first, up to the first the caller may not see, which ends
// the walk as a root would (what lies beyond a hidden location stays hidden). missing is the
// first id not in links yet (0 when the walk ended): read it and walk again.
func Ancestors(parent *int64, links map[int64]AncestorLink, a Access) (ids []int64, missing int64) {
	ids = []int64{}
	for next := parent; next != nil && len(ids) < MaxLocationDepth; {
		link, ok := links[*next]
		if !ok {
			return ids, *next
		}
		if link.ID == 0 || !a.CanSee(link.IsPrivate) {
			break
		}
		ids = append(ids, link.ID)
		next = link.ParentID
	}
	return ids, 0
}
