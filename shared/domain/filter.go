package domain

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Filter is a list's filters in Kanka's language (HasFilters.php), read once from the query by
// ReadFilter and translated into storage conditions in one place in the store. Zero fields do
// not filter; the conditions are AND-ed.
type Filter struct {
	Name []Term // every term must hold, on the name (case-insensitive)
	Type []Term // likewise on the type
	// IsPrivate narrows to private or public records (non-admins see only public ones anyway).
	IsPrivate *bool
	Tags      []int64
	TagsMatch TagsMatch
	CreatedBy *int64
	UpdatedBy *int64
	// UpdatedAfter is the client's lastSync.
	UpdatedAfter *time.Time
	// ParentLocationID is a location list's parent_location_id (or location_id).
	ParentLocationID *int64
	// ParentEntityID is a location list's parent_id: the parent's entity id, which the caller
	// resolves to ParentLocationID (a parent it may not see matches nothing).
	ParentEntityID *int64
	// None is set when the filter can match nothing (an unresolvable parent): no query needed.
	None bool
	// Fields are a record's own text fields' terms (a module's title, sex...), matched on the
	// lower-case copies its item keeps; Equal are attributes that must hold a value (a status),
	// Differ attributes that must not (absent ones do not).
	Fields []FieldTerms
	Equal  []AttrValue
	Differ []AttrValue
	// Refs: each must hold, by one of its IDs, a reference of its field (a character's
	// race_id, races[]).
	Refs []RefFilter
}

// RefFilter holds when a record references one of IDs by Field: module ids of Type, or entity
// ids (ByEntity).
type RefFilter struct {
	Field, Type string
	IDs         []int64
	ByEntity    bool
}

// FieldTerms are the terms a record's own text field Field must hold.
type FieldTerms struct {
	Field string
	Terms []Term
}

// AttrValue is a stored attribute and a value.
type AttrValue struct {
	Attr  string
	Value any
}

// TermOp is how a term compares: Kanka's `x` contains, `!x` does not contain (or is empty),
// `x!` equals, `!!` is empty.
type TermOp int

const (
	Contains TermOp = iota
	NotContains
	Equals
	IsEmpty
)

// Term is one condition on a text field. Value is lower-case: text filters ignore case, as
// Kanka's MySQL collation does.
type Term struct {
	Op    TermOp
	Value string
}

// TagsMatch is tags_option: how the tags[] of a filter combine.
type TagsMatch string

const (
	TagsAll     TagsMatch = ""        // every tag (Kanka's default)
	TagsAny     TagsMatch = "any"     // at least one of them
	TagsExclude TagsMatch = "exclude" // none of them
	TagsNone    TagsMatch = "none"    // no tags at all (tags[] is not needed)
)

// FilterKeys says which filters a list takes: the others are ignored, like any unknown query
// parameter (a note has no type or tags to filter on).
type FilterKeys uint

const (
	FilterName FilterKeys = 1 << iota
	FilterType
	FilterPrivate
	FilterTags
	FilterAuthors // created_by, updated_by
	FilterParent  // parent_location_id, location_id, parent_id
	FilterSync    // lastSync

	// FilterRecords is what every list of records that own an entity takes.
	FilterRecords = FilterName | FilterType | FilterPrivate | FilterTags | FilterAuthors | FilterSync
	// FilterChildren is what a list of an entity's notes or events takes.
	FilterChildren = FilterName | FilterPrivate | FilterAuthors | FilterSync
)

// Bounds on a filter: each term and tag is a comparison in the storage query, whose expression
// DynamoDB bounds (4 KB); the largest filter stays well inside it.
const (
	MaxFilterTerms  = 5
	MaxFilterTags   = 50
	MaxFilterLength = 1000
)

// ReadFilter reads the filters keys allows from a list's query parameters, with the reader
// every body uses: a bad value is a 422 naming the parameter, and nothing is read.
func ReadFilter(in Input, keys FilterKeys) (Filter, error) {
	rd := NewReader(in)
	var f Filter
	if keys&FilterName != 0 {
		f.Name = ReadTerms(rd, "name")
	}
	if keys&FilterType != 0 {
		f.Type = ReadTerms(rd, "type")
	}
	if keys&FilterPrivate != 0 {
		if v := rd.Bool("is_private"); v.Present() {
			f.IsPrivate = &v.Value
		}
	}
	if keys&FilterTags != 0 {
		if v := rd.IDs("tags", MaxFilterTags); v.Present() {
			f.Tags = v.Value
		}
		opts := []string{string(TagsAny), string(TagsExclude), string(TagsNone)}
		if v := rd.OneOf("tags_option", opts, nil); v.Present() {
			f.TagsMatch = TagsMatch(v.Value)
		}
	}
	if keys&FilterAuthors != 0 {
		f.CreatedBy = optionalID(rd, "created_by")
		f.UpdatedBy = optionalID(rd, "updated_by")
	}
	if keys&FilterParent != 0 {
		name := "parent_location_id"
		if !rd.Has(name) && rd.Has("location_id") {
			name = "location_id"
		}
		f.ParentLocationID = optionalID(rd, name)
		f.ParentEntityID = optionalID(rd, "parent_id")
	}
	if keys&FilterSync != 0 {
		// Kanka never refuses a lastSync: an unreadable value (or "0") filters nothing.
		if v, _, _ := rd.raw("lastSync"); v != nil {
			if s, ok := v.(string); ok {
				if t, ok := ParseSyncTime(s); ok {
					f.UpdatedAfter = &t
				}
			}
		}
	}
	return f, rd.Err()
}

func optionalID(rd *Reader, name string) *int64 {
	if v := rd.ID(name); v.Present() {
		return &v.Value
	}
	return nil
}

// readTerms reads a text filter: `;` separates terms that must all hold, each with its own
// operator. Kanka gives the first term the operator of the whole value; here every term is read
// alike. Empty terms, and a bare `!`, compare nothing and are skipped.
// ReadTerms reads the filter name's terms, in Kanka's term language.
func ReadTerms(rd *Reader, name string) []Term {
	v := rd.String(name, MaxFilterLength)
	if !v.Present() {
		return nil
	}
	var terms []Term
	for _, s := range strings.Split(v.Value, ";") {
		t := ParseTerm(s)
		if t.Op != IsEmpty && t.Value == "" {
			continue
		}
		terms = append(terms, t)
	}
	if len(terms) > MaxFilterTerms {
		rd.Errs.Add(name, "The "+Label(name)+" must not have more than "+strconv.Itoa(MaxFilterTerms)+" terms.")
		return nil
	}
	return terms
}

// ParseTerm reads one term of Kanka's filter language.
func ParseTerm(s string) Term {
	switch {
	case s == "!!":
		return Term{Op: IsEmpty}
	case strings.HasPrefix(s, "!"):
		return Term{Op: NotContains, Value: strings.ToLower(strings.TrimLeft(s, "!"))}
	case strings.HasSuffix(s, "!"):
		return Term{Op: Equals, Value: strings.ToLower(strings.TrimRight(s, "!"))}
	}
	return Term{Op: Contains, Value: strings.ToLower(s)}
}

// Match applies the term to a value as the store does: the reference its tests compare with.
func (t Term) Match(value string) bool {
	v := strings.ToLower(value)
	switch t.Op {
	case NotContains:
		return !strings.Contains(v, t.Value)
	case Equals:
		return v == t.Value
	case IsEmpty:
		return v == ""
	}
	return strings.Contains(v, t.Value)
}

// Filtered is what a filter compares of a record, for the lists filtered in memory (a
// calendar's reminders) rather than by the store.
type Filtered struct {
	Name, Type           string
	IsPrivate            bool
	Tags                 []int64
	CreatedBy, UpdatedBy int64
	UpdatedAt            time.Time
	ParentLocationID     *int64
}

// Match applies f to x as the store's translation does.
func (f Filter) Match(x Filtered) bool {
	for _, t := range f.Name {
		if !t.Match(x.Name) {
			return false
		}
	}
	for _, t := range f.Type {
		if !t.Match(x.Type) {
			return false
		}
	}
	has := func(tag int64) bool { return slices.Contains(x.Tags, tag) }
	switch {
	case f.None,
		f.IsPrivate != nil && *f.IsPrivate != x.IsPrivate,
		f.TagsMatch == TagsNone && len(x.Tags) > 0,
		f.TagsMatch == TagsAny && len(f.Tags) > 0 && !slices.ContainsFunc(f.Tags, has),
		f.TagsMatch == TagsExclude && slices.ContainsFunc(f.Tags, has),
		f.TagsMatch == TagsAll && !all(f.Tags, has),
		f.CreatedBy != nil && *f.CreatedBy != x.CreatedBy,
		f.UpdatedBy != nil && *f.UpdatedBy != x.UpdatedBy,
		f.UpdatedAfter != nil && !x.UpdatedAt.After(*f.UpdatedAfter),
		f.ParentLocationID != nil && (x.ParentLocationID == nil || *x.ParentLocationID != *f.ParentLocationID):
		return false
	}
	return true
}

func all[T any](xs []T, ok func(T) bool) bool {
	for _, x := range xs {
		if !ok(x) {
			return false
		}
	}
	return true
}
