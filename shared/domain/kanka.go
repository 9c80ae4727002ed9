package domain

import (
	"slices"
	"strings"
)

// Kanka today (DESIGN.md section 9): what the current Kanka API calls things, beside the spec's
// 2022 names. The records are the same; only their spelling differs.

// ID is Kanka's visibility_id: 1 all, 2 admin, 3 self-admin, 4 self, 5 member. The empty
// visibility of an old record is `all`.
func (v Visibility) ID() int {
	switch v {
	case VisibilityAdmin:
		return 2
	case VisibilitySelfAdmin:
		return 3
	case VisibilitySelf:
		return 4
	case VisibilityMember:
		return 5
	}
	return 1
}

// EntityTypes are the entity types Lorekeep stores, as Kanka names them: its modules' codes.
var EntityTypes = moduleCodes()

// EntityFilter narrows Kanka's entities list: Types (any of them; none means all) and Kanka's
// filter language on what an entity mirrors: every record filter but `type`, which on an entity
// is its kind (see Types).
type EntityFilter struct {
	Types []string
	Filter
}

// FilterEntities is what the entities list takes of Kanka's filter language.
const FilterEntities = FilterRecords &^ FilterType

// ReadEntityFilter reads `types` (a comma list, Kanka's spelling) and the filters from the
// query. A type Lorekeep does not store matches nothing: Kanka clients ask for every type.
func ReadEntityFilter(in Input) (EntityFilter, error) {
	var f EntityFilter
	var err error
	if f.Filter, err = ReadFilter(in, FilterEntities); err != nil {
		return f, err
	}
	rd := NewReader(in)
	// A repeated `types` (the Foundry importer appends its query to every next link) or
	// `types[]` is a list: its lists add up.
	var lists []string
	switch raw, _, _ := rd.raw("types"); x := raw.(type) {
	case nil:
	case string:
		lists = []string{x}
	case []string: // a query's values
		lists = x
	case []any: // a JSON body's
		for _, v := range x {
			if s, ok := v.(string); ok {
				lists = append(lists, s)
			}
		}
	default:
		rd.Fail("types", "The :attribute must be a comma-separated list of entity types.")
	}
	for _, l := range lists {
		for _, t := range strings.Split(l, ",") {
			if t = strings.ToLower(strings.TrimSpace(t)); t != "" && !slices.Contains(f.Types, t) {
				f.Types = append(f.Types, t)
			}
		}
	}
	// Kanka's module filter of today: `type_id[]` (or one `type_id`), module ids. Given with
	// `types`, both must hold. A module Lorekeep does not serve matches nothing.
	if raw, _, _ := rd.raw("type_id"); raw != nil {
		var ids []int64
		if s, ok := raw.(string); ok {
			if v := rd.ID("type_id"); s != "" && v.Present() {
				ids = []int64{v.Value}
			}
		} else if v := rd.IDs("type_id", len(Modules)+MaxFilterTerms); v.Present() {
			ids = v.Value
		}
		if ids != nil {
			codes := []string{unservedModule} // non-empty: an unserved id alone matches nothing
			for _, id := range ids {
				for _, m := range Modules {
					if int64(m.ID) == id && (len(f.Types) == 0 || slices.Contains(f.Types, m.Code)) {
						codes = append(codes, m.Code)
					}
				}
			}
			f.Types = codes
		}
	}
	return f, rd.Err()
}

// ServedTypes are the kinds Lorekeep serves that the filter keeps: all of them without a type
// filter, none when it names only modules Lorekeep does not serve.
func (f EntityFilter) ServedTypes() []string {
	if len(f.Types) == 0 {
		return EntityTypes
	}
	var out []string
	for _, t := range EntityTypes {
		if slices.Contains(f.Types, t) {
			out = append(out, t)
		}
	}
	return out
}

// unservedModule stands in a type filter for modules Lorekeep does not serve: it matches nothing.
const unservedModule = "-"
