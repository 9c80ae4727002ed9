package domain

// Reference is one reference a record holds to another record of its campaign, named by one of the
// record's fields (a character's `races`, a journal's `author_id`). A write names the target
// by its module id (Type and ID: a race's id) or by its entity id (EntityID, Type ""); the
// store resolves the other, checks that the target exists and that the writer may see it,
// and keeps Private and Hidden as the target changes.
type Reference struct {
	Field    string
	EntityID int64
	Type     string // the target's entity type (module code)
	ID       int64  // the target's id in its module
	// Private: the target is private, so only admins are answered it (kept by the store).
	Private bool
	// Hidden: the target is in the trash, so nobody is answered it until its restore (kept
	// by the store).
	Hidden bool
	// Single: the field holds one reference, so its errors name the field itself (never
	// stored).
	Single bool
	// Key is the reference's own id when the field's references are rows of their own (an
	// inventory line), so that one target may be named by several; 0 otherwise.
	Key int64
	// Data is what the reference carries beyond its target (an organisation membership's role),
	// kept on the referrer and on its link, so that the target's reverse read answers it.
	Data map[string]any
}

// Same reports whether r and o are the same reference: the same row (Key) of the same field,
// naming the same target (or, for a row, none: a free inventory line).
func (r Reference) Same(o Reference) bool {
	if r.Field != o.Field || r.Key != o.Key {
		return false
	}
	if r.EntityID != 0 && o.EntityID != 0 {
		return r.EntityID == o.EntityID
	}
	if r.Free() || o.Free() {
		return r.Free() && o.Free()
	}
	return r.Type == o.Type && r.ID == o.ID && r.ID != 0
}

// Free reports whether r is a row naming no record (an inventory line of a free name).
func (r Reference) Free() bool { return r.Key != 0 && r.EntityID == 0 && r.ID == 0 }

// RefsOf are the references of field that a reader is answered, in order: never the hidden
// ones, and the private ones for admins only.
func RefsOf(refs []Reference, field string, admin bool) []Reference {
	var out []Reference
	for _, r := range refs {
		if r.Field == field && !r.Hidden && (admin || !r.Private) {
			out = append(out, r)
		}
	}
	return out
}

// SetRefs replaces the references of field in refs with next (in their order).
func SetRefs(refs []Reference, field string, next []Reference) []Reference {
	out := make([]Reference, 0, len(refs)+len(next))
	for _, r := range refs {
		if r.Field != field {
			out = append(out, r)
		}
	}
	for _, r := range next {
		r.Field = field
		out = append(out, r)
	}
	return out
}
