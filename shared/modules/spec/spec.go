// Package spec declares Kanka's entity modules served as declarations (package modules serves
// them): each is a Spec of its codes, its own fields, its parent and its statuses, registered
// with the kernel at init (its kind row, its entity type), so that every binary knows its
// kind through package kinds, while only the modules' function links their routes.
package spec

import (
	"slices"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/store"
)

// FieldKind is how a module's own field is read, stored and answered.
type FieldKind int

const (
	Text FieldKind = iota // a nullable string, at most Max characters
	Flag                  // a boolean, false unless set
	Date                  // a nullable real date, YYYY-MM-DD
)

// Field is one of a module's own fields.
type Field struct {
	Name string
	Kind FieldKind
	Max  int // Text: the longest value in characters
}

// Ref is one of a module's reference fields: a list of records (a character's races) or one
// record (a journal's author), named on the wire by module id or, for a field naming any
// entity (Target ""), by entity id.
type Ref struct {
	Name   string
	Target string // the module code the ids name; "" for entity ids of any module
	One    bool   // a single reference, answered as an id or null
	// Legacy is the 2025 API's single field standing for the first reference ("race_id");
	// LegacyTarget the module its id names when it differs from Target (an item's
	// character_id: a character among creators that are entities).
	Legacy, LegacyTarget string
	// Private: the answer also lists, for admins, the references to private records
	// (Kanka's private_races).
	Private bool
	// Reverse names, on the target's module, the field answering the referrers (a family's
	// members: the characters whose families name it).
	Reverse string
	// Membership: the references are organisation memberships (their data a member's role,
	// pin, status, boss and privacy), written through the target's organisation_members
	// routes, never through the record's body; answered by the record with related=1 and in
	// reverse as the target's `members` objects.
	Membership bool
}

// Status is one of Kanka's default category statuses (category_statuses): its id and key, and
// the legacy boolean it stands for (is_dead, is_extinct...), "" for none.
type Status struct {
	ID      int64
	Key     string
	Legacy  string
	Default bool
}

// Spec is one module's declaration.
type Spec struct {
	Module domain.Module // Kanka's id, code, names; Nested when records nest under the same module
	Prefix string        // the KIND of its keys
	Path   string        // the collection's path: "/characters"
	Gone   string        // its ?deleted=1 list name
	// LegacyParent is the 2025 API's parent field (a parent's module id): "organisation_id".
	LegacyParent string
	Fields       []Field
	Refs         []Ref
	Statuses     []Status
	// Traits: the records carry Kanka's character traits (appearance and personality sections,
	// written as <section>_name[] and <section>_entry[], answered as traits[]).
	Traits bool
}

// Declared is a declared module: its Spec, its row of the kind table and its reads ahead.
type Declared struct {
	Spec
	Kind           store.Kind
	Read, ReadList domain.Read
	// LegacyBooleans are the distinct legacy booleans its statuses stand for.
	LegacyBooleans []string
	StatusByID     map[int64]Status
	// DefaultStatusID is the status a legacy boolean's false sets (a character's alive).
	DefaultStatusID *int64
}

// All are the declared modules, in declaration order.
var All []*Declared

// declare registers s: its kind row and module with the kernel, its reads ahead.
func declare(s Spec) *Declared {
	parentAttr := ""
	if s.Module.Nested {
		parentAttr = ParentAttribute
	}
	k := &Declared{Spec: s, StatusByID: map[int64]Status{}}
	k.Kind = store.DeclareOwnerKind(s.Module, s.Prefix, s.Gone, parentAttr)
	k.Read, k.ReadList = store.RecordRead(k.Kind), store.ListRead(k.Kind)
	for _, st := range s.Statuses {
		k.StatusByID[st.ID] = st
		if st.Default {
			id := st.ID
			k.DefaultStatusID = &id
		}
		if st.Legacy != "" && !slices.Contains(k.LegacyBooleans, st.Legacy) {
			k.LegacyBooleans = append(k.LegacyBooleans, st.Legacy)
		}
	}
	All = append(All, k)
	return k
}

// ParentAttribute is where a nested record keeps its parent's module id (the kernel's
// parent attribute, and the field its parent errors name: the current era's parent_id).
const ParentAttribute = "parent_id"

// LegacyOf is the legacy boolean that status id stands for ("" for none).
func (k *Declared) LegacyOf(id *int64) string {
	if id == nil {
		return ""
	}
	return k.StatusByID[*id].Legacy
}

// Reverse is a field a module answers from its referrers: the ids of the records of module
// From that name it by their field Field (a family's members: characters, by families).
type Reverse struct {
	Name, Field, From string
	Members           bool // organisation member objects, not ids
}

// Reverses are the fields k answers in reverse, from every declaration.
func (k *Declared) Reverses() []Reverse {
	var out []Reverse
	for _, d := range All {
		for _, f := range d.Refs {
			switch {
			case f.Membership && f.Target == k.Module.Code:
				out = append(out, Reverse{Name: "members", Field: f.Name, From: d.Module.Code, Members: true})
			case f.Reverse != "" && f.Target == k.Module.Code:
				out = append(out, Reverse{Name: f.Reverse, Field: f.Name, From: d.Module.Code})
			}
		}
	}
	return out
}
