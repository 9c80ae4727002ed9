package modules

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"github.com/lorekeep/lorekeep/shared/apperr"
	"github.com/lorekeep/lorekeep/shared/domain"
	"github.com/lorekeep/lorekeep/shared/embeds"
	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/module"
	"github.com/lorekeep/lorekeep/shared/modules/spec"
	"github.com/lorekeep/lorekeep/shared/store"
)

// Register mounts every declared module's list and CRUD routes, and the campaign's category
// statuses.
func Register(api *httpapi.API, kernel *store.Store) {
	stores := map[string]*storage{}
	for _, d := range spec.All {
		k := declared{d}
		stores[k.Module.Code] = newStorage(k, kernel)
		mount(api, k, stores[k.Module.Code])
	}
	if f, from, ok := membershipField(); ok {
		mountMembers(api, stores[f.Target], stores[from.Module.Code], f)
	}
	api.Handle("GET", "/category_statuses", categoryStatuses)
}

func mount(api *httpapi.API, k declared, st *storage) {
	h := handlers{k: k, st: st}
	module.Mount(api, st.st, module.Routes[Record, *Record, recordJSON]{
		Type: k.Module.Code, Collection: k.Path, Gone: k.Gone,
		Filter: k.filter, List: st.list, ListAhead: httpapi.ReadAhead(k.ReadList, "", ""),
		Subjects: func(rs []Record) []embeds.Subject {
			out := make([]embeds.Subject, len(rs))
			for i := range rs {
				out[i] = embeds.Subject{ID: rs[i].ID, EntityID: rs[i].EntityID, Refs: rs[i].Refs}
			}
			return out
		},
		Row: func(r *httpapi.Request, rs []Record) (func(*Record) recordJSON, error) {
			reverse, err := k.reverse(r, st.st, rs)
			if err != nil {
				return nil, err
			}
			return func(rec *Record) recordJSON { return k.render(r, rec, reverse[rec.ID]) }, nil
		},
		Arrays: func(j *recordJSON) **embeds.Arrays { return &j.Arrays },
		Owner:  func(j *recordJSON) *httpapi.OwnerJSON { return &j.OwnerJSON },
		CRUD: httpapi.Resource[Record, *Record, httpapi.None]{
			Visible: h.visible, Apply: h.apply,
			New:    func(*httpapi.Request, httpapi.None) *Record { return &Record{Module: k.Module.Code} },
			Create: st.create, Update: st.update, Delete: st.delete,
			Item: httpapi.ReadAhead(k.Read, "id", ""), Resume: st.resume,
		},
	})
}

// declared is a declared module, as this package reads, stores and renders its records.
type declared struct{ *spec.Declared }

type handlers struct {
	k  declared
	st *storage
}

// visible reads a record the caller may see; a hidden one is a 404 like a missing one.
func (h handlers) visible(r *httpapi.Request) (httpapi.None, *Record, error) {
	id, err := r.PathID("id")
	if err != nil {
		return httpapi.None{}, nil, err
	}
	rec, err := h.st.get(r.Context(), r.Access.CampaignID, id)
	if err == nil && !r.Access.CanSee(rec.IsPrivate) {
		err = apperr.ErrNotFound
	}
	return httpapi.None{}, rec, err
}

// apply merges the body into next, resolves its parent (either era's field) and checks it:
// a record of the module the caller may see, no cycle, not too deep.
func (h handlers) apply(r *httpapi.Request, in domain.Input, _ httpapi.None, prev, next *Record) error {
	p, err := h.k.apply(next, in, r.Access)
	if err != nil || !h.k.Module.Nested {
		return err
	}
	field, err := h.parent(r, p, prev, next)
	if err != nil {
		return err
	}
	if prev != nil && prev.ParentID != nil && next.ParentID == nil && prev.ParentPrivate && !r.Access.CanSee(true) {
		next.ParentID = prev.ParentID // a hidden parent sent back as none stays (as locations)
	}
	if next.ParentID == nil || (prev != nil && prev.ParentID != nil && *prev.ParentID == *next.ParentID) {
		return nil
	}
	if next.ID != 0 && *next.ParentID == next.ID {
		return apperr.Invalid(field, "The "+domain.Label(field)+" cannot be the "+h.singular()+" itself.")
	}
	depth := domain.MaxLocationDepth
	if prev == nil {
		depth = 1
	}
	chain, err := h.st.ancestry(r.Context(), next.CampaignID, *next.ParentID, depth)
	if err != nil {
		return err
	}
	next.Ancestry = chain
	return domain.CheckParent(field, next.ID, chain, r.Access)
}

func (h handlers) singular() string { return h.k.Module.Code }

// parent sets next's parent from the body: parent_id (an entity of the module) or the legacy
// <module>_id (a module id). When both are sent, parent_id wins, unless it names the parent
// the record already has while the legacy field names another (a 2025 client that sends back
// what it read, with its own field changed). It answers the field that set the parent ("":
// neither was sent).
func (h handlers) parent(r *httpapi.Request, p parentInput, prev, next *Record) (string, error) {
	var fromEntity *int64
	if p.entity.Set && p.entity.Present() {
		e, err := h.st.st.GetEntity(r.Context(), r.Access.CampaignID, p.entity.Value)
		switch {
		case errors.Is(err, apperr.ErrNotFound) || (err == nil && (e.Type != h.k.Module.Code || !r.Access.CanSee(e.IsPrivate))):
			return "", apperr.Invalid(p.entityField, "The selected parent id is invalid.")
		case err != nil:
			return "", err
		}
		id := e.ChildID
		fromEntity = &id
	}
	var fromLegacy *int64
	if p.legacy.Set && p.legacy.Present() {
		id := p.legacy.Value
		fromLegacy = &id
	}
	same := func(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
	switch {
	case p.entity.Set && p.legacy.Set:
		if prev != nil && same(fromEntity, prev.ParentID) && !same(fromLegacy, prev.ParentID) {
			next.ParentID = fromLegacy
			return p.legacyKey, nil
		}
		next.ParentID = fromEntity
		return p.entityField, nil
	case p.entity.Set:
		next.ParentID = fromEntity
		return p.entityField, nil
	case p.legacy.Set:
		next.ParentID = fromLegacy
		return p.legacyKey, nil
	}
	return "", nil
}

// filter reads the list's filters: every record list's, the module's own text fields (Kanka's
// term language, as name's), its status (status_id, or a 2025 boolean: is_dead=1 is the status
// it stands for, is_dead=0 any other or none) and, for a nested module, its parent (the 2025
// API's <module>_id, a module id).
func (k declared) filter(r *httpapi.Request) (domain.Filter, error) {
	f, err := r.Filter(domain.FilterRecords)
	if err != nil {
		return f, err
	}
	rd := domain.NewReader(r.Query())
	for _, fd := range k.Fields {
		if fd.Kind != spec.Flag {
			if terms := domain.ReadTerms(rd, fd.Name); len(terms) > 0 {
				f.Fields = append(f.Fields, domain.FieldTerms{Field: fd.Name, Terms: terms})
			}
		}
	}
	if len(k.Statuses) > 0 {
		if v := rd.Int("status_id", 1, 1<<31); v.Present() {
			f.Equal = append(f.Equal, domain.AttrValue{Attr: "status_id", Value: v.Value})
		}
		for _, name := range k.LegacyBooleans {
			v := rd.Bool(name)
			if !v.Present() {
				continue
			}
			for _, s := range k.Statuses {
				if s.Legacy != name {
					continue
				}
				if v.Value {
					f.Equal = append(f.Equal, domain.AttrValue{Attr: "status_id", Value: s.ID})
				} else {
					f.Differ = append(f.Differ, domain.AttrValue{Attr: "status_id", Value: s.ID})
				}
			}
		}
	}
	k.refFilters(rd, &f)
	if k.Module.Nested {
		if v := rd.ID(k.LegacyParent); v.Present() {
			f.Equal = append(f.Equal, domain.AttrValue{Attr: spec.ParentAttribute, Value: v.Value})
		}
	}
	return f, rd.Err()
}

// recordJSON is a module record as Kanka clients read it: the owner's fields, then the module's
// own, its parent (the 2025 API's <module>_id, a module id) and its status in both eras.
type recordJSON struct {
	httpapi.OwnerJSON
	*embeds.Arrays // ?related=1
	own            []ownField
}

type ownField struct {
	name  string
	value any
}

// statusJSON is Kanka's status object.
type statusJSON struct {
	ID       int64  `json:"id"`
	Key      string `json:"key"`
	IsCustom bool   `json:"is_custom"`
}

// render shapes a record for the caller: a private parent shows as none to non-admins.
func (k declared) render(r *httpapi.Request, rec *Record, reverse map[string]any) recordJSON {
	j := recordJSON{OwnerJSON: httpapi.RenderOwner(r, rec.Meta, rec.Owner)}
	for _, f := range k.Fields {
		switch f.Kind {
		case spec.Flag:
			j.own = append(j.own, ownField{f.Name, rec.Flags[f.Name]})
		default:
			var v *string
			if s, ok := rec.Text[f.Name]; ok && s != "" {
				v = &s
			}
			j.own = append(j.own, ownField{f.Name, v})
		}
	}
	if k.Module.Nested {
		parent := rec.ParentID
		if parent != nil && rec.ParentPrivate && !r.Access.CanSee(true) {
			parent = nil
		}
		j.own = append(j.own, ownField{k.LegacyParent, parent})
	}
	k.renderRefs(&j, rec, r.Access.CanSee(true))
	for _, f := range k.Reverses() {
		v := reverse[f.Name]
		if v == nil {
			v = []int64{}
		}
		j.own = append(j.own, ownField{f.Name, v})
	}
	if related, _ := r.Related(); related {
		for _, f := range k.Refs {
			if f.Membership {
				j.own = append(j.own, ownField{f.Name, renderMemberships(rec, f.Name, r.Access)})
			}
		}
	}
	if k.Traits {
		j.own = append(j.own, ownField{"traits", renderTraits(rec, r.Access)})
	}
	if len(k.Statuses) > 0 {
		var status *statusJSON
		if rec.StatusID != nil {
			s := k.StatusByID[*rec.StatusID]
			status = &statusJSON{ID: s.ID, Key: s.Key}
		}
		j.own = append(j.own, ownField{"status_id", rec.StatusID}, ownField{"status", status})
		legacy := k.LegacyOf(rec.StatusID)
		for _, name := range k.LegacyBooleans {
			j.own = append(j.own, ownField{name, legacy == name})
		}
	}
	return j
}

// MarshalJSON writes the owner's fields, the related arrays and the module's own fields as
// one object.
func (j recordJSON) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(struct {
		httpapi.OwnerJSON
		*embeds.Arrays
	}{j.OwnerJSON, j.Arrays})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, f := range j.own {
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		buf.WriteString(`,` + strconv.Quote(f.name) + `:`)
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// categoryStatusJSON is one of Kanka's category statuses (CategoryStatusResource).
type categoryStatusJSON struct {
	ID         int64  `json:"id"`
	Key        string `json:"key"`
	IsDefault  bool   `json:"is_default"`
	CategoryID int    `json:"category_id"`
}

// categoryStatuses answers Kanka's default category statuses of every module served, by id.
func categoryStatuses(*httpapi.Request) (httpapi.Reply, error) {
	out := []categoryStatusJSON{}
	for _, k := range spec.All {
		for _, s := range k.Statuses {
			out = append(out, categoryStatusJSON{ID: s.ID, Key: s.Key, IsDefault: s.Default, CategoryID: k.Module.ID})
		}
	}
	slices.SortFunc(out, func(a, b categoryStatusJSON) int { return cmp.Compare(a.ID, b.ID) })
	return httpapi.One(out), nil
}
