package domain

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
}

// Limits on location fields (Kanka's column sizes; entry is bounded by DynamoDB's item size).
const (
	MaxNameLength  = 191
	MaxEntryLength = 200_000
	MaxURLLength   = 2048
	MaxTags        = 100
)

// Apply merges the fields sent in `in` into l and validates the result: absent fields keep their
// value, so create, PUT and PATCH share one path. `parent_location_id` may be spelled
// `location_id`. Gallery image UUIDs need a superboosted campaign.
func (l *Location) Apply(in Input, a Access) error {
	r := NewReader(in)
	was := l.IsPrivate
	l.applyOwner(r, a)
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
	return finish(r, a, was, l.IsPrivate)
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
		return Invalid(field, "The selected "+Label(field)+" is invalid.")
	}
	for _, anc := range chain {
		if anc.ID == id {
			return Invalid(field, "The "+Label(field)+" cannot be one of the location's descendants.")
		}
	}
	if len(chain) >= MaxLocationDepth {
		return Invalid(field, "The "+Label(field)+" is nested too deeply.")
	}
	return nil
}

// LocationFilter narrows a location list: the record filters and the parent.
type LocationFilter struct {
	RecordFilter
	ParentID *int64
}

// ParentField names the field a body used for the parent: Kanka accepts both spellings.
func ParentField(in Input) string {
	if _, ok := in["parent_location_id"]; !ok {
		if _, ok := in["location_id"]; ok {
			return "location_id"
		}
	}
	return "parent_location_id"
}

// Clone copies l deeply enough that changing the copy leaves l alone.
func (l *Location) Clone() *Location {
	c := *l
	c.Owner = l.Owner.clone()
	if l.ParentID != nil {
		p := *l.ParentID
		c.ParentID = &p
	}
	return &c
}
