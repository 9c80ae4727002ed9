package domain

import (
	"regexp"
	"strconv"
	"strings"
)

// Relation is an entity-to-entity edge (Kanka's relations, "connections"), owned by the entity of
// the path. A mirrored pair are two relations whose MirrorID name each other.
type Relation struct {
	Meta
	OwnerID    int64
	TargetID   int64
	Relation   string
	Attitude   int64
	Colour     string // "rrggbb" or "" (Kanka stores it without '#')
	Visibility Visibility
	IsPinned   bool
	MirrorID   *int64
	// OwnerPrivate and TargetPrivate are the privacy of the two entities when the relation was
	// written: they place it (a relation of a private entity is for admins only).
	OwnerPrivate, TargetPrivate bool

	// Create only: more targets (Kanka's targets[]), two_way mirrors and their text.
	Targets        []int64
	ListAnswer     bool // targets[] was sent: the answer is the list of created relations
	TwoWay         bool
	TargetRelation string
	// TargetPrivacy is the privacy of each target, read by the write (it places the relations).
	TargetPrivacy map[int64]bool
	// Created holds every relation a create wrote (mirrors included), in order.
	Created []Relation
	// DeleteMirrored deletes the mirror with the relation (Kanka's web option).
	DeleteMirrored bool
}

// Relation limits (round3 9, Q10): targets of one create.
const (
	MaxRelationLength  = 255
	MaxRelationTargets = 20
	MinAttitude        = -100
	MaxAttitude        = 100
)

var colourPattern = regexp.MustCompile(`^#?([0-9a-fA-F]{6})$`)

// Clone copies r without its create-only parts.
func (r *Relation) Clone() *Relation {
	c := *r
	c.Targets, c.Created, c.TargetPrivacy = nil, nil, nil
	return &c
}

// Private reports whether only admins may see the relation (its owner or target is private,
// or its visibility says so).
func (r *Relation) Private() bool { return r.OwnerPrivate || r.TargetPrivate }

// Apply merges the sent fields into r and validates them; create reads targets[], two_way and
// target_relation too. The owner comes from the path (a body owner_id is ignored, DESIGN 2).
func (r *Relation) Apply(in Input, create bool) error {
	rd := NewReader(in)
	if f := rd.ID("target_id"); f.Present() {
		r.TargetID = f.Value
	}
	if create {
		if f := rd.IDs("targets", MaxRelationTargets); f.Present() {
			r.Targets, r.ListAnswer = dedupe(f.Value), true
		}
		if f := rd.Bool("two_way"); f.Set {
			r.TwoWay = f.Value
		}
		if f := rd.String("target_relation", MaxRelationLength); f.Present() {
			r.TargetRelation = strings.TrimSpace(f.Value)
		}
	}
	if f := rd.String("relation", MaxRelationLength); f.Set {
		r.Relation = strings.TrimSpace(f.Value)
	}
	if f := rd.Int("attitude", MinAttitude, MaxAttitude); f.Set && !rd.Errs.Has("attitude") {
		r.Attitude = f.Value
	}
	if f := rd.String("colour", 7); f.Set && !rd.Errs.Has("colour") {
		switch m := colourPattern.FindStringSubmatch(f.Value); {
		case !f.Present() || f.Value == "":
			r.Colour = ""
		case m == nil:
			rd.Fail("colour", "The :attribute must be a colour like #aa0000.")
		default:
			r.Colour = strings.ToLower(m[1])
		}
	}
	for _, n := range []string{"is_pinned", "is_star"} {
		if f := rd.Bool(n); f.Set {
			r.IsPinned = f.Value
			break
		}
	}
	if v, ok := ReadVisibility(rd); ok {
		r.Visibility = v
	}
	if r.Visibility == "" {
		r.Visibility = VisibilityAll
	}
	rd.Required("relation", r.Relation != "")
	if create && len(r.Targets) == 0 {
		rd.Required("target_id", r.TargetID != 0)
	}
	for i, t := range r.AllTargets() {
		if t == r.OwnerID {
			name := "target_id"
			if r.ListAnswer {
				name = "targets." + strconv.Itoa(i)
			}
			rd.Fail(name, "The :attribute and owner id must be different.")
		}
	}
	return rd.Err()
}

// AllTargets are the targets of a create: targets[] when sent, else target_id.
func (r *Relation) AllTargets() []int64 {
	if len(r.Targets) > 0 {
		return r.Targets
	}
	if r.TargetID != 0 {
		return []int64{r.TargetID}
	}
	return nil
}

// Mirror is the mirror of r: owner and target swapped, the text target_relation or the same.
func (r *Relation) Mirror() Relation {
	m := *r
	m.Targets, m.Created, m.MirrorID, m.TargetPrivacy = nil, nil, nil, nil
	m.OwnerID, m.TargetID = r.TargetID, r.OwnerID
	m.OwnerPrivate, m.TargetPrivate = r.TargetPrivate, r.OwnerPrivate
	if r.TargetRelation != "" {
		m.Relation = r.TargetRelation
	}
	return m
}

// CanSeeRelation applies a relation's visibility and placement: one whose owner or target the
// caller may not see is hidden, as Kanka's has('target').
func (a Access) CanSeeRelation(r *Relation) bool {
	return a.CanSee(r.Private()) && a.CanSeeVisibility(r.Visibility, r.CreatedBy)
}

// dedupe keeps the first of each id (one relation per target, as Kanka's distinct check).
func dedupe(ids []int64) []int64 {
	seen := map[int64]bool{}
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
