package modules

import (
	"maps"
	"strings"
	"time"

	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/modules/spec"
)

// Record is a record of a declared module: the meta and owner every module has, its parent
// (when the module nests), its category status and its own fields by name.
type Record struct {
	domain.Meta
	domain.Owner
	Module   string // the module's code
	ParentID *int64 // the parent's module id
	// Ancestry and ParentPrivate: as a location's (the kernel's nesting checks).
	Ancestry      []domain.AncestorLink
	ParentPrivate bool
	StatusID      *int64
	Text          map[string]string // Text and Date fields ("" or absent: null)
	Flags         map[string]bool
	Traits        []Trait // a character's (spec.Spec.Traits)
}

// Clone copies r deeply enough that changing the copy leaves r alone.
func (r *Record) Clone() *Record {
	c := *r
	c.Owner = r.Owner.Clone()
	if r.ParentID != nil {
		p := *r.ParentID
		c.ParentID = &p
	}
	if r.StatusID != nil {
		s := *r.StatusID
		c.StatusID = &s
	}
	c.Text, c.Flags = maps.Clone(r.Text), maps.Clone(r.Flags)
	c.Traits = append([]Trait(nil), r.Traits...)
	c.Ancestry = append([]domain.AncestorLink(nil), r.Ancestry...)
	return &c
}

// parentInput is what a write says of the parent: the current era's parent_id (an entity id,
// resolved by the handler) and the 2025 era's <module>_id (a module id).
type parentInput struct {
	entity, legacy         domain.Field[int64]
	entityField, legacyKey string
}

// apply merges the fields sent in `in` into r and validates them (the parent's existence and
// visibility are the handler's, which reads it).
func (k declared) apply(r *Record, in domain.Input, a domain.Access) (parentInput, error) {
	rd := domain.NewReader(in)
	was := r.IsPrivate
	r.ApplyOwner(rd, a)
	for _, f := range k.Fields {
		switch f.Kind {
		case spec.Text:
			if v := rd.String(f.Name, f.Max); v.Set && !rd.Errs.Has(f.Name) {
				setText(r, f.Name, strings.TrimSpace(v.Value))
			}
		case spec.Date:
			if v := rd.String(f.Name, 10); v.Set && !rd.Errs.Has(f.Name) {
				d := strings.TrimSpace(v.Value)
				if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
					rd.Fail(f.Name, "The :attribute is not a valid date (YYYY-MM-DD).")
					continue
				}
				setText(r, f.Name, d)
			}
		case spec.Flag:
			if v := rd.Bool(f.Name); v.Present() {
				if r.Flags == nil {
					r.Flags = map[string]bool{}
				}
				r.Flags[f.Name] = v.Value
			}
		}
	}
	k.applyStatus(r, rd)
	k.applyRefs(r, rd, a)
	if k.Traits {
		applyTraits(r, rd, in)
	}
	var p parentInput
	if k.Module.Nested {
		p = parentInput{entity: rd.ID("parent_id"), legacy: rd.ID(k.LegacyParent), entityField: "parent_id", legacyKey: k.LegacyParent}
	} else {
		for _, name := range []string{"parent_id"} {
			if rd.Has(name) && !isNull(in[name]) {
				rd.Fail(name, "A "+strings.ToLower(k.Module.Singular)+" has no parent.")
			}
		}
	}
	return p, domain.Finish(rd, a, was, r.IsPrivate)
}

func isNull(v any) bool { return v == nil || v == "" }

func setText(r *Record, name, v string) {
	if v == "" {
		delete(r.Text, name)
		return
	}
	if r.Text == nil {
		r.Text = map[string]string{}
	}
	r.Text[name] = v
}

// applyStatus reads the status both eras write: status_id (a category status of the module,
// null for none), or a legacy boolean (is_dead...): true sets the status it stands for, false
// clears it when it is the record's (a character's becomes alive, as Kanka's migration read
// false). status_id wins when both are sent.
func (k declared) applyStatus(r *Record, rd *domain.Reader) {
	if len(k.Statuses) == 0 {
		return
	}
	if f := rd.Int("status_id", 1, 1<<31); f.Set && !rd.Errs.Has("status_id") {
		if !f.Present() {
			r.StatusID = nil
			return
		}
		if _, ok := k.StatusByID[f.Value]; !ok {
			rd.Fail("status_id", "The selected status id is invalid.")
			return
		}
		id := f.Value
		r.StatusID = &id
		return
	}
	for _, name := range k.LegacyBooleans {
		f := rd.Bool(name)
		if !f.Present() {
			continue
		}
		cur := k.LegacyOf(r.StatusID)
		switch {
		case f.Value:
			for _, s := range k.Statuses {
				if s.Legacy == name {
					id := s.ID
					r.StatusID = &id
					break
				}
			}
		case cur == name:
			r.StatusID = k.DefaultStatusID
		}
	}
}
