package timeline

import "github.com/lorekeep/lorekeep/shared/domain"

// Related is what the related=1 arrays of a page's owners are made of, as the store's related
// buckets hold them: everything, whatever the reader (Visible filters). It lives here because
// it holds events (package domain cannot name them).
type Related struct {
	Notes     map[int64][]domain.Note     // by owner entity id, in id order
	Events    map[int64][]Event           // by owner entity id, in id order
	Relations map[int64][]domain.Relation // by owner entity id, in id order
	// Children are each location's direct children (by parent location id, in id order) with
	// the privacy their links carry.
	Children map[int64][]domain.AncestorLink
}

// NewRelated is an empty Related.
func NewRelated() Related {
	return Related{Notes: map[int64][]domain.Note{}, Events: map[int64][]Event{},
		Relations: map[int64][]domain.Relation{}, Children: map[int64][]domain.AncestorLink{}}
}

// VisibleNotes are the notes of entity eid that a may see: the rule of the notes' list ranges
// (a note has no privacy of its own, only a visibility).
func (r Related) VisibleNotes(eid int64, a domain.Access) []domain.Note {
	var out []domain.Note
	for _, n := range r.Notes[eid] {
		if a.CanSeeVisibility(n.Visibility, n.CreatedBy) {
			out = append(out, n)
		}
	}
	return out
}

// VisibleEvents are the events of entity eid that a may see (Event.VisibleTo).
func (r Related) VisibleEvents(eid int64, a domain.Access) []Event {
	var out []Event
	for _, ev := range r.Events[eid] {
		if ev.VisibleTo(a) {
			out = append(out, ev)
		}
	}
	return out
}

// VisibleChildren are the ids of location lid's direct children that a may see.
func (r Related) VisibleChildren(lid int64, a domain.Access) []int64 {
	out := []int64{}
	for _, c := range r.Children[lid] {
		if a.CanSee(c.IsPrivate) {
			out = append(out, c.ID)
		}
	}
	return out
}
